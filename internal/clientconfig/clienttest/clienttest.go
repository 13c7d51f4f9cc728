// Package clienttest builds the stand-ins for the MCP clients' programs
// (package fakeclient) for the tests of the install commands: one binary,
// linked as claude, codex, gemini and code.
package clienttest

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"testing"
	"time"
)

// Programs are the names the stand-in answers to.
var Programs = []string{"claude", "codex", "gemini", "code"}

// LogEnv names the directory the stand-ins log each invocation to.
const LogEnv = "FAKECLIENT_LOG"

// BesideLog is the directory, beside the stand-in's executable, that it
// logs every invocation to when it exists (whatever its environment).
const BesideLog = "fakeclient.log"

// BuildLogging is Build, with the log directory beside the executable
// created: it returns that directory, where every invocation of the
// stand-ins is logged even when the environment they get was filtered.
func BuildLogging(dir string) (string, error) {
	if err := Build(dir); err != nil {
		return "", err
	}
	log := filepath.Join(dir, BesideLog)
	return log, os.Mkdir(log, 0o700)
}

// SetAgentDelay makes the stand-ins built into dir take d before failing
// an agent run as logged out (instead of what the real programs take),
// whatever environment the run gets.
func SetAgentDelay(dir string, d time.Duration) error {
	return os.WriteFile(filepath.Join(dir, "fakeclient.delay"), []byte(d.String()), 0o600)
}

// Build builds the stand-in into dir and links it there under each name
// of Programs.
func Build(dir string) error {
	bin := filepath.Join(dir, "fakeclient")
	build := exec.Command("go", "build", "-o", bin, "github.com/verbsurface/verbsurface/internal/clientconfig/fakeclient")
	build.Env = append(os.Environ(), "CGO_ENABLED=0")
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
	Mode    string   `json:"mode"` // mcp, agent, version, add-mcp
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
