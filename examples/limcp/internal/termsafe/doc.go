// Package termsafe makes caller-chosen text safe to print on a person's
// terminal. Labels, team messages, stored commands and a run's output are
// written by whoever called the server, and a terminal obeys what they
// hold: an escape sequence can set the clipboard (OSC 52), clear the
// screen, move the cursor or retitle the window; a bidi override (U+202E)
// or a line separator makes the text read as something else. Everything a
// terminal could act on is shown as a visible escape instead: \x1b,
// \u202e.
//
// [Writer] is for whole human outputs (it keeps newlines and tabs, which
// the output itself writes); [Line] is for one field inside a line, where
// a newline in a label would forge a line of its own. Machine output
// (--json) is never escaped: JSON carries every byte as data.
package termsafe
