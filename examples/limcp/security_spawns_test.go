//go:build unix

package main

// End-to-end tests of issue 25's first finding against the built binaries:
// schedule.tick started runs past every limit. A tick is a control verb, so
// neither the spawn bucket nor a policy's live_runs applied to it; a
// caller's `now` made every schedule due at will; and a home held any
// number of schedules. Now a tick pays for what it starts, the clock is the
// server's, and schedules per home are capped.

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"
)

// makeDue moves the named schedules' next run into the past, as a minute
// going by would: the only way a test makes a schedule due now that no
// caller can choose the tick's clock.
func (e *env) makeDue(names ...string) {
	e.t.Helper()
	st := e.store()
	ctx := context.Background()
	for _, n := range names {
		sc, err := st.GetSchedule(ctx, n)
		if err != nil {
			e.t.Fatal(err)
		}
		if won, err := st.ClaimSchedule(ctx, sc, time.Now().Add(-2*time.Minute), time.Now().Add(-time.Minute)); err != nil || !won {
			e.t.Fatalf("making %s due: %v %v", n, won, err)
		}
	}
}

// recordCount is how many records the home holds, of every kind.
func (e *env) recordCount() int {
	e.t.Helper()
	var list struct {
		Records []json.RawMessage `json:"records"`
	}
	e.ok(&list, "job", "list", "--limit", "200")
	return len(list.Records)
}

// tickResult is schedule.tick's result as the server returns it.
type tickResult struct {
	Started []struct {
		Schedule string `json:"schedule"`
		ID       string `json:"id"`
		Error    string `json:"error"`
	} `json:"started"`
	Deferred []struct {
		Schedule string `json:"schedule"`
	} `json:"deferred"`
	Spent      int    `json:"spent"`
	LimitedBy  string `json:"limited_by"`
	RetryAfter int    `json:"retry_after"`
}

func opsOf(ops ...map[string]any) map[string]any {
	list := make([]any, len(ops))
	for i, o := range ops {
		list[i] = o
	}
	return map[string]any{"ops": list}
}

func addSchedule(name string, command ...string) map[string]any {
	return map[string]any{"op": "schedule.add", "args": map[string]any{"name": name, "cron": "* * * * *", "command": command}}
}

var tickOp = map[string]any{"op": "schedule.tick", "args": map[string]any{}}

// TestTickCannotChooseTheClock: `now` is in no schema, over limcp mcp or
// the shipped YAML front, and a tick op naming it is refused before
// anything runs; so is the server's own budget flag.
func TestTickCannotChooseTheClock(t *testing.T) {
	e := newEnv(t)
	c := e.dialStdio(nil, nil)
	c.must(nil, "schedule.add", map[string]any{"name": "s", "cron": "0 3 * * *", "command": []string{"agent", "echo", "x"}}, "")
	for _, param := range []string{"now", "spawn_budget"} {
		o := c.fail("invalid_args", "schedule.tick", map[string]any{param: "2099-01-01T03:00:00Z"}, "")
		if len(o.Error.Problems) != 1 || o.Error.Problems[0]["param"] != param || !strings.Contains(fmt.Sprint(o.Error.Problems[0]["reason"]), "unknown") {
			t.Errorf("schedule.tick with %s: %s; want one unknown-parameter problem", param, o.raw)
		}
		if _, ok := c.help("schedule.tick").Schema.Properties[param]; ok {
			t.Errorf("schedule.tick's schema offers %s", param)
		}
	}
	if n := e.recordCount(); n != 0 {
		t.Fatalf("%d records: a tick at a chosen time started something", n)
	}
	vs := startFront(t, e, "")
	for _, param := range []string{"now", "spawn_budget"} {
		if _, ok := vs.help("schedule.tick").Schema.Properties[param]; ok {
			t.Errorf("the YAML front's schedule.tick offers %s", param)
		}
	}
}

// TestTickPaysForWhatItStarts is the attack: with
// --spawns-per-minute 1, one request of 2 agent.submit, 5 schedule.add of
// a fanout and 3 schedule.tick got its second submit rate_limited and then
// started 15 sessions through the ticks. Now the first submit takes the
// one token and every tick is rate_limited: one run in all.
func TestTickPaysForWhatItStarts(t *testing.T) {
	e := newEnv(t)
	c := e.dialStdio(nil, nil, "--spawns-per-minute", "1")
	fp := c.help("agent.submit").SchemaFingerprint
	submit := map[string]any{"op": "agent.submit", "fingerprint": fp, "args": map[string]any{"model": "echo", "prompt": "x"}}
	var adds []map[string]any
	var names []string
	for i := range 5 {
		names = append(names, fmt.Sprintf("s%d", i))
		adds = append(adds, addSchedule(names[i], "fanout", "echo", "x", "-n", "4"))
	}
	r := c.request(opsOf(append([]map[string]any{submit, submit}, adds...)...))
	if !r.Results[0].OK || r.Results[1].OK || r.Results[1].Error.Code != "rate_limited" {
		t.Fatalf("%.600s; want the first submit started and the second rate_limited", r.raw)
	}
	e.makeDue(names...)
	r = c.request(opsOf(tickOp, tickOp, tickOp))
	for i, o := range r.Results {
		if o.OK || o.Error.Code != "rate_limited" || o.Error.SchemaFingerprint != "" {
			t.Fatalf("tick %d: %s; want rate_limited (the bucket is empty), nothing started", i, o.raw)
		}
	}
	if n := e.recordCount(); n != 1 {
		t.Fatalf("%d records; want the one submit's", n)
	}
	var list struct {
		Schedules []struct {
			Name         string `json:"name"`
			LastRecordID string `json:"last_record_id"`
			NextRunAt    time.Time
		} `json:"schedules"`
	}
	e.ok(&list, "schedule", "list")
	for _, s := range list.Schedules {
		if s.LastRecordID != "" {
			t.Errorf("schedule %s started %s", s.Name, s.LastRecordID)
		}
	}
}

// TestTickCostsOneTokenPerRunStarted: against --spawns-per-minute 3, a
// tick with five schedules due starts three and defers two (still due,
// not claimed), says which limit deferred them and when to retry, and the
// submit after it in the same request finds the bucket empty: the tick
// cost exactly what three submits cost.
func TestTickCostsOneTokenPerRunStarted(t *testing.T) {
	e := newEnv(t)
	c := e.dialStdio(nil, nil, "--spawns-per-minute", "3")
	fp := c.help("agent.submit").SchemaFingerprint
	var names []string
	for i := range 5 {
		names = append(names, fmt.Sprintf("s%d", i))
		c.must(nil, "schedule.add", addSchedule(names[i], "agent", "echo", "x")["args"].(map[string]any), "")
	}
	e.makeDue(names...)
	r := c.request(opsOf(tickOp, map[string]any{"op": "agent.submit", "fingerprint": fp, "args": map[string]any{"model": "echo", "prompt": "x"}}))
	var tick tickResult
	if !r.Results[0].OK || json.Unmarshal(r.Results[0].Result, &tick) != nil {
		t.Fatalf("tick: %s", r.Results[0].raw)
	}
	if len(tick.Started) != 3 || tick.Spent != 3 || len(tick.Deferred) != 2 || tick.LimitedBy != "rate_limited" || tick.RetryAfter < 1 || tick.RetryAfter > 20 {
		t.Fatalf("tick: %s; want 3 started, 2 deferred, limited_by rate_limited with retry_after", r.Results[0].Result)
	}
	if o := r.Results[1]; o.OK || o.Error.Code != "rate_limited" {
		t.Fatalf("submit after the tick: %s; want rate_limited (the tick took three tokens)", o.raw)
	}
	if n := e.recordCount(); n != 3 {
		t.Fatalf("%d records; want the three the tick started", n)
	}
	var show struct {
		Schedule struct {
			NextRunAt time.Time `json:"next_run_at"`
		} `json:"schedule"`
	}
	for _, d := range tick.Deferred {
		e.ok(&show, "schedule", "show", d.Schedule)
		if show.Schedule.NextRunAt.After(time.Now()) {
			t.Errorf("deferred %s is no longer due (next run %s): it was claimed", d.Schedule, show.Schedule.NextRunAt)
		}
	}
}

// TestTickHoldsLiveRuns is the second attack: with a policy of
// live_runs 2 the ticks still started 24 runs. Now a tick starts no more
// than the runs still allowed to be live, and once they are live the next
// tick is refused like a submit.
func TestTickHoldsLiveRuns(t *testing.T) {
	e := newEnv(t)
	pol := e.writeFile("policy.yaml", "version: 1\nlimits: {runs_per_minute: 100, live_runs: 2}\nrules:\n  - verbs: [\"*\"]\n    decision: allow\n")
	c := e.dialStdio(nil, nil, "--policy", pol, "--no-notify")
	var names []string
	for i := range 5 {
		names = append(names, fmt.Sprintf("s%d", i))
		c.must(nil, "schedule.add", addSchedule(names[i], "agent", "echo:delay=60s", "x")["args"].(map[string]any), "")
	}
	e.makeDue(names...)
	var tick tickResult
	c.must(&tick, "schedule.tick", map[string]any{}, "")
	if len(tick.Started) != 2 || len(tick.Deferred) != 3 || tick.LimitedBy != "live_runs" {
		t.Fatalf("tick: %+v; want 2 started and 3 deferred by live_runs", tick)
	}
	for _, s := range tick.Started {
		e.waitStarted(s.ID)
	}
	o := c.fail("policy_refused", "schedule.tick", map[string]any{}, "")
	if !strings.Contains(o.Error.Message, "allows 2 live runs") {
		t.Fatalf("second tick: %s; want the live_runs refusal", o.raw)
	}
	if n := e.recordCount(); n != 2 {
		t.Fatalf("%d records; want the two live runs", n)
	}
}

// TestSchedulesPerHomeAreCapped: a home keeps config.yaml's
// limits.schedules (default 32); one more is limit_reached naming the
// bound, through the server and the CLI alike, and nothing is stored.
func TestSchedulesPerHomeAreCapped(t *testing.T) {
	e := newEnv(t)
	e.writeFile("config.yaml", "limits: {schedules: 3}\n")
	c := e.dialStdio(nil, nil)
	for i := range 3 {
		c.must(nil, "schedule.add", addSchedule(fmt.Sprintf("s%d", i), "agent", "echo", "x")["args"].(map[string]any), "")
	}
	o := c.fail("cli_error", "schedule.add", addSchedule("s3", "agent", "echo", "x")["args"].(map[string]any), "")
	if o.Error.Details["code"] != "limit_reached" || !strings.Contains(o.Error.Message, "limits.schedules") {
		t.Fatalf("fourth schedule: %s; want limit_reached naming limits.schedules", o.raw)
	}
	r := e.fail("limit_reached", "schedule", "add", "s4", "--cron", "* * * * *", "--", "agent", "echo", "x")
	if !strings.Contains(r.Error.Message, "is 3") {
		t.Fatalf("CLI: %s", r.Error.Message)
	}
	var list struct {
		Schedules []json.RawMessage `json:"schedules"`
	}
	e.ok(&list, "schedule", "list")
	if len(list.Schedules) != 3 {
		t.Fatalf("%d schedules stored; want 3", len(list.Schedules))
	}
}

// TestDefaultScheduleCap: without config.yaml the cap is 32.
func TestDefaultScheduleCap(t *testing.T) {
	e := newEnv(t)
	for i := range 32 {
		e.ok(nil, "schedule", "add", fmt.Sprintf("s%02d", i), "--cron", "0 3 * * *", "--", "agent", "echo", "x")
	}
	e.fail("limit_reached", "schedule", "add", "s32", "--cron", "0 3 * * *", "--", "agent", "echo", "x")
}

// TestFrontTickTakesASpawnToken: through the shipped YAML front
// (schedule.tick marked spawns: true) a tick op takes a token of the spawn
// bucket, so against a policy of runs_per_minute 1 the submit after it is
// rate_limited. Before the mark the tick cost nothing.
func TestFrontTickTakesASpawnToken(t *testing.T) {
	e := newEnv(t)
	pol := e.writeFile("policy.yaml", "version: 1\nlimits: {runs_per_minute: 1}\nrules:\n  - verbs: [\"*\"]\n    decision: allow\n")
	f := startFront(t, e, "policy: "+pol+"\n")
	fp := f.help("agent.submit").SchemaFingerprint
	r := f.request(opsOf(tickOp, map[string]any{"op": "agent.submit", "fingerprint": fp, "args": map[string]any{"model": "echo", "prompt": "x"}}))
	if !r.Results[0].OK {
		t.Fatalf("tick: %s", r.Results[0].raw)
	}
	if o := r.Results[1]; o.OK || o.Error.Code != "rate_limited" {
		t.Fatalf("submit after a tick: %s; want rate_limited (the tick took the one token)", o.raw)
	}
	if o := f.op("schedule.tick", map[string]any{}, ""); o.OK || o.Error.Code != "rate_limited" {
		t.Fatalf("a second tick: %s; want rate_limited", o.raw)
	}
}

// TestFrontTickStartsOneScheduleAnOp: through the shipped YAML front, a
// tick op pays one spawn token and starts at most one stored command (its
// fixed --spawn-budget=1, which no caller sees), leaving the other due
// schedules due: three due schedules take three tick ops, and so three
// tokens, as three submits would. Before, one tick op started all three
// for one token.
func TestFrontTickStartsOneScheduleAnOp(t *testing.T) {
	e := newEnv(t)
	f := startFront(t, e, "")
	names := []string{"a", "b", "c"}
	for _, n := range names {
		if o := f.request(opsOf(addSchedule(n, "agent", "echo", "x"))).Results[0]; !o.OK {
			t.Fatalf("schedule.add %s: %s", n, o.raw)
		}
	}
	e.makeDue(names...)
	if _, ok := f.help("schedule.tick").Schema.Properties["spawn_budget"]; ok {
		t.Fatal("the front's schedule.tick offers spawn_budget")
	}
	started := map[string]bool{}
	for i := range len(names) {
		o := f.op("schedule.tick", map[string]any{}, "")
		if !o.OK {
			t.Fatalf("tick %d: %s", i, o.raw)
		}
		var tr tickResult
		if err := json.Unmarshal(o.Result, &tr); err != nil {
			t.Fatalf("tick %d: %v in %s", i, err, o.raw)
		}
		if len(tr.Started) != 1 || tr.Started[0].ID == "" || len(tr.Deferred) != len(names)-1-i {
			t.Fatalf("tick %d started %d and deferred %d: %s; want one started, %d deferred", i, len(tr.Started), len(tr.Deferred), o.raw, len(names)-1-i)
		}
		started[tr.Started[0].Schedule] = true
	}
	if len(started) != len(names) {
		t.Fatalf("the ticks started %v; want each of %v once", started, names)
	}
	if n := e.recordCount(); n != len(names) {
		t.Fatalf("%d records; want %d (one run a schedule)", n, len(names))
	}
}
