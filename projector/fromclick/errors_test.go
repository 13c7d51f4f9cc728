//go:build unix

package fromclick

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
)

// TestWalkErrors: every way of not getting a command is an *Error with the
// kind a caller can act on, naming the target.
func TestWalkErrors(t *testing.T) {
	python := pythonWith(t, "click")
	cases := map[string]string{
		"no-colon":          "bad_target",
		"vs_no_such_mod:x":  "import",
		"vsclick:nothing":   "no_factory",
		"vsclick:broken":    "factory",
		"vsclick:Hex":       "not_parser",
		"vsclick.Color:red": "import",
	}
	for target, kind := range cases {
		_, err := Walk(context.Background(), target, fixtureOptions(t, python))
		var we *Error
		if !errors.As(err, &we) || we.Kind != kind || we.Target != target {
			t.Errorf("%s: got %v, want kind %s", target, err, kind)
			continue
		}
		if !strings.Contains(err.Error(), "fromclick: target "+target) {
			t.Errorf("%s: message %q does not name the target", target, err)
		}
	}
	// WalkAll joins one error per failed target and returns no tree.
	trees, err := WalkAll(context.Background(), []string{"vsclick:cli", "vsclick:broken", "vsclick:nothing"}, fixtureOptions(t, python))
	if trees != nil || err == nil || !strings.Contains(err.Error(), "vsclick:broken") || !strings.Contains(err.Error(), "vsclick:nothing") {
		t.Errorf("WalkAll: %v %v", trees, err)
	}
	_, err = Walk(context.Background(), "vsclick:cli", &Options{Python: "/nonexistent/python3"})
	var we *Error
	if !errors.As(err, &we) || we.Kind != "python_missing" {
		t.Errorf("missing interpreter: %v", err)
	}
}

// TestWalkTimeoutKillsGroup: a factory that hangs after starting a process
// is stopped at the time limit, and its whole process group with it.
func TestWalkTimeoutKillsGroup(t *testing.T) {
	python := pythonWith(t, "click")
	pidfile := filepath.Join(t.TempDir(), "pid")
	t.Setenv("VSCLICK_PIDFILE", pidfile)
	opts := fixtureOptions(t, python)
	opts.Timeout = 3 * time.Second
	start := time.Now()
	_, err := Walk(context.Background(), "vsclick:hang", opts)
	var we *Error
	if !errors.As(err, &we) || we.Kind != "python_failed" || !strings.Contains(err.Error(), "did not finish within") {
		t.Fatalf("got %v, want a python_failed time-limit error", err)
	}
	if d := time.Since(start); d > 20*time.Second {
		t.Errorf("the walk took %v despite a 3 s limit", d)
	}
	raw, err := os.ReadFile(pidfile)
	if err != nil {
		t.Fatalf("the factory never started its child: %v", err)
	}
	pid, _ := strconv.Atoi(strings.TrimSpace(string(raw)))
	deadline := time.Now().Add(5 * time.Second)
	for {
		// The child is gone (or a zombie of an exited parent, reaped by
		// init): signal 0 fails, or /proc says it is a zombie.
		if syscall.Kill(pid, 0) != nil {
			break
		}
		if st, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat"); err == nil && strings.Contains(string(st), ") Z ") {
			break
		}
		if time.Now().After(deadline) {
			_ = syscall.Kill(pid, syscall.SIGKILL)
			t.Fatalf("the factory's child %d outlived the walk", pid)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// TestWalkCancel: cancelling the context stops the walk and says so.
func TestWalkCancel(t *testing.T) {
	python := pythonWith(t, "click")
	t.Setenv("VSCLICK_PIDFILE", filepath.Join(t.TempDir(), "pid"))
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	_, err := Walk(ctx, "vsclick:hang", fixtureOptions(t, python))
	if err == nil || !strings.Contains(err.Error(), "cancelled") {
		t.Fatalf("got %v, want a cancellation error", err)
	}
}
