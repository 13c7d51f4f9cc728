// Package clienttest gives the tests of the install commands their MCP
// clients: the real Claude Code, Codex CLI, Gemini CLI and MCP Inspector
// (real.go, from $VERBSURFACE_CLIENTS_BIN), each in a home of its own, and
// a stand-in (package fakeclient) only for VS Code's code, which cannot be
// installed here.
package clienttest

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sort"
	"testing"
)

// Programs are the names the stand-in answers to.
var Programs = []string{"code"}

// LogEnv names the directory the stand-in logs each invocation to.
const LogEnv = "FAKECLIENT_LOG"

// Build builds the stand-in into dir and links it there under each name
// of Programs.
func Build(dir string) error {
	bin := filepath.Join(dir, "fakeclient")
	build := exec.Command("go", "build", "-o", bin, "github.com/verbsurface/verbsurface/internal/clientconfig/fakeclient")
	build.Env = append(os.Environ(), "CGO_ENABLED=0")
	// In this module, whatever the test's working directory.
	if _, file, _, ok := runtime.Caller(0); ok {
		build.Dir = filepath.Dir(file)
	}
	if out, err := build.CombinedOutput(); err != nil {
		return fmt.Errorf("building fakeclient: %v\n%s", err, out)
	}
	for _, p := range Programs {
		if err := os.Symlink("fakeclient", filepath.Join(dir, p)); err != nil {
			return err
		}
	}
	return nil
}

// Invocation is one logged invocation of a stand-in.
type Invocation struct {
	Program string   `json:"program"`
	Argv    []string `json:"argv"`
	Mode    string   `json:"mode"` // version, add-mcp
	Cwd     string   `json:"cwd"`
	Time    int64    `json:"time"` // Unix nanoseconds
}

// Invocations reads the log directory, oldest first.
func Invocations(dir string) ([]Invocation, error) {
	// [a-z]*: a log being written is .NAME until it is complete.
	files, err := filepath.Glob(filepath.Join(dir, "[a-z]*.json"))
	if err != nil {
		return nil, err
	}
	var out []Invocation
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			return nil, err
		}
		var inv Invocation
		if err := json.Unmarshal(b, &inv); err != nil {
			return nil, fmt.Errorf("%s: %v", f, err)
		}
		out = append(out, inv)
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Time < out[j].Time })
	return out, nil
}

// RealAgentsEnv is the environment variable that lets tests run the real
// claude, codex and gemini programs (and code): only when it is "1". They
// spend model calls with a login, hang or fail slowly without one, and
// read or write the user's real configuration, so the default suite never
// runs them.
const RealAgentsEnv = "VERBSURFACE_TEST_REAL_AGENTS"

// RequireRealAgents skips the test unless $VERBSURFACE_TEST_REAL_AGENTS is
// "1", saying so. Call it first, before anything looks for the programs.
func RequireRealAgents(t testing.TB) {
	t.Helper()
	if os.Getenv(RealAgentsEnv) != "1" {
		t.Skipf("runs the real agent programs (model calls, a login, the user's configuration); set %s=1 to run it", RealAgentsEnv)
	}
}
