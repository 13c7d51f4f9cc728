//go:build unix

package main

import (
	"bytes"
	"context"
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
// returned the token through job.output. limcp mcp now refuses to start
// whenever a root holds the home, is it, or lies inside it, or holds the
// --token-file, naming both paths and the way out; a root beside the home
// serves, as the README's first command does (the clone as the working
// directory, the home in the user's state directory).
func TestStateHomeNeverInsideARoot(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	home := filepath.Join(dir, "state")
	token := filepath.Join(dir, "token")
	if err := os.WriteFile(token, []byte(strings.Repeat("t", 40)+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	elsewhere := t.TempDir()
	for _, c := range []struct {
		name, home string
		args       []string
		want       []string
	}{
		{"the home inside the working directory", home, nil, []string{home, dir + " (the working directory", "--root", "LIMCP_HOME"}},
		{"--root /", home, []string{"--root", "/"}, []string{home, "--root /"}},
		{"--root holding the home", home, []string{"--root", dir}, []string{home, "--root " + dir}},
		{"--root inside the home", dir, []string{"--root", home}, []string{"the state home " + dir, "holds", "--root " + home}},
		{"over HTTP", home, []string{"--http", "127.0.0.1:0", "--root", dir}, []string{home, "--root " + dir}},
		{"a --token-file inside a root", elsewhere, []string{"--http", "127.0.0.1:0", "--root", dir, "--token-file", token}, []string{"the token file " + token, "--root " + dir}},
	} {
		t.Run(c.name, func(t *testing.T) {
			if err := os.MkdirAll(home, 0o700); err != nil {
				t.Fatal(err)
			}
			code, stderr := startMCP(t, e, dir, c.home, c.args...)
			if code == 0 {
				t.Fatalf("limcp mcp %v started with its home %s in reach:\n%s", c.args, c.home, stderr)
			}
			for _, want := range c.want {
				if !strings.Contains(stderr, want) {
					t.Errorf("the refusal does not name %q:\n%s", want, stderr)
				}
			}
		})
	}
	if code, stderr := startMCP(t, e, dir, elsewhere); code != 0 {
		t.Fatalf("a home beside the working directory: status %d\n%s", code, stderr)
	}
	call := execLimcp(e, []string{"XDG_STATE_HOME=" + elsewhere}, "call", `{"help": true}`)
	call.Dir = dir
	if out, err := call.CombinedOutput(); err != nil || !strings.Contains(string(out), "agent.submit") {
		t.Fatalf("limcp call '{\"help\": true}' with the home in the state directory: %v\n%s", err, out)
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
