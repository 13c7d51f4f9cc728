//go:build unix

package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// copyJobs copies the jobs fixture (a Python CLI with background runs)
// into a fresh directory with the given runs.
func copyJobs(t *testing.T, runs string) string {
	t.Helper()
	dir := t.TempDir()
	for _, f := range []string{"jobs.py", "jobs.yaml"} {
		b, err := os.ReadFile(filepath.Join("testdata", "jobs", f))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, f), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(dir, "runs.json"), []byte(runs), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

// A Python CLI with background runs gets job.wait and job.kill from the
// wait: and kill: keys alone: the schema of its wait command, the four-way
// partition with its own outcome table, a timeout as a result, the kill
// delegated after the status lookup (machine arguments at the root), a
// show refused, the CLI's unknown id passed through, and a typo in the
// observe path caught by check.
func TestJobsCLIThroughServe(t *testing.T) {
	dir := copyJobs(t, `{
 "r-done":  {"kind": "task", "status": "done", "terminal": true},
 "r-crash": {"kind": "task", "status": "crashed", "terminal": true},
 "r-odd":   {"kind": "task", "status": "vanished", "terminal": true},
 "r-live":  {"kind": "task", "status": "running", "terminal": false},
 "s-show":  {"kind": "show", "status": "running", "terminal": false}}`)
	cfg := filepath.Join(dir, "jobs.yaml")
	c := serve(t, cfg, "JOBS_HOME="+dir)

	schema, _ := c.help("job.wait")
	props, _ := schema["properties"].(map[string]any)
	for _, p := range []string{"ids", "max_wait_seconds", "poll_interval_seconds"} {
		if props[p] == nil {
			t.Fatalf("job.wait's schema has no %s: %v", p, schema)
		}
	}

	type entry struct {
		ID, Status, Outcome string
		Error               *struct{ Code string }
	}
	var w struct {
		Entries     []entry
		AllTerminal bool     `json:"all_terminal"`
		TimedOut    bool     `json:"timed_out"`
		Pending     []string `json:"pending"`
	}
	decode := func(r map[string]any, v any) {
		t.Helper()
		if r["ok"] != true {
			t.Fatalf("op failed: %v", r)
		}
		b, _ := json.Marshal(r["result"])
		if err := json.Unmarshal(b, v); err != nil {
			t.Fatal(err)
		}
	}
	decode(c.op(`{"op":"job.wait","args":{"ids":["r-done","r-crash","r-odd","nope"],"max_wait_seconds":0}}`), &w)
	got := []string{}
	for _, e := range w.Entries {
		s := e.Outcome
		if e.Error != nil {
			s = e.Error.Code
		}
		got = append(got, s)
	}
	if want := []string{"succeeded", "failed", "unknown", "unknown_id"}; !slices.Equal(got, want) || w.AllTerminal {
		t.Fatalf("outcomes %q (all_terminal %v); want %q", got, w.AllTerminal, want)
	}

	decode(c.op(`{"op":"job.wait","args":{"ids":["r-live"],"max_wait_seconds":0.3,"poll_interval_seconds":0.1}}`), &w)
	if !w.TimedOut || !slices.Equal(w.Pending, []string{"r-live"}) {
		t.Fatalf("a live run: %+v; want timed out with r-live pending", w)
	}

	var k struct {
		Decision  struct{ Action, Rule string }
		Delegated struct {
			Argv []string
			OK   bool
		}
	}
	decode(c.op(`{"op":"job.kill","args":{"id":"r-live","grace":"1s"}}`), &k)
	if k.Decision.Action != "delegate" || k.Decision.Rule != "entity" || !k.Delegated.OK ||
		!slices.Equal(k.Delegated.Argv, []string{"--json", "kill", "--grace=1s", "--", "r-live"}) {
		t.Fatalf("job.kill: %+v", k)
	}
	decode(c.op(`{"op":"job.wait","args":{"ids":["r-live"],"max_wait_seconds":0}}`), &w)
	if w.Entries[0].Outcome != "cancelled" || !w.AllTerminal {
		t.Fatalf("after the kill: %+v", w)
	}

	show := c.op(`{"op":"job.kill","args":{"id":"s-show"}}`)
	if code(show) != "handler_error" || show["error"].(map[string]any)["details"].(map[string]any)["code"] != "show_kill_unsupported" {
		t.Fatalf("killing a show: %v", show)
	}
	if r := c.op(`{"op":"job.kill","args":{"id":"nope"}}`); code(r) != "cli_error" {
		t.Fatalf("killing an unknown id: %v", r)
	}
	if r := c.op(`{"op":"job.kill","args":{"id":"r-done","grace":"soon"}}`); code(r) != "invalid_args" {
		t.Fatalf("a bad grace: %v", r)
	}

	good, _ := os.ReadFile(cfg)
	typo := filepath.Join(dir, "typo.yaml")
	os.WriteFile(typo, []byte(strings.Replace(string(good), "observe: [observe]", "observe: [obsrve]", 1)), 0o644)
	stdout, _, status := runVS(t, "check", "-c", typo)
	if status == 0 || !strings.Contains(stdout, `verb job.wait cannot be offered`) || !strings.Contains(stdout, `wait.observe: no runnable command "obsrve"`) {
		t.Fatalf("check of an observe typo: status %d\n%s", status, stdout)
	}
	if stdout, _, status := runVS(t, "check", "-c", cfg); status != 0 || !strings.Contains(stdout, "ok: 3 verbs") {
		t.Fatalf("check of the fixture: status %d\n%s", status, stdout)
	}
}

// wait: and kill: read machine results whatever the top-level output
// says: with output: text for the verbs, job.wait still partitions and
// job.kill still delegates, while a plain verb gets the CLI's stdout as
// text.
func TestJobsUnderAnotherOutput(t *testing.T) {
	dir := copyJobs(t, `{"r-done": {"kind": "task", "status": "done", "terminal": true},
 "r-live": {"kind": "task", "status": "running", "terminal": false}}`)
	cfg := filepath.Join(dir, "jobs.yaml")
	b, err := os.ReadFile(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(cfg, append([]byte("output: text\n"), b...), 0o644); err != nil {
		t.Fatal(err)
	}
	c := serve(t, cfg, "JOBS_HOME="+dir)
	r := c.op(`{"op":"job.wait","args":{"ids":["r-done"],"max_wait_seconds":0}}`)
	if r["ok"] != true || !strings.Contains(fmt.Sprint(r["result"]), "succeeded") {
		t.Fatalf("job.wait under output text: %v", r)
	}
	if r := c.op(`{"op":"job.kill","args":{"id":"r-live"}}`); r["ok"] != true {
		t.Fatalf("job.kill under output text: %v", r)
	}
	r = c.op(`{"op":"job.status","args":{"id":"r-done"}}`)
	res, _ := r["result"].(map[string]any)
	if out, _ := res["output"].(string); r["ok"] != true || !strings.Contains(out, `"result_version": 1`) && !strings.Contains(out, `"result_version":1`) {
		t.Fatalf("job.status under output text is the CLI's stdout as text: %v", r)
	}
}
