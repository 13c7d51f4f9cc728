// Command fakeclient stands in for VS Code's command-line program, the one
// MCP client Install drives that cannot be installed here (VS Code is a
// desktop application, not an npm package): installed on PATH as a
// symlink named code, it does what `code --add-mcp JSON` is documented to
// do (VS Code 1.107, src/vs/platform/mcp/common/mcpManagementCli.ts):
// {"name", ..., "inputs"} into the user profile's mcp.json ("servers",
// "inputs"). Claude Code, Codex CLI and Gemini CLI are not imitated: their
// tests run the real programs (clienttest.RealClientsBin).
//
// When $FAKECLIENT_LOG names a directory, every invocation writes
// PROGRAM-PID-N.json there (program, argv, mode, working directory), so a
// test can tell what ran, and prove what never did.
package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"time"
)

// Invocation is one logged invocation.
type Invocation struct {
	Program string   `json:"program"`
	Argv    []string `json:"argv"` // after argv[0]
	Mode    string   `json:"mode"` // version, add-mcp
	Cwd     string   `json:"cwd"`
	Time    int64    `json:"time"` // when it started, in Unix nanoseconds
}

const logEnv = "FAKECLIENT_LOG"

func main() {
	prog := filepath.Base(os.Args[0])
	args := os.Args[1:]
	if prog != "code" {
		fmt.Fprintf(os.Stderr, "fakeclient: run as code (a symlink), not %q\n", prog)
		os.Exit(2)
	}
	mode := "add-mcp"
	if len(args) > 0 && args[0] == "--version" {
		mode = "version"
	}
	logInvocation(prog, args, mode)
	if mode == "version" {
		fmt.Println("1.107.0\n0000000000000000000000000000000000000000\nx64")
		os.Exit(0)
	}
	os.Exit(vscode(args))
}

func logInvocation(prog string, args []string, mode string) {
	dir := os.Getenv(logEnv)
	if dir == "" {
		return
	}
	cwd, _ := os.Getwd()
	now := time.Now().UnixNano()
	b, _ := json.Marshal(Invocation{Program: prog, Argv: args, Mode: mode, Cwd: cwd, Time: now})
	name := fmt.Sprintf("%s-%d-%d.json", prog, os.Getpid(), now)
	// Written whole, then renamed: a reader never sees half a log.
	tmp := filepath.Join(dir, "."+name)
	if os.WriteFile(tmp, b, 0o600) == nil {
		_ = os.Rename(tmp, filepath.Join(dir, name))
	}
}

// home is the user's home directory as the real programs find it ($HOME).
func home() string {
	if h := os.Getenv("HOME"); h != "" {
		return h
	}
	h, _ := os.UserHomeDir()
	return h
}

// readJSON reads a JSON object file; a missing file is an empty object.
func readJSON(path string) (map[string]any, error) {
	b, err := os.ReadFile(path)
	if os.IsNotExist(err) {
		return map[string]any{}, nil
	}
	if err != nil {
		return nil, err
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, fmt.Errorf("%s: %v", path, err)
	}
	if m == nil {
		m = map[string]any{}
	}
	return m, nil
}

func writeJSON(path string, m map[string]any) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return err
	}
	b, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(path, append(b, '\n'), 0o600)
}

// object returns m[key] as an object, creating it.
func object(m map[string]any, key string) map[string]any {
	o, ok := m[key].(map[string]any)
	if !ok {
		o = map[string]any{}
		m[key] = o
	}
	return o
}
