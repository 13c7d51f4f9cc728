//go:build unix

package clientconfig

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/verbsurface/verbsurface/internal/clientconfig/clienttest"
)

// fakeBin holds the stand-ins for claude, codex, gemini and code.
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

// fixture is a user: a fresh home, the stand-ins first on PATH (or not),
// and the directory they log to.
type fixture struct {
	t    *testing.T
	home string
	log  string
	env  []string
	out  bytes.Buffer
}

func newFixture(t *testing.T, withFakes bool) *fixture {
	f := &fixture{t: t, home: t.TempDir(), log: t.TempDir()}
	path := "/usr/bin:/bin"
	if withFakes {
		path = fakeBin + ":" + path
	}
	f.env = []string{"HOME=" + f.home, "PATH=" + path, clienttest.LogEnv + "=" + f.log}
	return f
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

// invocations are the argv of every stand-in run so far ("PROGRAM ARGS").
func (f *fixture) invocations() []string {
	f.t.Helper()
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

// fake runs a stand-in as the user would, in the fixture's environment.
func (f *fixture) fake(argv ...string) string {
	f.t.Helper()
	cmd := exec.Command(filepath.Join(fakeBin, argv[0]), argv[1:]...)
	cmd.Env = append(os.Environ(), f.env...)
	out, err := cmd.CombinedOutput()
	if err != nil {
		f.t.Fatalf("%v: %v\n%s", argv, err, out)
	}
	return string(out)
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
