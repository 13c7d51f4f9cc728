//go:build unix

package main

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/verbsurface/verbsurface/internal/clientconfig/clienttest"
)

// installEnv is a user with the real Claude Code, Codex CLI and Gemini
// CLI (clienttest.RealUser: a home of their own, recorders on PATH, no
// network; the test skips without them, or fails under .ci/run), a
// stand-in only for VS Code's code (internal/clientconfig/fakeclient),
// which cannot be installed here, after them on PATH, and working in
// their home.
type installEnv struct {
	t    *testing.T
	user string
	real *clienttest.RealUser
	env  []string
}

func newInstallEnv(t *testing.T) *installEnv {
	bin := clienttest.RealClientsBin(t)
	e := &installEnv{t: t, real: clienttest.NewRealUser(t, bin, vsEnv(t, t.TempDir()))}
	e.real.AddVSCode("")
	e.user, e.env = e.real.Home, e.real.Env
	return e
}

// run runs prog args... as the user, in their home; a real client's
// program (by name) from the clients' directory.
func (e *installEnv) run(prog string, args ...string) (string, int) {
	e.t.Helper()
	if !filepath.IsAbs(prog) {
		out, errOut, code := e.real.Run(e.env, append([]string{prog}, args...)...)
		return out + errOut, code
	}
	cmd := exec.Command(prog, args...)
	cmd.Env = e.env
	cmd.Dir = e.user
	out, err := cmd.CombinedOutput()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		e.t.Fatal(err)
	}
	return string(out), code
}

// TestInstallConnectsAClient: `verbsurface install CLIENT -c FILE` adds
// `verbsurface serve -c /abs/FILE` under the configuration's name, and
// the client's own list shows it connected (Claude Code, Gemini CLI), or
// what it stored serves the verbs (Codex CLI, Cursor, VS Code).
func TestInstallConnectsAClient(t *testing.T) {
	dir := copyFixture(t)
	config := filepath.Join(dir, "notes.yaml")
	for _, name := range []string{"claude", "codex", "gemini", "cursor", "vscode"} {
		t.Run(name, func(t *testing.T) {
			e := newInstallEnv(t)
			install := []string{"install", name, "-c", config}
			if name == "gemini" { // Gemini CLI runs no server in a folder it does not trust
				install = append(install, "--trust-folder", e.user)
			}
			out, code := e.run(vsBin, install...)
			if code != 0 || !strings.Contains(out, "check it with") {
				t.Fatalf("verbsurface install %s: exit %d\n%s", name, code, out)
			}
			var command string
			var args []string
			switch name {
			case "claude":
				list, _ := e.run("claude", "mcp", "list")
				if want := "notes: " + vsBin + " serve -c " + config + " - ✔ Connected"; !strings.Contains(list, want) {
					t.Fatalf("claude mcp list:\n%s\nwant %q", list, want)
				}
				return
			case "gemini":
				list, _ := e.run("gemini", "mcp", "list")
				if want := "✓ notes: " + vsBin + " serve -c " + config + " (stdio) - Connected"; !strings.Contains(list, want) {
					t.Fatalf("gemini mcp list:\n%s\nwant %q", list, want)
				}
				return
			case "codex":
				got, _, _ := e.real.Run(e.env, "codex", "mcp", "get", "notes", "--json") // JSON on stdout
				var v struct {
					Transport struct {
						Command string   `json:"command"`
						Args    []string `json:"args"`
					} `json:"transport"`
				}
				if err := json.Unmarshal([]byte(got), &v); err != nil {
					t.Fatalf("%v\n%s", err, got)
				}
				command, args = v.Transport.Command, v.Transport.Args
			case "cursor", "vscode":
				path, key := filepath.Join(e.user, ".cursor", "mcp.json"), "mcpServers"
				if name == "vscode" {
					path, key = filepath.Join(e.user, ".config", "Code", "User", "mcp.json"), "servers"
				}
				b, err := os.ReadFile(path)
				if err != nil {
					t.Fatal(err)
				}
				var doc map[string]map[string]struct {
					Command string   `json:"command"`
					Args    []string `json:"args"`
				}
				if err := json.Unmarshal(b, &doc); err != nil {
					t.Fatal(err)
				}
				command, args = doc[key]["notes"].Command, doc[key]["notes"].Args
			}
			cmd := exec.Command(command, args...)
			cmd.Env = e.env
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			cs, err := mcp.NewClient(&mcp.Implementation{Name: "installed", Version: "v0"}, nil).
				Connect(ctx, &mcp.CommandTransport{Command: cmd, TerminateDuration: 2 * time.Second}, nil)
			if err != nil {
				t.Fatalf("starting what %s stored (%s %q): %v", name, command, args, err)
			}
			defer cs.Close()
			c := &client{t: t, cs: cs}
			if cat := c.call(`{"help":true}`); !strings.Contains(mustMarshal(t, cat), "note.add(") {
				t.Fatalf("catalog through the installed server: %v", cat)
			}
		})
	}
}

func mustMarshal(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestInstallHTTPAndClash: --http points the client at a running server
// with the token read from $VERBSURFACE_TOKEN (connected with it, not
// without it, never stored); a second install under the same name is
// refused with what to do; --print runs nothing.
func TestInstallHTTPAndClash(t *testing.T) {
	dir := copyFixture(t)
	config := filepath.Join(dir, "notes.yaml")
	e := newInstallEnv(t)
	srv := serveHTTPBin(t, vsEnv(t, t.TempDir(), tokenEnv+"="+httpToken), "-c", config, "--http", "127.0.0.1:0")
	out, code := e.run(vsBin, "install", "claude", "-c", config, "--http", srv.url)
	if code != 0 || !strings.Contains(out, "VERBSURFACE_TOKEN") {
		t.Fatalf("install --http: exit %d\n%s", code, out)
	}
	e.env = append(e.env, tokenEnv+"="+httpToken)
	if list, _ := e.run("claude", "mcp", "list"); !strings.Contains(list, "notes: "+srv.url+" (HTTP) - ✔ Connected") {
		t.Fatalf("claude mcp list with the token:\n%s", list)
	}
	e.env = append(e.env, tokenEnv+"=")
	if list, _ := e.run("claude", "mcp", "list"); !strings.Contains(list, "notes: "+srv.url+" (HTTP) - ✘ Failed to connect") {
		t.Fatalf("claude mcp list without the token:\n%s", list)
	}
	if b, _ := os.ReadFile(filepath.Join(e.user, ".claude.json")); strings.Contains(string(b), httpToken) {
		t.Fatalf("the token is stored in clear:\n%s", b)
	}

	out, code = e.run(vsBin, "install", "claude", "-c", config)
	if code == 0 || !strings.Contains(out, `named "notes"`) || !strings.Contains(out, "--force") {
		t.Fatalf("a second install: exit %d\n%s", code, out)
	}
	before := e.real.Invocations()
	if out, code := e.run(vsBin, "install", "gemini", "-c", config, "--print"); code != 0 || !strings.Contains(out, "gemini mcp add --scope user notes "+vsBin+" -- serve -c "+config) {
		t.Fatalf("--print: exit %d\n%s", code, out)
	}
	if after := e.real.Invocations(); len(after) != len(before) {
		t.Fatalf("--print ran %v", after[len(before):])
	}
}
