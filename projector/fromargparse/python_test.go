//go:build unix

package fromargparse

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/verbsurface/verbsurface/internal/procid"
)

// processGone reports whether pid has exited (a zombie awaiting its reaper
// counts as gone: it runs nothing).
func processGone(pid int) bool {
	st, err := procid.ReadStat(pid)
	return err != nil || st.State == 'Z' || st.State == 'X'
}

func waitGone(t *testing.T, pid int) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for !processGone(pid) {
		if time.Now().After(deadline) {
			t.Fatalf("process %d started by the walked code is still running", pid)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func readPid(t *testing.T, file string) int {
	t.Helper()
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatalf("the hanging factory never wrote its child's pid: %v", err)
	}
	pid, err := strconv.Atoi(string(b))
	if err != nil {
		t.Fatal(err)
	}
	// Should the test fail, it must not leave the child behind either.
	t.Cleanup(func() {
		if !processGone(pid) {
			_ = syscall.Kill(pid, syscall.SIGKILL)
		}
	})
	return pid
}

// TestWalkTimeout: a factory that hangs is stopped at Options.Timeout with
// an error naming the limit, and whatever it started goes with it. (The
// limit is short, so on a loaded machine the factory may not have started
// its child yet; TestWalkCancelKillsProcessGroup waits for the child.)
func TestWalkTimeout(t *testing.T) {
	pidFile := filepath.Join(t.TempDir(), "pid")
	t.Setenv("VSHANG_PIDFILE", pidFile)
	opts := testOptions(t)
	opts.Timeout = time.Second
	start := time.Now()
	_, err := Walk(context.Background(), "vshang:build", opts)
	var e *Error
	if !errors.As(err, &e) || e.Kind != "python_failed" || !strings.Contains(e.Message, "did not finish within 1s (Options.Timeout)") {
		t.Fatalf("Walk = %v, want a python_failed error naming the time limit", err)
	}
	if elapsed := time.Since(start); elapsed > 5*time.Second {
		t.Errorf("Walk returned after %v, long past its 1 s limit", elapsed)
	}
	if _, err := os.Stat(pidFile); err == nil {
		waitGone(t, readPid(t, pidFile))
	}
}

// TestWalkCancelKillsProcessGroup: cancelling the caller's context stops the
// walk with an error that says it was cancelled (not a time limit), and no
// process the walked code started survives: the walker runs in its own
// process group, and the group is killed (timeouts take the same path).
func TestWalkCancelKillsProcessGroup(t *testing.T) {
	pidFile := filepath.Join(t.TempDir(), "pid")
	t.Setenv("VSHANG_PIDFILE", pidFile)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() {
		for ctx.Err() == nil {
			if _, err := os.Stat(pidFile); err == nil {
				cancel()
				return
			}
			time.Sleep(20 * time.Millisecond)
		}
	}()
	_, err := Walk(ctx, "vshang:build", testOptions(t))
	var e *Error
	if !errors.As(err, &e) || e.Kind != "python_failed" || !strings.Contains(e.Message, "the walk was cancelled (context canceled)") {
		t.Fatalf("Walk = %v, want a python_failed error saying the walk was cancelled", err)
	}
	waitGone(t, readPid(t, pidFile))
}
