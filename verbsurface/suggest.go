package verbsurface

import (
	"slices"
	"sort"
	"strings"
)

// prefixScore ranks prefix-only matches after every edit-distance match
// (edit distances are capped at 64 runes, so they stay below it).
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
	var hits []scored
	for _, c := range candidates {
		cf := strings.Join(foldTokens(c), ".")
		d := editDistance(q, cf)
		limit := max(2, len([]rune(q))/3)
		switch {
		case q == "":
		case d <= limit:
			hits = append(hits, scored{c, d})
		case slices.Equal(qWords, sortedWords(cf)):
			hits = append(hits, scored{c, 1})
		case commonPrefix(q, cf) >= 3:
			hits = append(hits, scored{c, prefixScore - min(commonPrefix(q, cf), 64)})
		}
	}
	if slices.ContainsFunc(hits, func(h scored) bool { return h.score < prefixScore-64 }) {
		hits = slices.DeleteFunc(hits, func(h scored) bool { return h.score >= prefixScore-64 })
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

// editDistance is the Levenshtein distance over runes. Inputs longer than
// 64 runes are compared on their first 64: a hostile megabyte-long name
// must not cost quadratic time.
func editDistance(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	if len(ra) > 64 {
		ra = ra[:64]
	}
	if len(rb) > 64 {
		rb = rb[:64]
	}
	prev := make([]int, len(rb)+1)
	cur := make([]int, len(rb)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(ra); i++ {
		cur[0] = i
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(rb)]
}
