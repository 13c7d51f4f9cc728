//go:build unix

package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestServeOnATerminalSaysWhatItIs: `verbsurface serve` whose stdin is a
// character device (a terminal; here /dev/null, which is one too) says on
// stderr that it is an MCP server for a client and what to run instead,
// rather than waiting in silence; on a pipe, as a client starts it, it
// says nothing.
func TestServeOnATerminalSaysWhatItIs(t *testing.T) {
	config := filepath.Join(copyFixture(t), "notes.yaml")
	for _, tt := range []struct {
		name   string
		stdin  func() *os.File
		notice bool
	}{
		{"character device", func() *os.File {
			f, err := os.Open(os.DevNull)
			if err != nil {
				t.Fatal(err)
			}
			return f
		}, true},
		{"pipe", func() *os.File {
			r, w, err := os.Pipe()
			if err != nil {
				t.Fatal(err)
			}
			w.Close()
			return r
		}, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			cmd := exec.Command(vsBin, "serve", "-c", config)
			cmd.Env = vsEnv(t, t.TempDir())
			in := tt.stdin()
			defer in.Close()
			cmd.Stdin = in
			var stderr strings.Builder
			cmd.Stderr = &stderr
			if err := cmd.Run(); err != nil {
				t.Fatalf("serve: %v\n%s", err, stderr.String())
			}
			got := strings.Contains(stderr.String(), "this is an MCP server") && strings.Contains(stderr.String(), "verbsurface install claude -c "+config)
			if got != tt.notice {
				t.Errorf("notice %v; want %v:\n%s", got, tt.notice, stderr.String())
			}
		})
	}
}

// TestInstallUsageHasNoBackQuotes: pflag reads a back-quoted word in a
// flag's usage as the value's name; the install flags name none, so
// --help shows "--http string", not a command line in its place.
func TestInstallUsageHasNoBackQuotes(t *testing.T) {
	out, err := exec.Command(vsBin, "install", "--help").CombinedOutput()
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if !strings.Contains(string(out), "--http string") {
		t.Errorf("install --help:\n%s\nwant --http string", out)
	}
}
