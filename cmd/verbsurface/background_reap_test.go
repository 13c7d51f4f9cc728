//go:build unix

package main

import (
	"context"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/verbsurface/verbsurface/internal/procid"
	"github.com/verbsurface/verbsurface/internal/runs"
)

// A front whose run's supervisor is killed (SIGKILL) before it records
// the start: the supervisor here is a script that never records anything,
// so no timing decides it. The front recorded the supervisor as it
// started it; once it is gone, job.wait reports the run aborted, the
// policy's live_runs frees its slot, and the next start passes its gate.
func TestBackgroundSupervisorKilledBeforeStart(t *testing.T) {
	stalled := filepath.Join(t.TempDir(), "stalled-supervisor")
	if err := os.WriteFile(stalled, []byte("#!/bin/sh\nexec sleep 300\n"), 0o700); err != nil {
		t.Fatal(err)
	}
	f := bgFrontSupervised(t, stalled, "policy: policy.yaml\n", "policy.yaml", "version: 1\ndefault: allow\nlimits: {live_runs: 1}\n")
	id := f.startRun(t, "echo never")
	rec, err := bgStore(t, f).Get(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	sup := procid.Identity{PID: rec.Supervisor.PID, StartTime: rec.Supervisor.StartTime}
	if rec.Status != runs.StatusPreparing || procid.Check(sup) != procid.Alive {
		t.Fatalf("run %+v; want it preparing with its live supervisor recorded", rec)
	}
	t.Cleanup(func() {
		if procid.Check(sup) == procid.Alive {
			syscall.Kill(sup.PID, syscall.SIGKILL)
		}
	})
	if r := f.op(t, `{"op":"sh.run","fingerprint":"`+f.fingerprint(t, "sh.run")+`","args":{"script":"echo second"}}`); r["ok"] != false {
		t.Fatalf("a second start with the preparing run live: %v; want it refused by live_runs", r)
	}
	if err := syscall.Kill(sup.PID, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	for procid.Check(sup) == procid.Alive {
		time.Sleep(10 * time.Millisecond)
	}
	w := f.op(t, `{"op":"job.wait","args":{"ids":["`+id+`"],"max_wait_seconds":60}}`)["result"].(map[string]any)
	e := w["entries"].([]any)[0].(map[string]any)
	if w["all_terminal"] != true || e["status"] != "aborted" || e["reason_code"] != "run.aborted.supervisor_gone" {
		t.Fatalf("job.wait: %v; want the run aborted (run.aborted.supervisor_gone)", w)
	}
	if n, err := f.bg.CountLive(context.Background()); err != nil || n != 0 {
		t.Fatalf("live runs after the reap: %d, %v; want 0", n, err)
	}
	// A dry run answers the policy's gate as a start would, and starts
	// nothing this supervisor would leave preparing.
	if r := f.op(t, `{"op":"sh.run","fingerprint":"`+f.fingerprint(t, "sh.run")+`","dry_run":true,"args":{"script":"echo second"}}`); r["ok"] != true {
		t.Fatalf("a start after the reap: %v; want it to pass live_runs", r)
	}
}
