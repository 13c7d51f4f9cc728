//go:build unix

package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestDryRunThroughLimcp: over a real stdio session with the real limcp
// and its SQLite store, a dry-run agent.submit and a dry-run kill pass
// every gate and answer what would run, and nothing changes: no run is
// recorded, the store's bytes stay the same, and the audit line says the
// op was a dry run. The real submit then runs as usual.
func TestDryRunThroughLimcp(t *testing.T) {
	e := newEnv(t)
	audit := filepath.Join(e.home, "audit.jsonl")
	c := e.dialStdio(nil, nil, "--audit", audit)
	fp := c.help("agent.submit").SchemaFingerprint
	var before struct {
		Records []json.RawMessage `json:"records"`
	}
	e.ok(&before, "job", "list")
	db := filepath.Join(e.home, "state.db")
	dbBefore, _ := os.ReadFile(db)

	r := c.request(map[string]any{"dry_run": true, "ops": []any{
		map[string]any{"op": "agent.submit", "fingerprint": fp, "args": map[string]any{"model": "echo", "prompt": "dry words"}},
		map[string]any{"op": "job.kill", "args": map[string]any{"id": "nosuch"}},
	}})
	if r.Status != "success" || len(r.Results) != 2 {
		t.Fatalf("dry run: %s", r.raw)
	}
	var plan struct {
		DryRun  bool     `json:"dry_run"`
		Runs    string   `json:"runs"`
		Command []string `json:"command"`
		Argv    []string `json:"argv"`
	}
	if err := json.Unmarshal(r.Results[0].Result, &plan); err != nil || !plan.DryRun || plan.Runs != "command" ||
		strings.Join(plan.Command, " ") != "agent" || !strings.Contains(strings.Join(plan.Argv, " "), "dry words") {
		t.Fatalf("submit's dry run: %s", r.Results[0].raw)
	}
	var after struct {
		Records []json.RawMessage `json:"records"`
	}
	e.ok(&after, "job", "list")
	if len(after.Records) != len(before.Records) {
		t.Fatalf("a dry run recorded a run: %d records, were %d", len(after.Records), len(before.Records))
	}
	if dbAfter, _ := os.ReadFile(db); string(dbAfter) != string(dbBefore) {
		t.Errorf("a dry run changed state.db")
	}
	b, err := os.ReadFile(audit)
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(string(b), `"dry_run":true`); n != 2 {
		t.Errorf("the audit marks %d ops as dry runs, want 2:\n%s", n, b)
	}
	var s submitted
	c.must(&s, "agent.submit", map[string]any{"model": "echo", "prompt": "real words"}, fp)
	if s.ID == "" {
		t.Fatal("the real submit after a dry run started nothing")
	}
}

// TestWaitBoundsThroughLimcp (issue 36, LOW #15): through the built limcp,
// each of 16 job.wait ops asking for a 50 ms poll gets the floor, 250 ms,
// and says so; and the 16 wait ops of one request share one budget
// (--max-request-wait, 5 minutes by default; 2 s here, so the test holds
// the suite for seconds, not the 16 x 25 s the ops ask for): the windows
// they echo add up to the budget, not to what they asked.
func TestWaitBoundsThroughLimcp(t *testing.T) {
	e := newEnv(t)
	c := e.dialStdio(nil, nil)
	s := c.submitEcho("echo", "quick")
	var ops []any
	for range 16 {
		ops = append(ops, map[string]any{"op": "job.wait", "args": map[string]any{"ids": []string{s.ID}, "max_wait_seconds": 0, "poll_interval_seconds": 0.05}})
	}
	r := c.request(map[string]any{"ops": ops})
	if len(r.Results) != 16 {
		t.Fatalf("%s", r.raw)
	}
	for i, o := range r.Results {
		var w struct {
			Poll float64 `json:"poll_interval_seconds"`
		}
		if !o.OK || json.Unmarshal(o.Result, &w) != nil || w.Poll != 0.25 {
			t.Fatalf("op %d: %s; want the 0.25 s poll floor echoed", i, o.raw)
		}
	}

	b := e.dialStdio(nil, nil, "--max-request-wait", "2s")
	slow := b.submitEcho("echo:delay=10m", "slow")
	ops = nil
	for range 16 {
		ops = append(ops, map[string]any{"op": "job.wait", "args": map[string]any{"ids": []string{slow.ID}, "max_wait_seconds": 25}})
	}
	r = b.request(map[string]any{"ops": ops})
	if len(r.Results) != 16 {
		t.Fatalf("%s", r.raw)
	}
	total := 0.0
	for i, o := range r.Results {
		var w struct {
			Window      float64 `json:"max_wait_seconds"`
			AllTerminal bool    `json:"all_terminal"`
		}
		if !o.OK || json.Unmarshal(o.Result, &w) != nil || w.AllTerminal {
			t.Fatalf("op %d: %s", i, o.raw)
		}
		total += w.Window
	}
	if total > 2 {
		t.Fatalf("the 16 wait ops echo windows of %.2f s in all; the request's budget is 2 s", total)
	}
}
