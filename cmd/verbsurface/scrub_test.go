//go:build unix

package main

import "testing"

// The rules of treeScrubber.words, one row each.
func TestTreeScrubberWords(t *testing.T) {
	s := newTreeScrubber(map[string]string{"/opt/cli/bin/tool": "tool", "/srv/front": "."})
	for _, c := range []struct{ rule, in, want string }{
		{"a known path by its name", `exec /opt/cli/bin/tool: not found`, `exec tool: not found`},
		{"a file under a known directory by its place there", `tree file /srv/front/tree.json is not JSON`, `tree file ./tree.json is not JSON`},
		{"any other absolute path by its file name", `stat /usr/bin/codespell: argument list too long`, `stat codespell: argument list too long`},
		{"a quoted path", `fromcobrabin: "/home/me/x/helm": exit status 1`, `"helm": exit status 1`},
		{"Go's package prefixes dropped", `verbsurface: CLI file tool: gone`, `CLI file tool: gone`},
		{"fork/exec dropped", `fork/exec /usr/bin/codespell: argument list too long`, `codespell: argument list too long`},
		{"a URL left alone", `see https://example.com/a/b`, `see https://example.com/a/b`},
		{"a relative path left alone", `read ./x/y: denied`, `read ./x/y: denied`},
	} {
		if got := s.words(c.in); got != c.want {
			t.Errorf("%s: %q → %q; want %q", c.rule, c.in, got, c.want)
		}
	}
}
