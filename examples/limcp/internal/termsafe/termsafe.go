package termsafe

import (
	"fmt"
	"io"
	"strings"
	"unicode/utf8"
)

// unsafe reports whether a terminal could act on r: C0 and C1 controls,
// DEL, the bidi embeddings, overrides, isolates and marks, and the line
// and paragraph separators.
func unsafe(r rune) bool {
	switch {
	case r < 0x20, r == 0x7f, r >= 0x80 && r <= 0x9f:
		return true
	case r == 0x061c, r == 0x200e, r == 0x200f, r >= 0x202a && r <= 0x202e, r >= 0x2066 && r <= 0x2069:
		return true
	case r == 0x2028, r == 0x2029:
		return true
	}
	return false
}

// escape appends s to b with every unsafe rune, and every byte that is not
// UTF-8, written as a visible escape; newlines and tabs pass when keep.
func escape(b *strings.Builder, s string, keep bool) {
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			fmt.Fprintf(b, `\x%02x`, s[i])
		case keep && (r == '\n' || r == '\t'):
			b.WriteRune(r)
		case unsafe(r) && r < 0x80:
			fmt.Fprintf(b, `\x%02x`, r)
		case unsafe(r):
			fmt.Fprintf(b, `\u%04x`, r)
		default:
			b.WriteString(s[i : i+size])
		}
		i += size
	}
}

// needs reports whether s holds anything escape would change.
func needs(s string, keep bool) bool {
	for _, r := range s {
		if r == utf8.RuneError || unsafe(r) && !(keep && (r == '\n' || r == '\t')) {
			return true
		}
	}
	return false
}

// Line returns s safe to print as one field of a line: every control
// character, newlines and tabs included, is escaped.
func Line(s string) string {
	if !needs(s, false) {
		return s
	}
	var b strings.Builder
	escape(&b, s, false)
	return b.String()
}

// Lines returns s safe to print as text of its own: like Line, but
// newlines and tabs pass.
func Lines(s string) string {
	if !needs(s, true) {
		return s
	}
	var b strings.Builder
	escape(&b, s, true)
	return b.String()
}

// Writer returns a writer that writes to w what it is given with every
// control character but newline and tab escaped ([Lines]). Each Write is
// escaped on its own: a UTF-8 sequence split across two writes is shown
// as bytes (fmt and io.WriteString write whole strings, so this does not
// happen to text). It reports len(p) written when w took everything.
func Writer(w io.Writer) io.Writer { return &writer{w: w} }

type writer struct{ w io.Writer }

func (x *writer) Write(p []byte) (int, error) {
	if _, err := io.WriteString(x.w, Lines(string(p))); err != nil {
		return 0, err
	}
	return len(p), nil
}
