//go:build unix

package main

import (
	"context"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestVersion: `verbsurface --version` and `verbsurface version` print the
// same line, "verbsurface version V (GO, OS/ARCH)", and the served
// serverInfo.version is V.
func TestVersion(t *testing.T) {
	flag, err := exec.Command(vsBin, "--version").Output()
	line := regexp.MustCompile(`^verbsurface version (\S+) \(go\S+, [a-z0-9]+/[a-z0-9]+\)\n$`)
	m := line.FindStringSubmatch(string(flag))
	if err != nil || m == nil {
		t.Fatalf("verbsurface --version: %v: %q; want %s", err, flag, line)
	}
	cmd, err := exec.Command(vsBin, "version").Output()
	if err != nil || string(cmd) != string(flag) {
		t.Fatalf("verbsurface version: %v: %q; want what --version prints, %q", err, cmd, flag)
	}
	dir := copyFixture(t)
	srv := exec.Command(vsBin, "serve", "-c", filepath.Join(dir, "notes.yaml"))
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "version", Version: "v0"}, nil).
		Connect(context.Background(), &mcp.CommandTransport{Command: srv, TerminateDuration: 2 * time.Second}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	if got := cs.InitializeResult().ServerInfo.Version; got != m[1] {
		t.Errorf("serverInfo.version %q; want %q, the version line's", got, m[1])
	}
}

// TestCallExitStatus: `verbsurface call` exits as `limcp call` does: 0
// success, 2 partial, 1 error; the response is printed in every case.
func TestCallExitStatus(t *testing.T) {
	dir := copyFixture(t)
	tests := []struct {
		rule, req, status string
		exit              int
	}{
		{"success is 0", `{"ops":[{"op":"note.list"}]}`, `"status":"success"`, 0},
		{"partial is 2", `{"ops":[{"op":"note.list"},{"op":"note.nope"}]}`, `"status":"partial"`, 2},
		{"error is 1", `{"ops":[{"op":"note.nope"}]}`, `"status":"error"`, 1},
		{"a malformed envelope is 1", `{"ops":[]}`, `"status":"error"`, 1},
	}
	for _, tt := range tests {
		t.Run(tt.rule, func(t *testing.T) {
			cmd := exec.Command(vsBin, "call", "-c", filepath.Join(dir, "notes.yaml"), tt.req)
			cmd.Env = append(cmd.Environ(), "NOTES_HOME="+t.TempDir())
			out, err := cmd.Output()
			code := 0
			if ee, ok := err.(*exec.ExitError); ok {
				code = ee.ExitCode()
			} else if err != nil {
				t.Fatal(err)
			}
			if code != tt.exit || !strings.Contains(string(out), tt.status) {
				t.Fatalf("exit %d, output %s; want exit %d and %s", code, out, tt.exit, tt.status)
			}
		})
	}
}
