//go:build unix

package clientconfig

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestInstall: each client gets the server through its own program where
// it has one, with exactly the documented argv (recorded on the way to
// the real Claude Code, Codex CLI and Gemini CLI, which parse it; VS
// Code's through its stand-in), or through its documented file;
// what ends up stored is the server, user-wide, with the token only as a
// reference.
func TestInstall(t *testing.T) {
	tests := []struct {
		rule        string
		client      string
		server      *Server
		fakes       bool
		invocations []string
		stored      func(f *fixture) any
		want        string // the stored entry, as JSON
	}{
		{"claude: user scope, the environment, then the command after --", "claude", stdioServer, true,
			[]string{"claude mcp get limcp", "claude mcp add limcp --scope user --env LIMCP_HOME=/home/u/state -- /opt/bin/limcp mcp"},
			func(f *fixture) any { return f.jsonAt(filepath.Join(f.home, ".claude.json"), "mcpServers", "limcp") },
			`{"type":"stdio","command":"/opt/bin/limcp","args":["mcp"],"env":{"LIMCP_HOME":"/home/u/state"}}`},
		{"claude: HTTP with the header naming the variable", "claude", httpServer, true,
			[]string{"claude mcp get limcp", "claude mcp add limcp --scope user --transport http http://127.0.0.1:8765/mcp --header Authorization: Bearer ${LIMCP_MCP_TOKEN}"},
			func(f *fixture) any { return f.jsonAt(filepath.Join(f.home, ".claude.json"), "mcpServers", "limcp") },
			`{"type":"http","url":"http://127.0.0.1:8765/mcp","headers":{"Authorization":"Bearer ${LIMCP_MCP_TOKEN}"}}`},
		{"codex: --env, then the command after --", "codex", stdioServer, true,
			[]string{"codex mcp get limcp --json", "codex mcp add limcp --env LIMCP_HOME=/home/u/state -- /opt/bin/limcp mcp"},
			func(f *fixture) any {
				return withoutEmpty(decode(f.t, f.client("codex", "mcp", "get", "limcp", "--json")).(map[string]any)["transport"])
			},
			`{"type":"stdio","command":"/opt/bin/limcp","args":["mcp"],"env":{"LIMCP_HOME":"/home/u/state"}}`},
		{"codex: HTTP with --bearer-token-env-var", "codex", httpServer, true,
			[]string{"codex mcp get limcp --json", "codex mcp add limcp --url http://127.0.0.1:8765/mcp --bearer-token-env-var LIMCP_MCP_TOKEN"},
			func(f *fixture) any {
				return withoutEmpty(decode(f.t, f.client("codex", "mcp", "get", "limcp", "--json")).(map[string]any)["transport"])
			},
			`{"type":"streamable_http","url":"http://127.0.0.1:8765/mcp","bearer_token_env_var":"LIMCP_MCP_TOKEN"}`},
		{"gemini: user scope, server arguments after --", "gemini", stdioServer, true,
			[]string{"gemini mcp add --scope user --env LIMCP_HOME=/home/u/state limcp /opt/bin/limcp -- mcp"},
			func(f *fixture) any {
				return f.jsonAt(filepath.Join(f.home, ".gemini", "settings.json"), "mcpServers", "limcp")
			},
			`{"command":"/opt/bin/limcp","args":["mcp"],"env":{"LIMCP_HOME":"/home/u/state"}}`},
		{"gemini: HTTP with the header naming the variable", "gemini", httpServer, true,
			[]string{"gemini mcp add --scope user --transport http --header Authorization: Bearer ${LIMCP_MCP_TOKEN} limcp http://127.0.0.1:8765/mcp"},
			func(f *fixture) any {
				return f.jsonAt(filepath.Join(f.home, ".gemini", "settings.json"), "mcpServers", "limcp")
			},
			`{"type":"http","url":"http://127.0.0.1:8765/mcp","headers":{"Authorization":"Bearer ${LIMCP_MCP_TOKEN}"}}`},
		{"cursor: ~/.cursor/mcp.json", "cursor", stdioServer, true, nil,
			func(f *fixture) any {
				return f.jsonAt(filepath.Join(f.home, ".cursor", "mcp.json"), "mcpServers", "limcp")
			},
			`{"command":"/opt/bin/limcp","args":["mcp"],"env":{"LIMCP_HOME":"/home/u/state"}}`},
		{"cursor: HTTP with ${env:VAR}", "cursor", httpServer, true, nil,
			func(f *fixture) any {
				return f.jsonAt(filepath.Join(f.home, ".cursor", "mcp.json"), "mcpServers", "limcp")
			},
			`{"url":"http://127.0.0.1:8765/mcp","headers":{"Authorization":"Bearer ${env:LIMCP_MCP_TOKEN}"}}`},
		{"vscode: code --add-mcp where code is on PATH", "vscode", stdioServer, true,
			[]string{`code --add-mcp {"name":"limcp","type":"stdio","command":"/opt/bin/limcp","args":["mcp"],"env":{"LIMCP_HOME":"/home/u/state"}}`},
			func(f *fixture) any {
				return f.jsonAt(filepath.Join(f.home, ".config", "Code", "User", "mcp.json"), "servers", "limcp")
			},
			`{"type":"stdio","command":"/opt/bin/limcp","args":["mcp"],"env":{"LIMCP_HOME":"/home/u/state"}}`},
		{"vscode: the user profile's mcp.json where it is not", "vscode", stdioServer, false, nil,
			func(f *fixture) any {
				return f.jsonAt(filepath.Join(f.home, ".config", "Code", "User", "mcp.json"), "servers", "limcp")
			},
			`{"type":"stdio","command":"/opt/bin/limcp","args":["mcp"],"env":{"LIMCP_HOME":"/home/u/state"}}`},
		{"vscode: HTTP with an input variable VS Code keeps secret", "vscode", httpServer, true,
			[]string{`code --add-mcp {"name":"limcp","type":"http","url":"http://127.0.0.1:8765/mcp","headers":{"Authorization":"Bearer ${input:limcp-token}"},"inputs":[{"type":"promptString","id":"limcp-token","description":"Bearer token of the MCP server limcp (the first line of /home/u/state/mcp-token)","password":true}]}`},
			func(f *fixture) any { return f.jsonAt(filepath.Join(f.home, ".config", "Code", "User", "mcp.json")) },
			`{"servers":{"limcp":{"type":"http","url":"http://127.0.0.1:8765/mcp","headers":{"Authorization":"Bearer ${input:limcp-token}"}}},` +
				`"inputs":[{"type":"promptString","id":"limcp-token","description":"Bearer token of the MCP server limcp (the first line of /home/u/state/mcp-token)","password":true}]}`},
	}
	for _, tt := range tests {
		t.Run(tt.rule, func(t *testing.T) {
			f := newFixture(t, tt.fakes)
			if tt.fakes {
				f = newClientFixture(t, tt.client)
			}
			lines, err := f.install(tt.client, tt.server, false)
			if err != nil {
				t.Fatalf("Install: %v", err)
			}
			if d := cmp.Diff(tt.invocations, f.invocations()); d != "" {
				t.Errorf("the client's program ran (-want +got):\n%s", d)
			}
			if d := cmp.Diff(decode(t, tt.want), tt.stored(f)); d != "" {
				t.Errorf("stored (-want +got):\n%s", d)
			}
			// One line per step, then what the client stores for a
			// token, then how to check: each one line, all on Out.
			want := 2
			if tt.server.HTTP() {
				want = 3
			}
			if len(lines) != want || f.out.String() != strings.Join(lines, "\n")+"\n" {
				t.Errorf("lines %q (Out %q); want %d", lines, f.out.String(), want)
			}
			for _, l := range lines {
				if strings.Contains(l, "\n") {
					t.Errorf("line %q is more than one line", l)
				}
			}
		})
	}
}

// TestInstallRefusesAClash: a second install under the same name is
// refused, saying what to do, and changes nothing; with Force it
// replaces the server, and only that one.
func TestInstallRefusesAClash(t *testing.T) {
	other := &Server{Name: "limcp", Command: "/usr/local/bin/limcp", Args: []string{"mcp", "--read-only"}}
	for _, client := range []string{"claude", "codex", "gemini", "cursor", "vscode"} {
		t.Run(client, func(t *testing.T) {
			f := newClientFixture(t, client)
			if _, err := f.install(client, stdioServer, false); err != nil {
				t.Fatal(err)
			}
			before := f.invocations()
			snapshot := f.servers(client)
			_, err := f.install(client, other, false)
			var clash *ClashError
			if !errors.As(err, &clash) || !clash.Replaceable || !strings.Contains(err.Error(), "--force") || !strings.Contains(err.Error(), "--name") {
				t.Fatalf("second install: %v; want a clash naming --force and --name", err)
			}
			for _, inv := range f.invocations()[len(before):] {
				if !strings.Contains(inv, " get ") {
					t.Errorf("a refused install ran %q", inv)
				}
			}
			if d := cmp.Diff(snapshot, f.servers(client)); d != "" {
				t.Errorf("a refused install changed files (-before +after):\n%s", d)
			}

			lines, err := f.install(client, other, true)
			if err != nil {
				t.Fatalf("with Force: %v", err)
			}
			if !strings.Contains(strings.Join(lines, "\n"), "/usr/local/bin/limcp") && client != "cursor" && client != "vscode" {
				t.Errorf("lines %q do not show the new command", lines)
			}
			if got := f.servers(client); !strings.Contains(strings.Join(values(got), ""), "--read-only") || strings.Contains(strings.Join(values(got), ""), "/opt/bin/limcp") {
				t.Errorf("after Force the files hold:\n%v", got)
			}
		})
	}
}

// servers is what the client keeps of its MCP servers: the file it keeps
// them in, by path, with its content; of ~/.claude.json, which also holds
// Claude Code's own bookkeeping (an id, first start, backups and logs
// written beside it by every mcp get), only the servers, user-wide and
// per directory.
func (f *fixture) servers(client string) map[string]string {
	f.t.Helper()
	file := map[string]string{
		"codex":  filepath.Join(".codex", "config.toml"),
		"gemini": filepath.Join(".gemini", "settings.json"),
		"cursor": filepath.Join(".cursor", "mcp.json"),
		"vscode": filepath.Join(".config", "Code", "User", "mcp.json"),
	}[client]
	if client == "claude" {
		projects, _ := f.jsonAt(filepath.Join(f.home, ".claude.json"), "projects").(map[string]any)
		kept := map[string]any{"mcpServers": f.jsonAt(filepath.Join(f.home, ".claude.json"), "mcpServers")}
		for dir, p := range projects {
			if m, _ := p.(map[string]any); m["mcpServers"] != nil && len(m["mcpServers"].(map[string]any)) > 0 {
				kept[dir] = m["mcpServers"]
			}
		}
		b, err := json.Marshal(kept)
		if err != nil {
			f.t.Fatal(err)
		}
		return map[string]string{"/.claude.json": string(b)}
	}
	b, err := os.ReadFile(filepath.Join(f.home, file))
	if err != nil {
		f.t.Fatal(err)
	}
	return map[string]string{"/" + file: string(b)}
}

// files is every file under the home, by path, with its content.
func (f *fixture) files() map[string]string {
	f.t.Helper()
	out := map[string]string{}
	err := filepath.Walk(f.home, func(p string, fi os.FileInfo, err error) error {
		if err != nil || fi.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		out[strings.TrimPrefix(p, f.home)] = string(b)
		return err
	})
	if err != nil {
		f.t.Fatal(err)
	}
	return out
}

func values(m map[string]string) []string {
	var out []string
	for _, v := range m {
		out = append(out, v)
	}
	return out
}

// TestInstallClaudeShadowed: a server of the name in Claude Code's local
// scope (this directory) takes precedence over user scope, so replacing
// the user one would change nothing the person sees: refused even with
// Force.
func TestInstallClaudeShadowed(t *testing.T) {
	f := newRealFixture(t)
	f.client("claude", "mcp", "add", "limcp", "--", "/bin/true")
	_, err := f.install("claude", stdioServer, true)
	var clash *ClashError
	if !errors.As(err, &clash) || clash.Replaceable || !strings.Contains(clash.Scope, "Local") || !strings.Contains(err.Error(), "takes precedence") {
		t.Fatalf("Install over a local-scope server: %v", err)
	}
}

// TestInstallNeedsTheProgram: a client whose program is missing is an
// error naming it and --print, and nothing is written.
func TestInstallNeedsTheProgram(t *testing.T) {
	for _, client := range []string{"claude", "codex", "gemini"} {
		f := newFixture(t, false)
		_, err := f.install(client, stdioServer, false)
		if err == nil || !strings.Contains(err.Error(), client+" (") || !strings.Contains(err.Error(), "not on PATH") || !strings.Contains(err.Error(), "--print") {
			t.Errorf("%s not on PATH: %v", client, err)
		}
		if files := f.files(); len(files) != 0 {
			t.Errorf("%s: files written: %v", client, files)
		}
	}
}

// TestInstallGeminiEnvValues: gemini mcp add keeps a --env value only up
// to its first "=" and drops an empty one; such a value is refused before
// anything runs, instead of being stored cut.
func TestInstallGeminiEnvValues(t *testing.T) {
	for _, v := range []string{"/home/u/a=b", ""} {
		f := newRealFixture(t)
		s := &Server{Name: "limcp", Command: "/opt/bin/limcp", Args: []string{"mcp"}, Env: map[string]string{"LIMCP_HOME": v}}
		if _, err := f.install("gemini", s, false); err == nil || !strings.Contains(err.Error(), "LIMCP_HOME") {
			t.Errorf("LIMCP_HOME=%q: %v; want a refusal naming it", v, err)
		}
		if inv := f.invocations(); len(inv) != 0 {
			t.Errorf("ran %q", inv)
		}
	}
}

// TestServerValidation: what no client could be given is refused with
// the reason.
func TestServerValidation(t *testing.T) {
	for _, tt := range []struct {
		rule string
		s    *Server
		says string
	}{
		{"a name a client refuses", &Server{Name: "my server", Command: "/bin/x"}, "letters, digits"},
		{"a relative command", &Server{Name: "x", Command: "limcp"}, "absolute"},
		{"both a command and a URL", &Server{Name: "x", Command: "/bin/x", URL: "http://h/mcp"}, "one or the other"},
		{"neither", &Server{Name: "x"}, "neither"},
		{"not an HTTP URL", &Server{Name: "x", URL: "ftp://h/mcp"}, "http://"},
		{"credentials in the URL", &Server{Name: "x", URL: "http://u:p@h/mcp", TokenEnv: "T"}, "credentials"},
		{"a bad variable name", &Server{Name: "x", URL: "http://h/mcp", TokenEnv: "MY-TOKEN"}, "variable"},
		{"a line break in an argument", &Server{Name: "x", Command: "/bin/x", Args: []string{"a\nb"}}, "line break"},
	} {
		t.Run(tt.rule, func(t *testing.T) {
			if err := tt.s.validate(); err == nil || !strings.Contains(err.Error(), tt.says) {
				t.Errorf("validate = %v; want it to say %q", err, tt.says)
			}
		})
	}
}

// withoutEmpty drops the keys of a JSON object whose value is null or an
// empty list: Codex's `mcp get --json` names every field of a transport,
// set or not.
func withoutEmpty(v any) any {
	m, _ := v.(map[string]any)
	for k, x := range m {
		if l, isList := x.([]any); x == nil || (isList && len(l) == 0) {
			delete(m, k)
		}
	}
	return m
}
