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
)

// Programs are the names the stand-in answers to.
var Programs = []string{"claude", "codex", "gemini", "code"}

// LogEnv names the directory the stand-ins log each invocation to.
const LogEnv = "FAKECLIENT_LOG"

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
	files, err := filepath.Glob(filepath.Join(dir, "*.json"))
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
