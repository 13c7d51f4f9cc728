package verbsurface

import (
	"github.com/verbsurface/verbsurface/internal/editdist"
	"slices"
	"sort"
	"strings"
	"unicode/utf8"
)

// prefixScore ranks prefix-only matches after every edit-distance match
// (edit distances are capped at maxDistanceRunes, so they stay below it).
const prefixScore = 200

// maxMatches caps the close matches an unknown_verb error names.
const maxMatches = 5

// closeMatches returns the registered names closest to name: those within
// a small edit distance (after case and separator folding), those made of
// the same words in another order ("submit.agent", "agent_submit"), and
// those sharing a prefix of at least three characters or the namespace.
// Prefix matches are offered only when nothing closer is: a typo in
// "job.stauts" should point at job.status, not at every job verb. Closest
// first; ties by name.
func closeMatches(name string, candidates []string) []string {
	type scored struct {
		name  string
		score int
	}
	q := strings.Join(foldTokens(name), ".")
	qWords := sortedWords(q)
	limit := max(2, min(utf8.RuneCountInString(q), maxDistanceRunes)/3)
	var hits []scored
	for _, c := range candidates {
		cf := strings.Join(foldTokens(c), ".")
		d := editDistance(q, cf)
		switch {
		case q == "":
		case d <= limit:
			hits = append(hits, scored{c, d})
		case slices.Equal(qWords, sortedWords(cf)):
			hits = append(hits, scored{c, 1})
		case commonPrefix(q, cf) >= 3:
			hits = append(hits, scored{c, prefixScore - min(commonPrefix(q, cf), maxDistanceRunes)})
		}
	}
	if slices.ContainsFunc(hits, func(h scored) bool { return h.score < prefixScore-maxDistanceRunes }) {
		hits = slices.DeleteFunc(hits, func(h scored) bool { return h.score >= prefixScore-maxDistanceRunes })
	}
	sort.Slice(hits, func(i, j int) bool {
		if hits[i].score != hits[j].score {
			return hits[i].score < hits[j].score
		}
		return hits[i].name < hits[j].name
	})
	var out []string
	for _, h := range hits {
		if len(out) == maxMatches {
			break
		}
		out = append(out, h.name)
	}
	return out
}

func sortedWords(folded string) []string {
	w := strings.Split(folded, ".")
	sort.Strings(w)
	return w
}

func commonPrefix(a, b string) int {
	n := 0
	for n < len(a) && n < len(b) && a[n] == b[n] {
		n++
	}
	return n
}

// maxDistanceRunes bounds the runes editDistance compares (editdist).
const maxDistanceRunes = editdist.MaxRunes

// editDistance and withinOneEdit are editdist's: both the unknown-verb
// suggestions and the fence's near-miss rule use them.
func editDistance(a, b string) int { return editdist.Distance(a, b) }

func withinOneEdit(a, b string) bool { return editdist.WithinOne(a, b) }
