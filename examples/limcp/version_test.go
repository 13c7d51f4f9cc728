//go:build unix

package main

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestVersionAgrees: `limcp --version`, `limcp version --json` and the MCP
// server's serverInfo.version name the same version, from the build
// information; `limcp completion SHELL` writes a completion script; and
// neither command is a verb of the one tool.
func TestVersionAgrees(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	flag, _, code := e.run("--version")
	if code != 0 || !strings.HasPrefix(flag, "limcp version ") {
		t.Fatalf("limcp --version: exit %d: %q", code, flag)
	}
	want := strings.TrimSpace(strings.TrimPrefix(flag, "limcp version "))
	out, _, code := e.run("version", "--json")
	var res struct {
		OK   bool `json:"ok"`
		Data struct {
			Version string `json:"version"`
		} `json:"data"`
	}
	if code != 0 || json.Unmarshal([]byte(out), &res) != nil || !res.OK || res.Data.Version != want || want == "" {
		t.Fatalf("limcp version --json: exit %d: %s (want version %q)", code, out, want)
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
