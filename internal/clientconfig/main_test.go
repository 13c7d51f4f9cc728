//go:build unix

package clientconfig

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/verbsurface/verbsurface/internal/clientconfig/clienttest"
)

// fakeBin holds the stand-in for VS Code's code, the one client program
// that cannot be installed here.
var fakeBin string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "clientconfig-fakes-")
	if err == nil {
		err = clienttest.Build(dir)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	fakeBin = dir
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// fixture is a user: a fresh home, the clients' programs on PATH (or
// not), and what they ran. With the programs, claude, codex and gemini
// are the real ones (clienttest.RealUser: recorded, then run from
// $VERBSURFACE_CLIENTS_BIN; the test skips without them), and code is
// VS Code's stand-in.
type fixture struct {
	t    *testing.T
	home string
	log  string
	real *clienttest.RealUser
	env  []string
	out  bytes.Buffer
}

// newFixture is a user with no client program on PATH, or (programs)
// with VS Code's stand-in only.
func newFixture(t *testing.T, programs bool) *fixture {
	f := &fixture{t: t, home: t.TempDir(), log: t.TempDir()}
	path := "/usr/bin:/bin"
	if programs {
		path = fakeBin + ":" + path
	}
	f.env = []string{"HOME=" + f.home, "PATH=" + path, clienttest.LogEnv + "=" + f.log}
	return f
}

// newRealFixture is a user with the real Claude Code, Codex CLI and Gemini
// CLI on PATH, and VS Code's stand-in after them, working in their home.
func newRealFixture(t *testing.T) *fixture {
	u := clienttest.NewRealUser(t, clienttest.RealClientsBin(t), nil)
	u.AddVSCode(fakeBin)
	f := &fixture{t: t, home: u.Home, log: t.TempDir(), real: u, env: u.Env}
	// Install runs the programs in this process's directory, and Claude
	// Code keys its local scope by it: the user's home, as for Run.
	t.Chdir(u.Home)
	return f
}

// newClientFixture is newFixture(t, true) for cursor and vscode, and
// newRealFixture for the clients that are installed here.
func newClientFixture(t *testing.T, client string) *fixture {
	switch client {
	case "claude", "codex", "gemini":
		return newRealFixture(t)
	}
	return newFixture(t, true)
}

func (f *fixture) opts(force bool) *Options {
	return &Options{Environ: f.env, GOOS: "linux", Force: force, Out: &f.out}
}

func (f *fixture) install(client string, s *Server, force bool) ([]string, error) {
	f.t.Helper()
	c, err := Lookup(client)
	if err != nil {
		f.t.Fatal(err)
	}
	return c.Install(f.t.Context(), s, f.opts(force))
}

// invocations are the argv of every client program run through PATH so
// far ("PROGRAM ARGS").
func (f *fixture) invocations() []string {
	f.t.Helper()
	if f.real != nil {
		return f.real.Invocations()
	}
	invs, err := clienttest.Invocations(f.log)
	if err != nil {
		f.t.Fatal(err)
	}
	var out []string
	for _, inv := range invs {
		out = append(out, inv.Program+" "+strings.Join(inv.Argv, " "))
	}
	return out
}

// client runs a real client's program as the user would, in the
// fixture's home and environment, and wants it to succeed.
func (f *fixture) client(argv ...string) string {
	f.t.Helper()
	out, errOut, code := f.real.Run(nil, argv...)
	if code != 0 {
		f.t.Fatalf("%v: exit %d\n%s%s", argv, code, out, errOut)
	}
	return out
}

// jsonAt reads a JSON file and returns the value at the path of keys.
func (f *fixture) jsonAt(file string, keys ...string) any {
	f.t.Helper()
	b, err := os.ReadFile(file)
	if err != nil {
		f.t.Fatal(err)
	}
	var v any
	if err := json.Unmarshal(b, &v); err != nil {
		f.t.Fatalf("%s: %v\n%s", file, err, b)
	}
	for _, k := range keys {
		m, _ := v.(map[string]any)
		v = m[k]
	}
	return v
}

func decode(t *testing.T, s string) any {
	t.Helper()
	var v any
	if err := json.Unmarshal([]byte(s), &v); err != nil {
		t.Fatalf("%v: %s", err, s)
	}
	return v
}

var (
	stdioServer = &Server{Name: "limcp", Command: "/opt/bin/limcp", Args: []string{"mcp"}, Env: map[string]string{"LIMCP_HOME": "/home/u/state"}}
	httpServer  = &Server{Name: "limcp", URL: "http://127.0.0.1:8765/mcp", TokenEnv: "LIMCP_MCP_TOKEN", TokenHint: "the first line of /home/u/state/mcp-token"}
)
