//go:build unix

package main

import (
	"bytes"
	"context"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// The third security pass (issue 36) on what a root may hold, against the
// built binary.

// startMCP runs limcp mcp in dir with the home given and stdin at its
// end, and returns its exit status and stderr: a server that starts reads
// the end of stdin and exits 0.
func startMCP(t *testing.T, e *env, dir, home string, args ...string) (int, string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, limcpBin, append([]string{"mcp", "--no-notify"}, args...)...)
	cmd.Env = append(execLimcp(e, nil).Env, "LIMCP_HOME="+home)
	cmd.Dir = dir
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	err := cmd.Run()
	if ee, ok := err.(*exec.ExitError); ok {
		return ee.ExitCode(), stderr.String()
	}
	if err != nil {
		t.Fatal(err)
	}
	return 0, stderr.String()
}

// TestStateHomeNeverInsideARoot (LOW #16): with the home at <cwd>/state,
// the default stdio root (the working directory) held the HTTP token,
// providers.yaml and config.yaml, and prompt_file: <cwd>/state/mcp-token
// returned the token through job.output. Now the home (and a --token-file)
// is carved out of every root: limcp mcp serves a root that holds it,
// refuses every path under it and every directory argument that holds it,
// and refuses to start with a root that is the home or lies inside it,
// naming both. A stdio client started in the user's home directory (the
// state home under it) keeps working, as the README's first command does.
func TestStateHomeNeverInsideARoot(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	home := filepath.Join(dir, "state")
	if err := os.MkdirAll(filepath.Join(home, "runs"), 0o700); err != nil {
		t.Fatal(err)
	}
	code, stderr := startMCP(t, e, t.TempDir(), home, "--root", filepath.Join(home, "runs"))
	if code == 0 || !strings.Contains(stderr, home) || !strings.Contains(stderr, filepath.Join(home, "runs")) {
		t.Fatalf("a root inside the home: status %d; want a refusal naming both:\n%s", code, stderr)
	}
	for _, c := range []struct {
		name string
		args []string
	}{
		{"the home inside the working directory", nil},
		{"--root /", []string{"--root", "/"}},
		{"--root holding the home", []string{"--root", dir}},
	} {
		if code, stderr := startMCP(t, e, dir, home, c.args...); code != 0 {
			t.Errorf("%s: status %d; the home is carved out, the server serves the rest:\n%s", c.name, code, stderr)
		}
	}

	// A session started in dir, the home inside it: the rest of dir is
	// served, the home is not.
	secret := filepath.Join(home, "providers.yaml")
	if err := os.WriteFile(secret, []byte("secret-provider-config\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	beside := filepath.Join(dir, "prompt.txt")
	if err := os.WriteFile(beside, []byte("a prompt beside the home"), 0o600); err != nil {
		t.Fatal(err)
	}
	cmd := execLimcp(e, []string{"LIMCP_HOME=" + home}, "mcp", "--no-notify")
	cmd.Dir = dir
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "e2e", Version: "v0"}, nil).
		Connect(context.Background(), &mcp.CommandTransport{Command: cmd, TerminateDuration: 2 * time.Second}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	// No home for the word check: these refusals echo the paths the
	// caller named itself, which are under the home by design.
	c := &mcpClient{t: t, cs: cs}
	fp := c.help("agent.submit").SchemaFingerprint
	for _, bad := range []map[string]any{
		{"model": "echo", "prompt_file": secret},
		{"model": "echo", "prompt_file": filepath.Join(dir, "x", "..", "state", "providers.yaml")},
		{"model": "echo", "prompt": "p", "cwd": dir},
		{"model": "echo", "prompt": "p", "cwd": home},
	} {
		o := c.fail("invalid_args", "agent.submit", bad, fp)
		if strings.Contains(string(o.raw), "secret-provider-config") || !strings.Contains(string(o.raw), "outside_roots") {
			t.Errorf("%v: %s", bad, o.raw)
		}
	}
	var s submitted
	c.must(&s, "agent.submit", map[string]any{"model": "echo", "prompt_file": beside}, fp)
	if s.ID == "" {
		t.Fatal("a prompt file beside the home was not served")
	}
}

// TestRootLinksWarnedAtStart (MED #4): a run's cwd is a directory its
// program works in, and the program follows any symbolic link there, out
// of the roots too; confinement cannot stop that. limcp mcp says so at
// start, on stderr, naming the link and its target, and serves anyway.
func TestRootLinksWarnedAtStart(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	f := newFilesFixture(t) // its root holds shadow-link, a link to the secret outside
	root, err := filepath.EvalSymlinks(f.root)
	if err != nil {
		t.Fatal(err)
	}
	secret, err := filepath.EvalSymlinks(f.secret)
	if err != nil {
		t.Fatal(err)
	}
	code, stderr := startMCP(t, e, t.TempDir(), e.home, "--root", f.root)
	want := "limcp mcp: warning: " + filepath.Join(root, "shadow-link") + " is a symbolic link to " + secret + ", outside the roots"
	if code != 0 || !strings.Contains(stderr, want) {
		t.Fatalf("status %d, want 0 and %q in:\n%s", code, want, stderr)
	}
	if code, stderr := startMCP(t, e, t.TempDir(), e.home, "--root", filepath.Join(f.root, "work")); code != 0 || strings.Contains(stderr, "warning") {
		t.Fatalf("a root without such links: status %d\n%s", code, stderr)
	}
}
