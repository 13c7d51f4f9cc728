//go:build unix

package background

import (
	"context"
	"database/sql"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/verbsurface/verbsurface/internal/procid"
	"github.com/verbsurface/verbsurface/internal/runs"
	"github.com/verbsurface/verbsurface/verbsurface"
	"github.com/verbsurface/verbsurface/wait"
)

// The hidden subcommands of this test binary that stand in for a
// supervisor that dies before it records the start: it never records
// anything and waits to be killed, with nothing started, or (the second)
// after it has started a program in its session as Supervise does.
const (
	stalledSupervisorArg = "__supervise-stalled"
	stalledAfterStartArg = stalledSupervisorArg + "-started"
)

func stalledSupervisor(arg string) {
	if arg == stalledAfterStartArg {
		cmd := exec.Command("/bin/sleep", "300")
		cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
		if err := cmd.Start(); err != nil {
			os.Exit(2)
		}
	}
	time.Sleep(time.Hour)
	os.Exit(0)
}

// killSession kills every live process of session sid and waits until
// none is left (the test's cleanup, and the end of a program orphaned in
// the session of a dead supervisor).
func killSession(t testing.TB, sid int) {
	t.Helper()
	for range 3000 {
		live, err := procid.Live()
		if err != nil {
			t.Fatal(err)
		}
		n := 0
		for _, st := range live {
			if one, err := procid.ReadStat(st.PID); err == nil && one.SID == sid {
				n++
				_ = syscall.Kill(st.PID, syscall.SIGKILL)
			}
		}
		if n == 0 {
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatalf("session %d never emptied", sid)
}

// killSupervisor kills the supervisor sup with SIGKILL and waits until
// the process table shows it gone.
func killSupervisor(t testing.TB, sup runs.Identity) {
	t.Helper()
	id := procid.Identity{PID: sup.PID, StartTime: sup.StartTime}
	if procid.Check(id) == procid.Alive {
		if err := syscall.Kill(sup.PID, syscall.SIGKILL); err != nil {
			t.Fatal(err)
		}
	}
	for procid.Check(id) == procid.Alive {
		time.Sleep(10 * time.Millisecond)
	}
}

// startStalled starts a run of b's verb v for subject alice, whose
// supervisor stalls before it records the start, and returns the run as
// the server recorded it. The supervisor's session is killed when the
// test ends.
func startStalled(t *testing.T, b *Runs, v verbsurface.Runner) runs.Record {
	t.Helper()
	if _, err := v.Run(context.WithValue(context.Background(), testSubject{}, "alice"), []string{"echo never"}); err != nil {
		t.Fatal(err)
	}
	recs, err := b.store.List(context.Background(), runs.ListOptions{Limit: 1})
	if err != nil || len(recs) != 1 {
		t.Fatalf("runs after a start: %v, %v", recs, err)
	}
	rec := recs[0]
	if rec.Supervisor.PID > 0 {
		t.Cleanup(func() { killSession(t, rec.Supervisor.PID) })
	}
	return rec
}

// callJSON calls a job verb's handler and returns its result as JSON
// decodes it.
func callJSON(t testing.TB, h verbsurface.Handler, args map[string]any) map[string]any {
	t.Helper()
	res, err := h(context.Background(), &verbsurface.Call{Args: args, Progress: func(context.Context, float64, float64, string) {}})
	if err != nil {
		t.Fatal(err)
	}
	b, err := json.Marshal(res)
	if err != nil {
		t.Fatal(err)
	}
	var out map[string]any
	if err := json.Unmarshal(b, &out); err != nil {
		t.Fatal(err)
	}
	return out
}

// withSubjects makes a start's subject the testSubject of its context.
func withSubjects(t *testing.T) {
	prev := callerSubject
	callerSubject = func(ctx context.Context) string { s, _ := ctx.Value(testSubject{}).(string); return s }
	t.Cleanup(func() { callerSubject = prev })
}

// A run whose supervisor is killed (SIGKILL) before it records the start
// is not preparing for ever: the server recorded the supervisor's
// identity as it started it, so the observations that find it gone reap
// it, once, however many observe at once (job.status and job.wait alike),
// and report it aborted; the live counts, in all and of its subject, drop.
func TestSupervisorKilledBeforeStartIsReaped(t *testing.T) {
	withSubjects(t)
	b := openSupervised(t, stalledSupervisorArg)
	v := shVerb(t, b, "sh.run")
	b.LimitLive(0, 1, &verbsurface.Options{})
	ctx := context.Background()
	rec := startStalled(t, b, v)
	want, err := procid.Of(rec.Supervisor.PID)
	if err != nil || rec.Status != runs.StatusPreparing || rec.Supervisor != (runs.Identity{PID: want.PID, StartTime: want.StartTime}) {
		t.Fatalf("run as the server left it: %+v (%v); want preparing with its supervisor %+v recorded", rec, err, want)
	}
	// While the supervisor lives the run is left alone, and counted.
	st := callJSON(t, b.status, map[string]any{"id": rec.ID})
	if st["class"] != string(wait.ClassPending) || st["process"] != string(wait.EvidenceAlive) {
		t.Fatalf("status with the supervisor alive: %v; want pending, alive", st)
	}
	if full, _ := b.liveLimitReached(ctx, "alice"); full == "" {
		t.Fatal("alice's preparing run is not counted against her limit")
	}

	killSupervisor(t, rec.Supervisor)
	const observers = 8
	results := make([]map[string]any, observers)
	var wg sync.WaitGroup
	for i := range observers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if i%2 == 0 {
				results[i] = callJSON(t, b.status, map[string]any{"id": rec.ID})
			} else {
				results[i] = callJSON(t, b.wait, map[string]any{"ids": []any{rec.ID}, "max_wait_seconds": float64(60)})
			}
		}()
	}
	wg.Wait()
	for i, r := range results {
		if i%2 == 0 {
			run := r["run"].(map[string]any)
			if r["class"] != string(wait.ClassTerminal) || run["status"] != string(runs.StatusAborted) || run["reason_code"] != reasonSupervisorGone {
				t.Errorf("job.status %d: %v; want terminal, aborted (%s)", i, r, reasonSupervisorGone)
			}
		} else {
			e := r["entries"].([]any)[0].(map[string]any)
			if r["all_terminal"] != true || e["status"] != string(runs.StatusAborted) || e["reason_code"] != reasonSupervisorGone {
				t.Errorf("job.wait %d: %v; want all terminal, aborted (%s)", i, r, reasonSupervisorGone)
			}
		}
	}
	audit, err := b.store.(*runs.SQLite).Audit(ctx, rec.ID)
	if err != nil || len(audit) != 1 || audit[0].To != runs.StatusAborted || audit[0].Actor != "observer" {
		t.Fatalf("audit %+v, %v; want exactly one reap, by an observer", audit, err)
	}
	out := callJSON(t, b.output, map[string]any{"id": rec.ID})
	if e, _ := out["result"].(map[string]any)["error"].(map[string]any); e == nil || e["code"] != "process_gone" {
		t.Fatalf("job.output of the reaped run: %v; want its result an error", out)
	}
	for _, subject := range []string{"", "alice"} {
		if n, err := b.store.CountLive(ctx, subject); err != nil || n != 0 {
			t.Errorf("CountLive(%q) after the reap: %d, %v; want 0", subject, n, err)
		}
	}
	if full, err := b.liveLimitReached(ctx, "alice"); full != "" || err != nil {
		t.Fatalf("alice after the reap: %q, %v; want a free slot", full, err)
	}
}

// A supervisor that started the program and died before it recorded it
// leaves the program in its session: the run is possibly orphaned, not
// reaped, until the session is empty.
func TestSupervisorGoneWithProgramLeftIsNotReaped(t *testing.T) {
	withSubjects(t)
	b := openSupervised(t, stalledAfterStartArg)
	rec := startStalled(t, b, shVerb(t, b, "sh.run"))
	// The program is in the supervisor's session once the supervisor has
	// started it.
	for range 3000 {
		if n, err := sessionMembers(rec.Supervisor.PID); err != nil || n >= 2 {
			break
		}
		time.Sleep(10 * time.Millisecond)
	}
	killSupervisor(t, rec.Supervisor)
	obs, err := b.Observe(context.Background(), []string{rec.ID})
	if err != nil {
		t.Fatal(err)
	}
	if o := obs[0]; o.Terminal || o.Process != wait.EvidenceUnknown || !o.PossiblyOrphaned {
		t.Fatalf("observed %+v; want unknown, possibly orphaned, not ended", o)
	}
	if cur, _ := b.store.Get(context.Background(), rec.ID); cur.Status != runs.StatusPreparing {
		t.Fatalf("a run whose program may still run was reaped: %+v", cur)
	}
	killSession(t, rec.Supervisor.PID)
	obs, err = b.Observe(context.Background(), []string{rec.ID})
	if err != nil {
		t.Fatal(err)
	}
	if o := obs[0]; !o.Terminal || o.ReasonCode != reasonSupervisorGone {
		t.Fatalf("observed %+v once the session emptied; want it reaped (%s)", o, reasonSupervisorGone)
	}
}

// A preparing run with no supervisor recorded (its server died between
// writing the run and recording the supervisor) is left alone within the
// start window and reaped past it.
func TestPreparingWithoutSupervisor(t *testing.T) {
	tests := []struct {
		name   string
		age    time.Duration
		reaped bool
	}{
		{"new", 0, false},
		{"within_the_window", startWindow / 2, false},
		{"past_the_window", 2 * startWindow, true},
	}
	b := openTest(t)
	db, err := sql.Open("sqlite", filepath.Join(b.Dir(), runs.StoreFile))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	ctx := context.Background()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rec, err := b.store.Create(ctx, runs.New{Verb: "sh.run", Subject: "alice"})
			if err != nil {
				t.Fatal(err)
			}
			then := rec.CreatedAt.Add(-tt.age).UnixNano()
			if _, err := db.Exec("UPDATE runs SET created_at = ?, phase_entered_at = ? WHERE id = ?", then, then, rec.ID); err != nil {
				t.Fatal(err)
			}
			obs, err := b.Observe(ctx, []string{rec.ID})
			if err != nil {
				t.Fatal(err)
			}
			cur, err := b.store.Get(ctx, rec.ID)
			if err != nil {
				t.Fatal(err)
			}
			if !tt.reaped {
				if obs[0].Terminal || cur.Status != runs.StatusPreparing || obs[0].Process != wait.EvidenceUnknown {
					t.Fatalf("observed %+v, run %s; want it left preparing", obs[0], cur.Status)
				}
				if _, err := b.store.Transition(ctx, runs.Change{ID: rec.ID, Version: cur.Version, To: runs.StatusFailed, Reason: "test"}); err != nil {
					t.Fatal(err)
				}
				return
			}
			if !obs[0].Terminal || cur.Status != runs.StatusAborted || cur.ReasonCode != reasonNoSupervisor {
				t.Fatalf("observed %+v, run %s (%s); want it reaped (%s)", obs[0], cur.Status, cur.ReasonCode, reasonNoSupervisor)
			}
			if n, err := b.store.CountLive(ctx, "alice"); err != nil || n != 0 {
				t.Fatalf("alice's live runs after the reap: %d, %v; want 0", n, err)
			}
		})
	}
}

// job.kill of a preparing run whose supervisor is gone does not promise
// that the supervisor will stop it: it reaps the run and says so.
func TestKillReapsRunWhoseSupervisorIsGone(t *testing.T) {
	withSubjects(t)
	b := openSupervised(t, stalledSupervisorArg)
	rec := startStalled(t, b, shVerb(t, b, "sh.run"))
	killSupervisor(t, rec.Supervisor)
	res := callJSON(t, b.kill, map[string]any{"id": rec.ID})
	run := res["run"].(map[string]any)
	reason, _ := res["reason"].(string)
	if res["signalled"] != false || run["status"] != string(runs.StatusAborted) || run["reason_code"] != reasonSupervisorGone ||
		!strings.Contains(reason, "nobody was left to start the run") {
		t.Fatalf("job.kill: %v; want nothing signalled and the run aborted (%s)", res, reasonSupervisorGone)
	}
}
