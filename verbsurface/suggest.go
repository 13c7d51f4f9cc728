package verbsurface

import (
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

// maxDistanceRunes bounds the runes editDistance compares: a hostile
// megabyte-long name must cost neither quadratic time nor a rune slice per
// candidate.
const maxDistanceRunes = 64

// editDistance is the optimal-string-alignment distance (Levenshtein plus
// adjacent transpositions, so "stauts" is one edit from "status") over the
// first maxDistanceRunes runes of a and b. Both the unknown-verb
// suggestions and the fence's near-miss rule use it.
func editDistance(a, b string) int {
	ra, rb := firstRunes(a), firstRunes(b)
	// Three rolling rows: two back (for a transposition), previous, current.
	prev2 := make([]int, len(rb)+1)
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
			if i > 1 && j > 1 && ra[i-1] == rb[j-2] && ra[i-2] == rb[j-1] {
				cur[j] = min(cur[j], prev2[j-2]+1)
			}
		}
		prev2, prev, cur = prev, cur, prev2
	}
	return prev[len(rb)]
}

// withinOneEdit reports editDistance(a, b) <= 1 without the table: equal,
// or one rune substituted, inserted, deleted, or two adjacent runes
// transposed. The fence asks it of every registered name against every
// fenced path, so it allocates nothing and stops at the first difference.
func withinOneEdit(a, b string) bool {
	var bufA, bufB [maxDistanceRunes]rune
	ra, rb := appendFirstRunes(bufA[:0], a), appendFirstRunes(bufB[:0], b)
	if len(ra) > len(rb) {
		ra, rb = rb, ra
	}
	i := 0
	for i < len(ra) && ra[i] == rb[i] {
		i++
	}
	switch len(rb) - len(ra) {
	case 0:
		if i == len(ra) || slices.Equal(ra[i+1:], rb[i+1:]) {
			return true // equal, or one substitution at i
		}
		return i+1 < len(ra) && ra[i] == rb[i+1] && ra[i+1] == rb[i] && slices.Equal(ra[i+2:], rb[i+2:])
	case 1:
		return slices.Equal(ra[i:], rb[i+1:]) // rb has one rune more, at i
	}
	return false
}

// firstRunes returns at most the first maxDistanceRunes runes of s without
// decoding the rest.
func firstRunes(s string) []rune {
	return appendFirstRunes(make([]rune, 0, min(len(s), maxDistanceRunes)), s)
}

// appendFirstRunes appends s's first maxDistanceRunes runes to out.
func appendFirstRunes(out []rune, s string) []rune {
	for _, r := range s {
		if len(out) == maxDistanceRunes {
			break
		}
		out = append(out, r)
	}
	return out
}
