//go:build unix

package main

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/verbsurface/verbsurface/internal/procid"
	"github.com/verbsurface/verbsurface/internal/runs"
	"github.com/verbsurface/verbsurface/wait"
)

// bgFront builds, in this process, the background fixture's front with
// its state in a directory of the test's own.
// files are more files for the configuration's directory, name then
// content.
func bgFront(t testing.TB, extra string, files ...string) *front {
	t.Helper()
	return bgFrontSupervised(t, vsBin, extra, files...)
}

// bgFrontSupervised is bgFront with its runs' supervisor the program exe
// (given `__supervise-run DIR ID`), in place of the verbsurface built.
func bgFrontSupervised(t testing.TB, exe, extra string, files ...string) *front {
	t.Helper()
	state := t.TempDir()
	t.Setenv("XDG_STATE_HOME", state)
	supervisorExe = func() (string, error) { return exe, nil }
	b, err := os.ReadFile(filepath.Join("testdata", "background", "front.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	p := filepath.Join(dir, "front.yaml")
	if err := os.WriteFile(p, append(b, extra...), 0o644); err != nil {
		t.Fatal(err)
	}
	for i := 0; i+1 < len(files); i += 2 {
		if err := os.WriteFile(filepath.Join(dir, files[i]), []byte(files[i+1]), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	cfg, err := LoadConfig(p)
	if err != nil {
		t.Fatal(err)
	}
	f, err := newFront(cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.bg.Close() })
	settleRuns(t, frontRunsDir(state, cfg.Name))
	return f
}

// groupMembers is the number of live processes in group pgid.
func groupMembers(pgid int) int {
	sizes, _ := procid.GroupSizes()
	return sizes[pgid]
}

// bgStore opens the store of f's background runs, as a supervisor does,
// closed when the test ends.
func bgStore(t testing.TB, f *front) runs.Store {
	t.Helper()
	st, err := runs.Open(context.Background(), f.bg.Dir())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return st
}

// handle answers one request through the front's surface.
func (f *front) handleJSON(t testing.TB, req string) map[string]any {
	t.Helper()
	var out map[string]any
	if err := json.Unmarshal(f.surface.Handle(context.Background(), json.RawMessage(req), nil).JSON(), &out); err != nil {
		t.Fatal(err)
	}
	return out
}

func firstResult(r map[string]any) map[string]any {
	return r["results"].([]any)[0].(map[string]any)
}

func (f *front) fingerprint(t testing.TB, verb string) string {
	t.Helper()
	h := f.handleJSON(t, `{"help":"`+verb+`"}`)["help"].(map[string]any)
	return h["schema_fingerprint"].(string)
}

func jsonString(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

// A background op answers at once with a run id; job.wait sees it end;
// job.output gives, once it has ended, exactly the result the same op
// gives in the foreground.
func TestBackgroundResultIsTheForegroundResult(t *testing.T) {
	f := bgFront(t, "")
	script := `echo one; echo two >&2; exit 1`
	fp := f.fingerprint(t, "sh.run")
	start := firstResult(f.handleJSON(t, `{"ops":[{"op":"sh.run","fingerprint":"`+fp+`","args":{"script":`+jsonString(script)+`}}]}`))
	if start["ok"] != true {
		t.Fatalf("start: %v", start)
	}
	data, _ := start["result"].(map[string]any)
	id, _ := data["run_id"].(string)
	if id == "" || data["background"] != true || data["output"] != "text" {
		t.Fatalf("start: %v", start)
	}
	w := firstResult(f.handleJSON(t, `{"ops":[{"op":"job.wait","args":{"ids":["`+id+`"],"max_wait_seconds":60}}]}`))
	wd, _ := w["result"].(map[string]any)
	if wd == nil || wd["all_terminal"] != true {
		t.Fatalf("wait: %v", w)
	}
	out, _ := firstResult(f.handleJSON(t, `{"ops":[{"op":"job.output","args":{"id":"`+id+`"}}]}`))["result"].(map[string]any)
	now := firstResult(f.handleJSON(t, `{"ops":[{"op":"sh.now","fingerprint":"`+f.fingerprint(t, "sh.now")+`","args":{"script":`+jsonString(script)+`}}]}`))
	if out["data"] != "one\n" || out["ended"] != true || out["eof"] != true {
		t.Fatalf("output: %v", out)
	}
	want := map[string]any{"ok": true, "result": now["result"]}
	if jsonString(out["result"]) != jsonString(want) {
		t.Fatalf("background result %s\nforeground       %s", jsonString(out["result"]), jsonString(want))
	}
}

// startRun starts script through sh.run and returns its run id.
func (f *front) startRun(t testing.TB, script string) string {
	t.Helper()
	r := firstResult(f.handleJSON(t, `{"ops":[{"op":"sh.run","fingerprint":"`+f.fingerprint(t, "sh.run")+`","args":{"script":`+jsonString(script)+`}}]}`))
	data, _ := r["result"].(map[string]any)
	id, _ := data["run_id"].(string)
	if id == "" {
		t.Fatalf("start: %v", r)
	}
	return id
}

// op runs one op and returns its result object.
func (f *front) op(t testing.TB, op string) map[string]any {
	t.Helper()
	return firstResult(f.handleJSON(t, `{"ops":[`+op+`]}`))
}

// started waits (through job.status) until run id has recorded its start.
func (f *front) started(t *testing.T, id string) runs.Record {
	t.Helper()
	st := bgStore(t, f)
	for range 600 {
		rec, err := st.Get(context.Background(), id)
		if err != nil {
			t.Fatal(err)
		}
		if rec.Phase == runs.PhaseStarted {
			return rec
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Fatalf("run %s never started", id)
	return runs.Record{}
}

// A background op is gated like a foreground spawn: no fingerprint, no
// run; a dry run says it would start in the background and starts
// nothing; the spawn limit counts it.
func TestBackgroundGates(t *testing.T) {
	f := bgFront(t, "policy: policy.yaml\n", "policy.yaml", "version: 1\ndefault: allow\nlimits: {runs_per_minute: 1}\n")
	st := bgStore(t, f)
	count := func() int {
		n, err := st.List(context.Background(), runs.ListOptions{})
		if err != nil {
			t.Fatal(err)
		}
		return len(n)
	}
	if r := f.op(t, `{"op":"sh.run","args":{"script":"true"}}`); code(r) != "missing_fingerprint" {
		t.Fatalf("no fingerprint: %v", r)
	}
	fp := f.fingerprint(t, "sh.run")
	dry := f.op(t, `{"op":"sh.run","fingerprint":"`+fp+`","dry_run":true,"args":{"script":"touch x"}}`)
	res, _ := dry["result"].(map[string]any)
	if res == nil || res["runs"] != "background" || res["dry_run"] != true {
		t.Fatalf("dry run: %v", dry)
	}
	if n := count(); n != 0 {
		t.Fatalf("a dry run recorded %d runs", n)
	}
	if r := f.op(t, `{"op":"sh.run","fingerprint":"`+fp+`","args":{"script":"true"}}`); r["ok"] != true {
		t.Fatalf("first: %v", r)
	}
	if r := f.op(t, `{"op":"sh.run","fingerprint":"`+fp+`","args":{"script":"true"}}`); code(r) != "rate_limited" {
		t.Fatalf("second within the minute: %v", r)
	}
	if n := count(); n != 1 {
		t.Fatalf("%d runs recorded, want 1", n)
	}
}

// The policy's live_runs limits the front's live background runs: a
// start while that many are live is refused and records nothing; once one
// ends, the next starts.
func TestBackgroundLiveRunsLimit(t *testing.T) {
	f := bgFront(t, "policy: policy.yaml\n", "policy.yaml", "version: 1\ndefault: allow\nlimits: {live_runs: 1}\n")
	fp := f.fingerprint(t, "sh.run")
	id := f.startRun(t, "sleep 300")
	r := f.op(t, `{"op":"sh.run","fingerprint":"`+fp+`","args":{"script":"true"}}`)
	if code(r) != "policy_refused" {
		t.Fatalf("second live run: %v", r)
	}
	if n, _ := f.bg.CountLive(context.Background()); n != 1 {
		t.Fatalf("%d live runs, want 1", n)
	}
	if k := f.op(t, `{"op":"job.kill","args":{"id":"`+id+`","grace":"1s"}}`); k["ok"] != true {
		t.Fatalf("kill: %v", k)
	}
	f.op(t, `{"op":"job.wait","args":{"ids":["`+id+`"],"max_wait_seconds":30}}`)
	if r := f.op(t, `{"op":"sh.run","fingerprint":"`+fp+`","args":{"script":"true"}}`); r["ok"] != true {
		t.Fatalf("after the first ended: %v", r)
	}
}

// job.kill stops the run's whole process group, children included, after
// checking its leader; the end is recorded cancelled by the supervisor;
// a second kill of the ended run signals nothing.
func TestBackgroundKillLeavesNoProcess(t *testing.T) {
	f := bgFront(t, "")
	id := f.startRun(t, "sleep 300 & sleep 300 & echo started; wait")
	rec := f.started(t, id)
	// Both children are in the run's group before the kill.
	for range 200 {
		if groupMembers(rec.Process.PID) >= 3 {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	if n := groupMembers(rec.Process.PID); n < 3 {
		t.Fatalf("the run's group has %d members, want the shell and two sleeps", n)
	}
	k := f.op(t, `{"op":"job.kill","args":{"id":"`+id+`","grace":"2s"}}`)
	res, _ := k["result"].(map[string]any)
	if k["ok"] != true || res["signalled"] != true {
		t.Fatalf("kill: %v", k)
	}
	if n := groupMembers(rec.Process.PID); n != 0 {
		t.Fatalf("%d processes of the run's group survived the kill", n)
	}
	w := f.op(t, `{"op":"job.wait","args":{"ids":["`+id+`"],"max_wait_seconds":30}}`)
	entry := w["result"].(map[string]any)["entries"].([]any)[0].(map[string]any)
	if entry["status"] != "cancelled" || entry["outcome"] != "cancelled" {
		t.Fatalf("after kill: %v", entry)
	}
	again := f.op(t, `{"op":"job.kill","args":{"id":"`+id+`"}}`)
	if res, _ := again["result"].(map[string]any); again["ok"] != true || res["signalled"] != false {
		t.Fatalf("kill of an ended run: %v", again)
	}
	out := f.op(t, `{"op":"job.output","args":{"id":"`+id+`"}}`)["result"].(map[string]any)
	if r := out["result"].(map[string]any); r["ok"] != false || r["error"].(map[string]any)["code"] != "cancelled" {
		t.Fatalf("result of a killed run: %v", out)
	}
}

// A caller follows a run's output by offset while it runs: every chunk
// continues where the last ended, and together they are the whole output.
func TestBackgroundOutputFollowedByOffset(t *testing.T) {
	f := bgFront(t, "")
	id := f.startRun(t, `i=0; while [ $i -lt 40 ]; do echo "line $i é"; i=$((i+1)); sleep 0.05; done`)
	var got string
	offset := 0.0
	sawRunning := false
	for deadline := time.Now().Add(60 * time.Second); time.Now().Before(deadline); time.Sleep(5 * time.Millisecond) {
		out := f.op(t, `{"op":"job.output","args":{"id":"`+id+`","offset":`+jsonString(offset)+`,"length":7}}`)["result"].(map[string]any)
		if out["offset"].(float64) != offset {
			t.Fatalf("chunk at %v, asked %v", out["offset"], offset)
		}
		got += out["data"].(string)
		offset = out["next_offset"].(float64)
		if out["ended"] != true {
			sawRunning = true
		}
		if out["eof"] == true {
			break
		}
	}
	var want string
	for i := range 40 {
		want += "line " + jsonNum(i) + " é\n"
	}
	if got != want {
		t.Fatalf("followed output:\n%q\nwant\n%q", got, want)
	}
	if !sawRunning {
		t.Fatal("the output was never read while the run ran")
	}
}

func jsonNum(i int) string { return jsonString(i) }

// A run whose process and supervisor vanished with no end recorded is
// stopped_without_end to the observation that finds it, which records it
// aborted with one compare-and-set: however many observe at once, the
// audit has one reap, and every later observation finds it ended.
func TestBackgroundVanishedRunReapedOnce(t *testing.T) {
	f := bgFront(t, "")
	id := f.startRun(t, "sleep 300")
	rec := f.started(t, id)
	if err := syscall.Kill(rec.Supervisor.PID, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	for procid.Check(procid.Identity{PID: rec.Supervisor.PID, StartTime: rec.Supervisor.StartTime}) == procid.Alive {
		time.Sleep(10 * time.Millisecond)
	}
	if err := syscall.Kill(-rec.Process.PID, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	for procid.Check(procid.Identity{PID: rec.Process.PID, StartTime: rec.Process.StartTime}) == procid.Alive {
		time.Sleep(10 * time.Millisecond)
	}
	const observers = 8
	classes := make(chan wait.Class, observers)
	var wg sync.WaitGroup
	for range observers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			obs, err := f.bg.Observe(context.Background(), []string{id})
			if err != nil {
				t.Error(err)
				return
			}
			classes <- wait.Classify(obs[0], time.Now(), wait.DefaultPreparingThreshold)
		}()
	}
	wg.Wait()
	close(classes)
	sawStopped := false
	for c := range classes {
		switch c {
		case wait.ClassStoppedWithoutEnd:
			sawStopped = true
		case wait.ClassTerminal:
		default:
			t.Fatalf("an observer classed the vanished run %s", c)
		}
	}
	if !sawStopped {
		t.Fatal("no observer reported the vanished run stopped_without_end")
	}
	audit, err := bgStore(t, f).(*runs.SQLite).Audit(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	reaps := 0
	for _, a := range audit {
		if a.To == runs.StatusAborted {
			reaps++
		}
	}
	if reaps != 1 {
		t.Fatalf("%d reaps recorded, want 1: %+v", reaps, audit)
	}
	st := f.op(t, `{"op":"job.status","args":{"id":"`+id+`"}}`)["result"].(map[string]any)
	if st["class"] != "terminal" || st["run"].(map[string]any)["status"] != "aborted" {
		t.Fatalf("status after the reap: %v", st)
	}
}

// Bad input to the job verbs is invalid_args naming the parameter, and
// changes nothing.
func TestBackgroundJobVerbsRefuseBadInput(t *testing.T) {
	f := bgFront(t, "")
	many := make([]string, 257)
	for i := range many {
		many[i] = jsonNum(i)
	}
	tests := []struct{ name, op, param string }{
		{"wait_no_ids", `{"op":"job.wait","args":{"ids":[]}}`, "ids"},
		{"wait_too_many_ids", `{"op":"job.wait","args":{"ids":` + jsonString(many) + `}}`, "ids"},
		{"wait_negative_window", `{"op":"job.wait","args":{"ids":["r-1"],"max_wait_seconds":-1}}`, "max_wait_seconds"},
		{"status_unknown_id", `{"op":"job.status","args":{"id":"r-nope"}}`, "id"},
		{"output_unknown_id", `{"op":"job.output","args":{"id":"r-nope"}}`, "id"},
		{"output_bad_stream", `{"op":"job.output","args":{"id":"r-1","stream":"stdin"}}`, "stream"},
		{"output_negative_offset", `{"op":"job.output","args":{"id":"r-1","offset":-5}}`, "offset"},
		{"output_length_over_cap", `{"op":"job.output","args":{"id":"r-1","length":1048577}}`, "length"},
		{"kill_unknown_id", `{"op":"job.kill","args":{"id":"r-nope"}}`, "id"},
		{"kill_bad_grace", `{"op":"job.kill","args":{"id":"r-1","grace":"forever"}}`, "grace"},
		{"list_unknown_param", `{"op":"job.list","args":{"all":true}}`, "all"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := f.op(t, tt.op)
			if code(r) != "invalid_args" {
				t.Fatalf("%v", r)
			}
			probs, _ := r["error"].(map[string]any)["problems"].([]any)
			if len(probs) == 0 || probs[0].(map[string]any)["param"] != tt.param {
				t.Fatalf("problems %v, want one on %q", probs, tt.param)
			}
		})
	}
	if n, _ := bgStore(t, f).List(context.Background(), runs.ListOptions{}); len(n) != 0 {
		t.Fatalf("bad input recorded %d runs", len(n))
	}
}

// background: true on a verb of another class is a configuration error:
// a verb that starts runs is a spawn verb.
func TestBackgroundNeedsSpawnClass(t *testing.T) {
	p := filepath.Join(t.TempDir(), "front.yaml")
	body := strings.Replace(readFile(t, bgConfig), "{name: sh.run, path: [], class: spawn,", "{name: sh.run, path: [], class: observe,", 1)
	writeFile(t, p, body)
	_, err := LoadConfig(p)
	if err == nil || !strings.Contains(err.Error(), "background verb starts runs, so its class must be spawn") {
		t.Fatalf("err = %v", err)
	}
}

// settleRuns waits, when the test ends, until every run in the store in
// dir has ended and its supervisor has exited, so that no supervisor
// still writes into a directory the test is removing.
func settleRuns(t testing.TB, dir string) {
	t.Helper()
	t.Cleanup(func() {
		if _, err := os.Stat(filepath.Join(dir, runs.StoreFile)); err != nil {
			return // no run was ever started
		}
		st, err := runs.Open(context.Background(), dir)
		if err != nil {
			t.Error(err)
			return
		}
		defer st.Close()
		all, err := st.List(context.Background(), runs.ListOptions{})
		if err != nil {
			t.Error(err)
			return
		}
		deadline := time.Now().Add(2 * time.Minute)
		for _, r := range all {
			for time.Now().Before(deadline) {
				cur, err := st.Get(context.Background(), r.ID)
				if err == nil && cur.Terminal() && (cur.Supervisor.PID == 0 ||
					procid.Check(procid.Identity{PID: cur.Supervisor.PID, StartTime: cur.Supervisor.StartTime}) != procid.Alive) {
					break
				}
				time.Sleep(20 * time.Millisecond)
			}
		}
	})
}

// frontRunsDir is where the front named name keeps its runs under the
// state directory state.
func frontRunsDir(state, name string) string {
	return filepath.Join(state, "verbsurface", name, runsDirName)
}
