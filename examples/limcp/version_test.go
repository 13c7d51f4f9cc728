//go:build unix

package main

import (
	"encoding/json"
	"regexp"
	"strings"
	"testing"
)

// TestVersionAgrees: `limcp --version` and `limcp version` print the same
// line, "limcp version V (GO, OS/ARCH)"; `limcp version --json` and the MCP
// server's serverInfo.version name the same V, from the build
// information; `limcp completion SHELL` writes a completion script; and
// neither command is a verb of the one tool.
func TestVersionAgrees(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	flag, _, code := e.run("--version")
	line := regexp.MustCompile(`^limcp version (\S+) \((go\S+), ([a-z0-9]+/[a-z0-9]+)\)\n$`)
	m := line.FindStringSubmatch(flag)
	if code != 0 || m == nil {
		t.Fatalf("limcp --version: exit %d: %q; want %s", code, flag, line)
	}
	if cmd, _, code := e.run("version"); code != 0 || cmd != flag {
		t.Fatalf("limcp version: exit %d: %q; want what --version prints, %q", code, cmd, flag)
	}
	want := m[1]
	out, _, code := e.run("version", "--json")
	var res struct {
		OK   bool `json:"ok"`
		Data struct {
			Version  string `json:"version"`
			Go       string `json:"go"`
			Platform string `json:"platform"`
		} `json:"data"`
	}
	if code != 0 || json.Unmarshal([]byte(out), &res) != nil || !res.OK || res.Data.Version != want || res.Data.Go != m[2] || res.Data.Platform != m[3] {
		t.Fatalf("limcp version --json: exit %d: %s (want version %q, %s, %s)", code, out, want, m[2], m[3])
	}
	c := e.dialStdio(nil, nil)
	if got := c.cs.InitializeResult().ServerInfo.Version; got != want {
		t.Errorf("serverInfo.version %q, want %q", got, want)
	}
	for _, shell := range []string{"bash", "zsh", "fish"} {
		script, stderr, code := e.run("completion", shell)
		if code != 0 || !strings.Contains(script, "limcp") {
			t.Errorf("limcp completion %s: exit %d\n%s", shell, code, stderr)
		}
	}
	catalog := c.call(t.Context(), map[string]any{"help": true})
	raw := string(catalog.raw)
	for _, name := range []string{"version", "completion"} {
		if strings.Contains(raw, `"`+name+`(`) || strings.Contains(raw, name+".") {
			t.Errorf("the catalog offers %s: %s", name, raw)
		}
	}
}
