// Package editdist measures how far apart two names are, for "did you
// mean" suggestions and near-miss rules: the optimal-string-alignment
// distance (Levenshtein plus adjacent transpositions), bounded so that a
// hostile megabyte-long name costs neither quadratic time nor a rune
// slice per candidate.
package editdist

import "slices"

// MaxRunes bounds the runes Distance compares: a hostile
// megabyte-long name must cost neither quadratic time nor a rune slice per
// candidate.
const MaxRunes = 64

// Distance is the optimal-string-alignment distance (Levenshtein plus
// adjacent transpositions, so "stauts" is one edit from "status") over the
// first MaxRunes runes of a and b. Both the unknown-verb
// suggestions and the fence's near-miss rule use it.
func Distance(a, b string) int {
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

// WithinOne reports Distance(a, b) <= 1 without the table: equal,
// or one rune substituted, inserted, deleted, or two adjacent runes
// transposed. The fence asks it of every registered name against every
// fenced path, so it allocates nothing and stops at the first difference.
func WithinOne(a, b string) bool {
	var bufA, bufB [MaxRunes]rune
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

// firstRunes returns at most the first MaxRunes runes of s without
// decoding the rest.
func firstRunes(s string) []rune {
	return appendFirstRunes(make([]rune, 0, min(len(s), MaxRunes)), s)
}

// appendFirstRunes appends s's first MaxRunes runes to out.
func appendFirstRunes(out []rune, s string) []rune {
	for _, r := range s {
		if len(out) == MaxRunes {
			break
		}
		out = append(out, r)
	}
	return out
}
