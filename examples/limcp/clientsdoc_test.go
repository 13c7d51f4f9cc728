//go:build unix

package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// docSections returns, for each "## " section of a Markdown file, its
// fenced blocks of the given language, in order.
func docSections(t *testing.T, path, lang string) map[string][]string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string][]string{}
	section := ""
	var cur *strings.Builder
	for _, line := range strings.Split(string(b), "\n") {
		trimmed := strings.TrimSpace(line)
		switch {
		case cur != nil && trimmed == "```":
			out[section] = append(out[section], cur.String())
			cur = nil
		case cur != nil:
			cur.WriteString(line + "\n")
		case strings.HasPrefix(line, "## "):
			section = strings.TrimPrefix(line, "## ")
		case trimmed == "```"+lang:
			cur = &strings.Builder{}
		}
	}
	return out
}

// TestClientsDocLinesRun: the manual lines docs/clients.md gives for each
// client with a command-line program, run as written against the real
// Claude Code, Codex CLI and Gemini CLI (and VS Code's stand-in), leave a stdio server that connects and an HTTP server whose header
// holds the variable, not its value (the quoting is right); the Cursor
// snippet is the JSON install writes.
func TestClientsDocLinesRun(t *testing.T) {
	doc := filepath.Join("..", "..", "docs", "clients.md")
	blocks := docSections(t, doc, "sh")
	for _, tt := range []struct {
		section string
		check   func(e *clientEnv, out string)
	}{
		{"Claude Code", func(e *clientEnv, out string) {
			if want := "limcp: " + limcpBin + " mcp - ✔ Connected"; !strings.Contains(out, want) {
				t.Errorf("claude mcp list says:\n%s\nwant %q", out, want)
			}
			h := readJSONFile(t, filepath.Join(e.user, ".claude.json"), "mcpServers", "limcp-http", "headers")
			if h["Authorization"] != "Bearer ${LIMCP_MCP_TOKEN}" {
				t.Errorf("the HTTP header is stored as %v", h)
			}
		}},
		{"Codex CLI", func(e *clientEnv, out string) {
			// codex mcp get masks the variables' values (LIMCP_HOME=*****).
			if !strings.Contains(out, "command: "+limcpBin) || !strings.Contains(out, "env: LIMCP_HOME=") {
				t.Errorf("codex mcp get says:\n%s", out)
			}
			if cfg, _ := os.ReadFile(filepath.Join(e.user, ".codex", "config.toml")); !strings.Contains(string(cfg), `bearer_token_env_var = "LIMCP_MCP_TOKEN"`) ||
				!strings.Contains(string(cfg), `LIMCP_HOME = "`+filepath.Join(e.user, ".local", "state", "limcp")+`"`) {
				t.Errorf("config.toml:\n%s", cfg)
			}
		}},
		{"Gemini CLI", func(e *clientEnv, out string) {
			if want := "✓ limcp: " + limcpBin + " mcp (stdio) - Connected"; !strings.Contains(out, want) {
				t.Errorf("gemini mcp list says:\n%s\nwant %q", out, want)
			}
			h := readJSONFile(t, filepath.Join(e.user, ".gemini", "settings.json"), "mcpServers", "limcp-http", "headers")
			if h["Authorization"] != "Bearer ${LIMCP_MCP_TOKEN}" {
				t.Errorf("the HTTP header is stored as %v", h)
			}
		}},
		{"VS Code", func(e *clientEnv, out string) {
			path := filepath.Join(e.user, ".config", "Code", "User", "mcp.json")
			s := readJSONFile(t, path, "servers", "limcp")
			if s["command"] != limcpBin || strDict(s["env"])["LIMCP_HOME"] != filepath.Join(e.user, ".local", "state", "limcp") {
				t.Errorf("servers.limcp = %v", s)
			}
			h := readJSONFile(t, path, "servers", "limcp-http", "headers")
			if h["Authorization"] != "Bearer ${input:limcp-http-token}" {
				t.Errorf("the HTTP header is stored as %v", h)
			}
		}},
	} {
		t.Run(tt.section, func(t *testing.T) {
			if len(blocks[tt.section]) != 1 {
				t.Fatalf("%s has %d sh blocks in section %q; want 1", doc, len(blocks[tt.section]), tt.section)
			}
			e := newClientEnv(t)
			if tt.section == "Gemini CLI" {
				// The folder trusted as the section says to, by the file.
				trusted := filepath.Join(e.user, ".gemini", "trustedFolders.json")
				if err := os.MkdirAll(filepath.Dir(trusted), 0o700); err != nil {
					t.Fatal(err)
				}
				b, _ := json.Marshal(map[string]string{e.user: "TRUST_FOLDER"})
				if err := os.WriteFile(trusted, b, 0o600); err != nil {
					t.Fatal(err)
				}
			}
			cmd := exec.Command("bash", "-euo", "pipefail", "-c", blocks[tt.section][0])
			cmd.Env = append(e.environ(), e.extra...)
			for _, kv := range e.extra { // the clients' PATH, then limcp's
				if strings.HasPrefix(kv, "PATH=") {
					cmd.Env = append(cmd.Env, kv+":"+filepath.Dir(limcpBin))
				}
			}
			cmd.Dir = e.user
			out, err := cmd.CombinedOutput()
			if err != nil {
				t.Fatalf("the %s lines do not run as written: %v\n%s", tt.section, err, out)
			}
			tt.check(e, string(out))
		})
	}

	snippets := docSections(t, doc, "json")["Cursor"]
	if len(snippets) != 1 {
		t.Fatalf("the Cursor section has %d json blocks; want 1", len(snippets))
	}
	var cursor struct {
		MCPServers map[string]map[string]any `json:"mcpServers"`
	}
	if err := json.Unmarshal([]byte(snippets[0]), &cursor); err != nil || cursor.MCPServers["limcp"]["command"] == nil ||
		cursor.MCPServers["limcp-http"]["url"] == nil {
		t.Errorf("the Cursor snippet is not the mcp.json install writes: %v\n%s", err, snippets[0])
	}
}
