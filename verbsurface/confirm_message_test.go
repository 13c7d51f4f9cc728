package verbsurface

import (
	"crypto/sha256"
	"encoding/hex"
	"strconv"
	"strings"
	"testing"
	"unicode"
)

// TestConfirmMessageEscapes: a caller's value in a confirmation can never
// steer the display of a terminal client: each row's character, inside a
// label, is shown escaped (the row's escape), with the value's size and
// SHA-256, and the message holds no character other than graphic ones and
// the layout's own newlines, exactly as many as for a harmless label.
func TestConfirmMessageEscapes(t *testing.T) {
	for _, c := range []struct{ name, char, escaped string }{
		{"NUL", "\x00", `\u0000`},
		{"bell", "\a", `\u0007`},
		{"backspace", "\b", `\b`},
		{"tab", "\t", `\t`},
		{"line feed", "\n", `\n`},
		{"vertical tab", "\v", `\u000b`},
		{"form feed", "\f", `\f`},
		{"carriage return", "\r", `\r`},
		{"escape: cursor up and erase line", "\x1b[1A\x1b[2K", `\u001b[1A\u001b[2K`},
		{"escape: OSC 52 clipboard write", "\x1b]52;c;ZWNobyBoaQ==\a", `\u001b]52;c;ZWNobyBoaQ==\u0007`},
		{"DEL", "\x7f", `\u007f`},
		{"C1 next line", "\u0085", `\u0085`},
		{"C1 control sequence introducer", "\u009b", `\u009b`},
		{"left-to-right embedding U+202A", "\u202a", `\u202a`},
		{"right-to-left embedding U+202B", "\u202b", `\u202b`},
		{"pop directional formatting U+202C", "\u202c", `\u202c`},
		{"left-to-right override U+202D", "\u202d", `\u202d`},
		{"right-to-left override U+202E", "\u202e", `\u202e`},
		{"left-to-right isolate U+2066", "\u2066", `\u2066`},
		{"right-to-left isolate U+2067", "\u2067", `\u2067`},
		{"first strong isolate U+2068", "\u2068", `\u2068`},
		{"pop directional isolate U+2069", "\u2069", `\u2069`},
		{"left-to-right mark U+200E", "\u200e", `\u200e`},
		{"right-to-left mark U+200F", "\u200f", `\u200f`},
		{"arabic letter mark U+061C", "\u061c", `\u061c`},
		{"line separator U+2028", "\u2028", `\u2028`},
		{"paragraph separator U+2029", "\u2029", `\u2029`},
		{"zero width space U+200B", "\u200b", `\u200b`},
		{"byte order mark U+FEFF", "\ufeff", `\ufeff`},
		{"tag character beyond the BMP U+E0041", "\U000e0041", `\udb40\udc41`},
		{"a caller's own backslash escape look-alike", `\u202e`, `\\u202e`},
	} {
		t.Run(c.name, func(t *testing.T) {
			label := "nightly" + c.char + "job.kill all"
			msg := ConfirmMessage([]Confirmation{{Index: 0, Verb: "agent.submit", Rule: "ask-all",
				Args: map[string]any{"label": label, "model": "echo"}}})
			sum := sha256.Sum256([]byte(label))
			want := `  label: "nightly` + c.escaped + `job.kill all" (` + strconv.Itoa(len(label)) + ` bytes, sha256 ` + hex.EncodeToString(sum[:]) + `)`
			if !strings.Contains(msg, "\n"+want+"\n") {
				t.Fatalf("the label is not shown escaped as\n%s\nin:\n%s", want, msg)
			}
			assertDisplaySafe(t, msg, 4)
		})
	}
}

// TestConfirmMessageShowsPlainValues: what needs no escape is shown as it
// is, so a normal dialog stays readable; a value in an array is escaped
// inside its JSON text; a long plain value is cut with its size and hash.
func TestConfirmMessageShowsPlainValues(t *testing.T) {
	long := strings.Repeat("é", PreviewBytes)
	msg := ConfirmMessage([]Confirmation{{Index: 2, Verb: "agent.submit", Rule: "r", Reason: "costs <money> & time",
		Args: map[string]any{
			"label":  `prod "nightly" <x> & 日本語 🙂`,
			"tags":   []any{"a\u202eb", "<c>"},
			"count":  3,
			"prompt": long,
		}}})
	sum := sha256.Sum256([]byte(long))
	for _, want := range []string{
		"op 2: agent.submit (rule r: costs <money> & time)",
		`  label: prod "nightly" <x> & 日本語 🙂` + "\n",
		"  count: 3\n",
		"  prompt: " + strings.Repeat("é", PreviewBytes/2) + "… (" + strconv.Itoa(len(long)) + " bytes, sha256 " + hex.EncodeToString(sum[:]) + ")",
	} {
		if !strings.Contains(msg, want) {
			t.Errorf("want %q in:\n%s", want, msg)
		}
	}
	if want := "\n" + `  tags: ["a\u202eb","<c>"]`; !strings.HasSuffix(msg, want) {
		t.Errorf("want %q at the end of:\n%s", want, msg)
	}
	assertDisplaySafe(t, msg, 6)
}

// assertDisplaySafe fails unless msg holds only graphic characters and
// exactly lines newlines (the layout's).
func assertDisplaySafe(t *testing.T, msg string, lines int) {
	t.Helper()
	for i, r := range msg {
		if r != '\n' && !unicode.IsGraphic(r) {
			t.Fatalf("character %U at byte %d reaches the display raw:\n%q", r, i, msg)
		}
	}
	if n := strings.Count(msg, "\n"); n != lines {
		t.Fatalf("%d newlines, want the layout's %d:\n%s", n, lines, msg)
	}
}
