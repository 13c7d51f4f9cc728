//go:build unix

package clientconfig

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestInstall: each client gets the server through its own program where
// it has one, with exactly the documented argv (checked by a stand-in
// that parses it as the real one does), or through its documented file;
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
				return decode(f.t, f.fake("codex", "mcp", "get", "limcp", "--json")).(map[string]any)["transport"]
			},
			`{"type":"stdio","command":"/opt/bin/limcp","args":["mcp"],"env":{"LIMCP_HOME":"/home/u/state"}}`},
		{"codex: HTTP with --bearer-token-env-var", "codex", httpServer, true,
			[]string{"codex mcp get limcp --json", "codex mcp add limcp --url http://127.0.0.1:8765/mcp --bearer-token-env-var LIMCP_MCP_TOKEN"},
			func(f *fixture) any {
				return decode(f.t, f.fake("codex", "mcp", "get", "limcp", "--json")).(map[string]any)["transport"]
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
			f := newFixture(t, true)
			if _, err := f.install(client, stdioServer, false); err != nil {
				t.Fatal(err)
			}
			before := f.invocations()
			snapshot := f.files()
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
			if d := cmp.Diff(snapshot, f.files()); d != "" {
				t.Errorf("a refused install changed files (-before +after):\n%s", d)
			}

			lines, err := f.install(client, other, true)
			if err != nil {
				t.Fatalf("with Force: %v", err)
			}
			if !strings.Contains(strings.Join(lines, "\n"), "/usr/local/bin/limcp") && client != "cursor" && client != "vscode" {
				t.Errorf("lines %q do not show the new command", lines)
			}
			if got := f.files(); !strings.Contains(strings.Join(values(got), ""), "--read-only") || strings.Contains(strings.Join(values(got), ""), "/opt/bin/limcp") {
				t.Errorf("after Force the files hold:\n%v", got)
			}
		})
	}
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
	f := newFixture(t, true)
	f.fake("claude", "mcp", "add", "limcp", "--", "/bin/true")
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
		f := newFixture(t, true)
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
