package termsafe

import (
	"bytes"
	"fmt"
	"testing"
)

func TestEscape(t *testing.T) {
	for _, tt := range []struct {
		name, in, line, lines string
	}{
		{"plain text passes", "nightly check — ok ✓", "nightly check — ok ✓", "nightly check — ok ✓"},
		{"an OSC 52 clipboard write is shown, not obeyed", "\x1b]52;c;aGk=\x07", `\x1b]52;c;aGk=\x07`, `\x1b]52;c;aGk=\x07`},
		{"a screen clear", "\x1b[2J\x1b[H", `\x1b[2J\x1b[H`, `\x1b[2J\x1b[H`},
		{"a newline forges a line in a field, not in text", "a\nb\tc", `a\x0ab\x09c`, "a\nb\tc"},
		{"carriage return, backspace and vertical tab", "x\ry\bz\v", `x\x0dy\x08z\x0b`, `x\x0dy\x08z\x0b`},
		{"DEL and a C1 control", "a\x7fb\u0085c\u009b", `a\x7fb\u0085c\u009b`, `a\x7fb\u0085c\u009b`},
		{"a bidi override and isolates", "abc\u202edef\u2066g\u2069", `abc\u202edef\u2066g\u2069`, `abc\u202edef\u2066g\u2069`},
		{"line and paragraph separators", "a\u2028b\u2029c", `a\u2028b\u2029c`, `a\u2028b\u2029c`},
		{"bytes that are not UTF-8", "a\xffb\xc3", `a\xffb\xc3`, `a\xffb\xc3`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if got := Line(tt.in); got != tt.line {
				t.Errorf("Line(%q) = %q; want %q", tt.in, got, tt.line)
			}
			if got := Lines(tt.in); got != tt.lines {
				t.Errorf("Lines(%q) = %q; want %q", tt.in, got, tt.lines)
			}
		})
	}
}

func TestWriter(t *testing.T) {
	var b bytes.Buffer
	w := Writer(&b)
	n, err := fmt.Fprintf(w, "%s  %s\n", "id1", "label\x1b[31mred")
	if err != nil || n != len("id1  label\x1b[31mred\n") {
		t.Fatalf("Fprintf = %d, %v", n, err)
	}
	if b.String() != "id1  label\\x1b[31mred\n" {
		t.Fatalf("wrote %q", b.String())
	}
}
