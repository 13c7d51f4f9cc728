//go:build unix

package background

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/verbsurface/verbsurface/internal/runs"
)

// superviseSpec records a run of spec in a fresh store, applies before to
// its record, runs the supervisor in this process to the run's end and
// returns the store's directory and the ended record.
func superviseSpec(t *testing.T, spec runSpec, before func(runs.Store, runs.Record)) (string, runs.Record) {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "runs")
	st, err := runs.Open(context.Background(), dir)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	b, _ := json.Marshal(spec)
	rec, err := st.Create(context.Background(), runs.New{Verb: "v", Spec: b})
	if err != nil {
		t.Fatal(err)
	}
	if before != nil {
		before(st, rec)
	}
	if err := supervise(context.Background(), dir, rec.ID); err != nil {
		t.Fatal(err)
	}
	rec, err = st.Get(context.Background(), rec.ID)
	if err != nil {
		t.Fatal(err)
	}
	return dir, rec
}

// The ends a supervisor records, one row per rule of its end switch.
func TestSuperviseRecordsTheEnd(t *testing.T) {
	sh := func(script string) runSpec {
		return runSpec{Program: "/bin/sh", Args: []string{"-c", script}, OKExit: []int{0, 1}, StdoutCap: 1000, StderrCap: 1000}
	}
	kill := func(st runs.Store, rec runs.Record) {
		if _, err := st.RequestKill(context.Background(), rec.ID); err != nil {
			t.Fatal(err)
		}
	}
	tests := []struct {
		name   string
		spec   runSpec
		before func(runs.Store, runs.Record)
		status runs.Status
		reason string
	}{
		{"ok_exit", sh("echo hi; exit 1"), nil, runs.StatusCompleted, "run.completed.exit_1"},
		{"other_exit", sh("exit 3"), nil, runs.StatusFailed, "run.failed.exit_3"},
		{"signal", sh("kill -KILL $$"), nil, runs.StatusFailed, "run.failed.signal"},
		{"output_past_its_cap", sh("i=0; while [ $i -lt 500 ]; do echo 0123456789; i=$((i+1)); done; sleep 30"), nil, runs.StatusFailed, reasonOverflow},
		{"cannot_start", runSpec{Program: "/nonexistent/prog"}, nil, runs.StatusFailed, reasonLaunchFailed},
		{"killed_while_preparing", sh("sleep 300"), kill, runs.StatusCancelled, reasonCancelled},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir, rec := superviseSpec(t, tt.spec, tt.before)
			if rec.Status != tt.status || rec.ReasonCode != tt.reason {
				t.Fatalf("ended %s (%s), want %s (%s)", rec.Status, rec.ReasonCode, tt.status, tt.reason)
			}
			if _, err := os.Stat(filepath.Join(dir, runs.SignalDir, rec.ID)); err != nil {
				t.Fatalf("the end was not announced: %v", err)
			}
			if tt.reason == reasonOverflow {
				if n := fileSize(outputPath(dir, rec.ID, "stdout")); n != 1000 {
					t.Fatalf("kept %d bytes of stdout, want the cap, 1000", n)
				}
				// Stopped at the cap, not left to finish its sleep.
				if rec.Signal == "" {
					t.Fatalf("the run passed its cap and was not stopped: %+v", rec)
				}
			}
			if tt.reason == reasonLaunchFailed {
				b, _ := os.ReadFile(outputPath(dir, rec.ID, "stderr"))
				if !strings.Contains(string(b), "/nonexistent/prog") {
					t.Fatalf("stderr does not say what could not start: %q", b)
				}
			} else if rec.Process.PID == 0 || rec.Supervisor.PID != os.Getpid() || rec.StartedAt.IsZero() {
				t.Fatalf("start not recorded: %+v", rec)
			}
			for _, s := range []string{"stdout", "stderr"} {
				if fi, err := os.Stat(outputPath(dir, rec.ID, s)); err != nil || fi.Mode().Perm() != runs.FileMode {
					t.Fatalf("%s: %v %v", s, fi, err)
				}
			}
		})
	}
}

// A supervisor refuses a run that is not preparing: a run is started once.
func TestSuperviseStartsARunOnce(t *testing.T) {
	spec := runSpec{Program: "/bin/true", OKExit: []int{0}}
	dir, rec := superviseSpec(t, spec, nil)
	if rec.Status != runs.StatusCompleted {
		t.Fatalf("first: %+v", rec)
	}
	if err := supervise(context.Background(), dir, rec.ID); err == nil || !strings.Contains(err.Error(), "not preparing") {
		t.Fatalf("second supervisor: %v", err)
	}
}
