//go:build unix

package main

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/verbsurface/verbsurface/examples/limcp/internal/store"
	"github.com/verbsurface/verbsurface/wait"
)

func TestIDsResolveByUniquePrefixOnly(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	st := e.store()
	for _, id := range []string{"abcdef0000000001", "abcdef0000000002", "1234567800000003"} {
		if _, err := st.Create(context.Background(), store.CreateOptions{}, store.NewRecord{ID: id, Kind: store.KindInvocation}); err != nil {
			t.Fatal(err)
		}
	}
	if r := e.status("12345678"); r.ID != "1234567800000003" {
		t.Fatalf("unique prefix resolved to %s", r.ID)
	}
	for _, cmd := range [][]string{{"job", "status"}, {"job", "output"}, {"kill"}} {
		r := e.fail("ambiguous_id", append(cmd, "abcdef00")...)
		var d struct {
			ID         string   `json:"id"`
			Candidates []string `json:"candidates"`
		}
		json.Unmarshal(r.Error.Details, &d)
		if d.ID != "abcdef00" || !cmp.Equal(d.Candidates, []string{"abcdef0000000001", "abcdef0000000002"}) {
			t.Fatalf("%v: details %s; want both candidates", cmd, r.Error.Details)
		}
		e.fail("unknown_id", append(cmd, "ffffffffffff")...)
		e.fail("unknown_id", append(cmd, "1234567")...) // unique, but shorter than 8
	}
	// Observe reports per-id errors and still observes the rest.
	var obs struct {
		Observations []wait.Observation `json:"observations"`
	}
	e.ok(&obs, "job", "observe", "abcdef00", "12345678", "ffffffffffff")
	codes := []string{}
	for _, o := range obs.Observations {
		if o.Error != nil {
			codes = append(codes, o.Error.Code)
		} else {
			codes = append(codes, o.Kind)
		}
	}
	if d := cmp.Diff([]string{"ambiguous_id", "invocation", "unknown_id"}, codes); d != "" {
		t.Fatalf("observations (-want +got):\n%s", d)
	}
	if obs.Observations[0].ID != "abcdef00" {
		t.Fatalf("observation ids are not as given: %q", obs.Observations[0].ID)
	}
}

func TestStoreThatIsNotADatabase(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	path := e.writeFile("state.db", strings.Repeat("not a database\n", 20))
	for _, args := range [][]string{{"job", "list"}, {"agent", "echo", "hi"}, {"state", "doctor"}} {
		r := e.fail("store_corrupt", args...)
		if !strings.Contains(r.Error.Message, path) {
			t.Fatalf("%v: message %q does not name the file", args, r.Error.Message)
		}
	}
	if b, _ := os.ReadFile(path); !strings.HasPrefix(string(b), "not a database") {
		t.Fatal("the corrupt file was overwritten")
	}
	if _, err := os.Stat(filepath.Join(e.home, "runs")); err == nil {
		entries, _ := os.ReadDir(filepath.Join(e.home, "runs"))
		if len(entries) > 0 {
			t.Fatalf("a submit against a corrupt store left run directories: %v", entries)
		}
	}
}

func TestOutdatedStoreAsksForMigrate(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	if err := store.CreateAt(context.Background(), filepath.Join(e.home, "state.db"), 1); err != nil {
		t.Fatal(err)
	}
	r := e.fail("schema_outdated", "job", "list")
	if !strings.Contains(r.Error.Message, "state migrate") {
		t.Fatalf("message %q does not say what to do", r.Error.Message)
	}
	var m struct{ From, To int }
	e.ok(&m, "state", "migrate")
	if m.From != 1 || m.To != store.CurrentVersion {
		t.Fatalf("migrate = %+v", m)
	}
	e.ok(nil, "job", "list")
	e.ok(nil, "plugin", "trust", "after-migrate") // uses the table version 2 added
}

// TestWorkerKilledMidRun: a worker killed with SIGKILL leaves a started
// record with no end; it reads as stopped_without_end until the next
// observer reaps it (run.failed.process_gone) with one transition.
func TestWorkerKilledMidRun(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	s := e.submit("agent", "echo:delay=60s", "long")
	e.vanish(s.ID)
	e.assertNoProcesses(5 * time.Second)
	if r := e.status(s.ID); r.Status != "running" {
		t.Fatalf("job status must not reap; record is %s", r.Status)
	}
	// What the record is before anyone reaps it: started, process gone,
	// no end — the wait partition's stopped_without_end.
	var mon struct {
		Running []struct {
			ID      string `json:"id"`
			Process string `json:"process"`
		} `json:"running"`
	}
	e.ok(&mon, "monitor")
	if len(mon.Running) != 1 || mon.Running[0].Process != "gone" {
		t.Fatalf("monitor = %+v; want the run with its process gone", mon)
	}
	before := wait.Observation{ID: s.ID, Status: "running", Phase: wait.PhaseStarted, Process: wait.EvidenceGone}
	if c := wait.Classify(before, time.Now(), wait.DefaultPreparingThreshold); c != wait.ClassStoppedWithoutEnd {
		t.Fatalf("classified %s", c)
	}
	var obs struct {
		Observations []wait.Observation `json:"observations"`
	}
	e.ok(&obs, "job", "observe", s.ID)
	o := obs.Observations[0]
	if !o.Terminal || o.Status != "failed" || o.ReasonCode != "run.failed.process_gone" || o.Process != wait.EvidenceGone || o.PublishFailed {
		t.Fatalf("observation after the reap = %+v", o)
	}
	var w wait.Result
	e.ok(&w, "job", "wait", s.ID, "--max-wait-seconds", "0")
	if !w.AllTerminal || w.Entries[0].Outcome != wait.OutcomeFailed {
		t.Fatalf("wait after the reap = %+v", w)
	}
}

// Test64ConcurrentObservers: 64 observer processes race to reap the same
// vanished run; exactly one transition row is written.
func Test64ConcurrentObservers(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	s := e.submit("agent", "echo:delay=60s", "long")
	e.vanish(s.ID)
	e.assertNoProcesses(5 * time.Second)
	var wg sync.WaitGroup
	results := make([]result, 64)
	for i := range results {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			results[i] = e.machine("job", "observe", s.ID)
		}(i)
	}
	wg.Wait()
	for i, res := range results {
		var obs struct {
			Observations []wait.Observation `json:"observations"`
		}
		if !res.OK || json.Unmarshal(res.Data, &obs) != nil || !obs.Observations[0].Terminal || obs.Observations[0].ReasonCode != "run.failed.process_gone" {
			t.Fatalf("observer %d saw %s", i, res.Data)
		}
	}
	rows, err := e.store().Audit(context.Background(), s.ID)
	if err != nil {
		t.Fatal(err)
	}
	reaps := 0
	for _, row := range rows {
		if row.ToStatus == store.StatusFailed {
			reaps++
			if row.Actor != "observer" || row.ReasonCode != "run.failed.process_gone" {
				t.Fatalf("reap row = %+v", row)
			}
		}
	}
	if reaps != 1 || len(rows) != 3 {
		t.Fatalf("%d reap rows, %d rows in all; want exactly one reap after creation and start: %+v", reaps, len(rows), rows)
	}
}

// Test50ConcurrentSubmits: every submit is recorded and runs; none is lost.
func Test50ConcurrentSubmits(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	var wg sync.WaitGroup
	ids := make([]string, 50)
	for i := range ids {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			var s submitted
			e.ok(&s, "agent", "echo", "submit "+string(rune('A'+i%26)))
			ids[i] = s.ID
		}(i)
	}
	wg.Wait()
	seen := map[string]bool{}
	for _, id := range ids {
		if id == "" || seen[id] {
			t.Fatalf("missing or duplicate id %q", id)
		}
		seen[id] = true
	}
	var w wait.Result
	e.ok(&w, append([]string{"job", "wait", "--max-wait-seconds", "60", "--poll-interval-seconds", "0.2"}, ids...)...)
	if !w.AllTerminal {
		t.Fatalf("not all ended: pending %v, stopped %v, unresolved %v", w.Pending, w.StoppedWithoutEnd, w.UnresolvedSpawn)
	}
	for _, en := range w.Entries {
		if en.Status != "completed" {
			t.Fatalf("%s ended %s (%s)", en.ID, en.Status, en.ReasonCode)
		}
	}
	var page struct {
		Records []record `json:"records"`
	}
	e.ok(&page, "job", "list", "--limit", "100")
	if len(page.Records) != 50 {
		t.Fatalf("job list has %d records; want 50", len(page.Records))
	}
}

func TestProviderErrors(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.writeFile("providers.yaml", "providers:\n  - name: ghost\n    argv: [\"/nonexistent/bin/agent\", \"{model}\"]\n")
	r := e.fail("provider_not_found", "agent", "ghost:big", "hi")
	if !strings.Contains(string(r.Error.Details), "/nonexistent/bin/agent") {
		t.Fatalf("details %s do not name the command", r.Error.Details)
	}
	if p, _ := e.store().List(context.Background(), store.ListQuery{}); len(p.Records) != 0 {
		t.Fatalf("a refused submit left %d records", len(p.Records))
	}
	e.writeFile("providers.yaml", "providers:\n  - name: bad\n    argv: [\"x\", \"{nope}\"]\n")
	r = e.fail("invalid_provider_config", "agent", "bad", "hi")
	if !strings.Contains(string(r.Error.Details), "providers[0].argv[1]") {
		t.Fatalf("details %s do not name the field", r.Error.Details)
	}
}
