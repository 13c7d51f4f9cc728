//go:build unix

package dispatch

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/verbsurface/verbsurface/internal/procid"
)

// fakeCLI is the absolute path of internal/fakecli, built once per test run.
var fakeCLI string

func TestMain(m *testing.M) {
	if os.Getenv(serverHelperEnv) != "" {
		os.Exit(serverHelper())
	}
	os.Exit(runTests(m))
}

func runTests(m *testing.M) int {
	dir, err := os.MkdirTemp("", "dispatch-test-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer os.RemoveAll(dir)
	fakeCLI = filepath.Join(dir, "fakecli")
	build := exec.Command("go", "build", "-o", fakeCLI, "./internal/fakecli")
	build.Stdout, build.Stderr = os.Stderr, os.Stderr
	if err := build.Run(); err != nil {
		fmt.Fprintln(os.Stderr, "building fakecli:", err)
		return 1
	}
	return m.Run()
}

// newFake returns a runner for the fake CLI with short timeouts, so that a
// test of a hanging command costs a fraction of a second.
func newFake(t testing.TB, opts Options) *Runner {
	t.Helper()
	if opts.Timeout == 0 {
		opts.Timeout = 10 * time.Second
	}
	if opts.Grace == 0 {
		opts.Grace = 300 * time.Millisecond
	}
	r, err := NewRunner(fakeCLI, &opts)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// assertGroupGone fails unless no live process has pgid as its group. It
// does not wait: Execute promises the group is gone when it returns.
func assertGroupGone(t *testing.T, pgid int) {
	t.Helper()
	if pgid <= 0 {
		t.Fatalf("no process group to check (pid %d)", pgid)
	}
	members, err := procid.GroupMembers(pgid)
	if err != nil {
		t.Fatal(err)
	}
	if len(members) > 0 {
		for _, p := range members {
			_ = syscall.Kill(p, syscall.SIGKILL) // do not leak them past the test
		}
		t.Fatalf("process group %d still has members %v after Execute returned", pgid, members)
	}
}

// readPidfile waits for a pid file written by the fake CLI.
func readPidfile(t *testing.T, path string, within time.Duration) int {
	t.Helper()
	deadline := time.Now().Add(within)
	for {
		b, err := os.ReadFile(path)
		if err == nil {
			pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
			if err != nil {
				t.Fatalf("pid file %s: %v", path, err)
			}
			return pid
		}
		if time.Now().After(deadline) {
			t.Fatalf("pid file %s did not appear within %v", path, within)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// alive reports whether pid is a live, non-zombie process.
func alive(pid int) bool {
	st, err := procid.ReadStat(pid)
	return err == nil && st.State != 'Z' && st.State != 'X'
}

// killNow kills pid at test cleanup, so a failing test leaks nothing.
func killNow(t *testing.T, pid int) {
	t.Cleanup(func() { _ = syscall.Kill(pid, syscall.SIGKILL) })
}

func kindOf(err error) Kind {
	var e *Error
	if errors.As(err, &e) {
		return e.Kind
	}
	return ""
}

func bg() context.Context { return context.Background() }
