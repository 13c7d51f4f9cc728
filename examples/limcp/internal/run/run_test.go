//go:build unix

package run

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/verbsurface/verbsurface/examples/limcp/internal/machine"
	"github.com/verbsurface/verbsurface/examples/limcp/internal/store"
	"github.com/verbsurface/verbsurface/internal/procid"
	"github.com/verbsurface/verbsurface/wait"
)

func openStore(t *testing.T, path string, o store.Options) *store.Store {
	t.Helper()
	st, err := store.Open(context.Background(), path, o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return st
}

// processIdentity starts a real process in its own group and returns its
// identity; stop kills it and waits, leaving the identity conclusively gone.
func processIdentity(t *testing.T) (id procid.Identity, stop func()) {
	t.Helper()
	cmd := exec.Command("sleep", "60")
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	id, err := procid.Of(cmd.Process.Pid)
	if err != nil {
		t.Fatal(err)
	}
	stopped := false
	stop = func() {
		if !stopped {
			stopped = true
			cmd.Process.Kill()
			cmd.Wait()
		}
	}
	t.Cleanup(stop)
	return id, stop
}

// running creates a record moved to running with the given identity.
func running(t *testing.T, st *store.Store, kind store.Kind, parent string, id procid.Identity) store.Record {
	t.Helper()
	ctx := context.Background()
	recs, err := st.Create(ctx, store.CreateOptions{}, store.NewRecord{Kind: kind, Parent: parent})
	if err != nil {
		t.Fatal(err)
	}
	r, err := st.Transition(ctx, store.Change{ID: recs[0].ID, Version: recs[0].Version, To: store.StatusRunning, Reason: ReasonStarted,
		Process: &store.Process{PID: id.PID, PGID: id.PID, StartTime: id.StartTime}})
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func observe1(t *testing.T, st *store.Store, id string) wait.Observation {
	t.Helper()
	obs, err := (&Observer{Store: st}).Observe(context.Background(), []string{id})
	if err != nil {
		t.Fatal(err)
	}
	return obs[0]
}

func TestObserveEvidence(t *testing.T) {
	ctx := context.Background()
	st := openStore(t, filepath.Join(t.TempDir(), "state.db"), store.Options{})
	live, _ := processIdentity(t)
	dead, stop := processIdentity(t)
	stop()
	alive := running(t, st, store.KindInvocation, "", live)
	gone := running(t, st, store.KindInvocation, "", dead)
	prep, _ := st.Create(ctx, store.CreateOptions{}, store.NewRecord{Kind: store.KindInvocation})
	show, _ := st.Create(ctx, store.CreateOptions{Show: "s"}, store.NewRecord{Kind: store.KindPlay})
	running(t, st, store.KindInvocation, "", live) // unrelated
	playWithLiveWorker := show[0]
	if _, err := st.Transition(ctx, store.Change{ID: playWithLiveWorker.ID, Version: playWithLiveWorker.Version, To: store.StatusRunning,
		Reason: ReasonStarted, Process: &store.Process{PID: live.PID, PGID: live.PID, StartTime: live.StartTime}}); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name     string
		id       string
		process  wait.Evidence
		status   string
		terminal bool
		reason   string
	}{
		{"a live identity is alive", alive.ID, wait.EvidenceAlive, "running", false, ReasonStarted},
		{"a gone identity with an empty group is gone, and reaped", gone.ID, wait.EvidenceGone, "failed", true, ReasonProcessGone},
		{"a preparing record has no process to show", prep[0].ID, wait.EvidenceUnknown, "preparing", false, "run.preparing.submitted"},
		{"a show is alive while a play of it is alive", playWithLiveWorker.Parent, wait.EvidenceAlive, "running", false, "show.running.opened"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			o := observe1(t, st, tt.id)
			got := []any{o.Process, o.Status, o.Terminal, o.ReasonCode, o.PublishFailed}
			want := []any{tt.process, tt.status, tt.terminal, tt.reason, false}
			if d := cmp.Diff(want, got); d != "" {
				t.Fatalf("observation (-want +got):\n%s\n%+v", d, o)
			}
		})
	}
}

// TestReapThatCannotBeWrittenSetsPublishFailed: the conclusive finding
// "process gone" cannot be published while another writer holds the
// store; the observation says so, the record is untouched, and the wait
// partition puts it in stopped_without_end. Once the store is free the
// next observer reaps it.
func TestReapThatCannotBeWrittenSetsPublishFailed(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "state.db")
	writer := openStore(t, path, store.Options{})
	dead, stop := processIdentity(t)
	stop()
	r := running(t, writer, store.KindInvocation, "", dead)

	observer := openStore(t, path, store.Options{BusyTimeout: 100 * time.Millisecond})
	lock, err := writer.DB().BeginTx(ctx, nil) // IMMEDIATE: holds the write lock
	if err != nil {
		t.Fatal(err)
	}
	if _, err := lock.ExecContext(ctx, "INSERT INTO teams (name, created_at) VALUES ('lock', 0)"); err != nil {
		t.Fatal(err)
	}
	o := observe1(t, observer, r.ID)
	if !o.PublishFailed || o.Terminal || o.Process != wait.EvidenceGone {
		t.Fatalf("observation under a held lock = %+v; want publish_failed, not terminal", o)
	}
	if c := wait.Classify(o, time.Now(), wait.DefaultPreparingThreshold); c != wait.ClassStoppedWithoutEnd {
		t.Fatalf("classified %s; want stopped_without_end", c)
	}
	lock.Rollback()
	if cur, _ := writer.Get(ctx, r.ID); cur.Version != r.Version {
		t.Fatalf("the refused reap changed the record: %+v", cur)
	}
	if o := observe1(t, observer, r.ID); !o.Terminal || o.ReasonCode != ReasonProcessGone || o.PublishFailed {
		t.Fatalf("observation after the lock = %+v; want reaped", o)
	}
}

// TestSubmitWritesTheRecordBeforeAnyProcess: with a worker that cannot be
// started, the record already exists (preparing) and ends failed with
// run.failed.spawn_error: nothing is left preparing forever.
func TestSubmitWritesTheRecordBeforeAnyProcess(t *testing.T) {
	ctx := context.Background()
	home := t.TempDir()
	st := openStore(t, filepath.Join(home, "state.db"), store.Options{})
	rt := &Runtime{Store: st, Home: home, Exe: "/nonexistent/limcp"}
	p, err := ReadPrompt("hi", true, "")
	if err != nil {
		t.Fatal(err)
	}
	_, err = rt.SubmitAgent(ctx, "echo", p, Common{})
	me, ok := machine.As(err)
	if !ok || me.Code != machine.SpawnFailed {
		t.Fatalf("SubmitAgent = %v; want spawn_failed", err)
	}
	id := me.Details.(map[string]any)["id"].(string)
	rows, _ := st.Audit(ctx, id)
	var path []string
	for _, r := range rows {
		path = append(path, fmt.Sprintf("%s→%s %s", r.FromStatus, r.ToStatus, r.ReasonCode))
	}
	want := []string{"→preparing run.preparing.submitted", "preparing→failed " + ReasonSpawnError}
	if d := cmp.Diff(want, path); d != "" {
		t.Fatalf("audit (-want +got):\n%s", d)
	}
}

func TestReadPrompt(t *testing.T) {
	dir := t.TempDir()
	tests := []struct {
		name    string
		arg     string
		given   bool
		file    string
		content string
		want    string
		param   string
	}{
		{name: "an argument", arg: "hi", given: true, want: "hi"},
		{name: "a file", file: "p.txt", content: "from file", want: "from file"},
		{name: "both", arg: "hi", given: true, file: "p.txt", content: "x", param: "prompt_file"},
		{name: "neither", param: "prompt"},
		{name: "blank", arg: "  \n", given: true, param: "prompt"},
		{name: "not UTF-8", file: "p.txt", content: "\xff\xfe", param: "prompt_file"},
		{name: "too large", file: "p.txt", content: string(make([]byte, MaxPromptBytes+1)), param: "prompt_file"},
		{name: "a missing file", file: "absent.txt", param: "prompt_file"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			file := ""
			if tt.file != "" {
				file = filepath.Join(dir, tt.file)
				if tt.content != "" {
					writeFile(file, []byte(tt.content))
				}
			}
			p, err := ReadPrompt(tt.arg, tt.given, file)
			if tt.param == "" {
				if err != nil || p.Text != tt.want || p.Info.Bytes != len(tt.want) {
					t.Fatalf("ReadPrompt = %+v, %v", p, err)
				}
				return
			}
			var me *machine.Error
			if !errors.As(err, &me) || me.Code != machine.InvalidArgument || me.Details.(map[string]any)["argument"] != tt.param {
				t.Fatalf("ReadPrompt = %v; want invalid_argument on %s", err, tt.param)
			}
		})
	}
}

// orphanedGroup starts a process group whose leader exits (and is reaped)
// leaving a member running: what a worker killed with SIGKILL leaves when
// its provider survives. It returns the leader's (now gone) identity and
// the surviving member's pid; cleanup kills the group.
func orphanedGroup(t *testing.T) (leader procid.Identity, member int) {
	t.Helper()
	cmd := exec.Command("sh", "-c", "sleep 60 >/dev/null 2>&1 </dev/null & echo $!")
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	pgid := cmd.Process.Pid
	t.Cleanup(func() { syscall.Kill(-pgid, syscall.SIGKILL) })
	// Until it is reaped below, the leader (alive or a zombie) still has
	// its stat: its identity can be read either way.
	leader, err = procid.Of(pgid)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := fmt.Fscan(out, &member); err != nil {
		t.Fatal(err)
	}
	if err := cmd.Wait(); err != nil {
		t.Fatal(err)
	}
	if procid.Check(leader) != procid.Gone {
		t.Fatal("the leader is not gone after being reaped")
	}
	return leader, member
}

// TestObserveDoesNotReapAnOrphanedGroup: the leader is gone but its group
// still has a live member. That is not conclusive evidence that the run
// stopped: the observation says unknown and possibly orphaned, and the
// record is not reaped.
func TestObserveDoesNotReapAnOrphanedGroup(t *testing.T) {
	ctx := context.Background()
	st := openStore(t, filepath.Join(t.TempDir(), "state.db"), store.Options{})
	leader, _ := orphanedGroup(t)
	r := running(t, st, store.KindInvocation, "", leader)
	o := observe1(t, st, r.ID)
	if o.Process != wait.EvidenceUnknown || !o.PossiblyOrphaned || o.Terminal || o.Status != "running" {
		t.Fatalf("observation = %+v; want unknown, possibly orphaned, running", o)
	}
	if cur, _ := st.Get(ctx, r.ID); cur.Version != r.Version {
		t.Fatalf("the observer wrote to a record it could not prove stopped: %+v", cur)
	}
}

// TestKillPartialLeavesTheTreeAsItIs: a session's own group is stopped, but
// its invocation's group cannot be proven to be the run's (leader gone,
// member alive), so it is not signalled. The report names each entity: the
// invocation (leader_gone_members_remain, with the survivor) and the
// session (child_not_reaped); neither end is recorded, and the error is
// kill_partial carrying the same report.
func TestKillPartialLeavesTheTreeAsItIs(t *testing.T) {
	ctx := context.Background()
	home := t.TempDir()
	st := openStore(t, filepath.Join(home, "state.db"), store.Options{})
	coordinator, _ := processIdentity(t)
	sess := running(t, st, store.KindSession, "", coordinator)
	leader, survivor := orphanedGroup(t)
	inv := running(t, st, store.KindInvocation, sess.ID, leader)
	go func() { // reap the coordinator once the kill stops it
		p, _ := os.FindProcess(coordinator.PID)
		p.Wait()
	}()

	rt := &Runtime{Store: st, Home: home, Exe: "/nonexistent/limcp"}
	rep, err := rt.Kill(ctx, sess.ID[:store.MinPrefix], 200*time.Millisecond)
	me, ok := machine.As(err)
	if !ok || me.Code != machine.KillPartial || me.Details != rep {
		t.Fatalf("Kill = %v; want kill_partial carrying the report", err)
	}
	type entity struct{ ID, Reason string }
	var got []entity
	for _, n := range rep.NotReaped {
		got = append(got, entity{n.ID, n.Reason})
	}
	if d := cmp.Diff([]entity{{inv.ID, "leader_gone_members_remain"}, {sess.ID, "child_not_reaped"}}, got); d != "" {
		t.Fatalf("not_reaped (-want +got):\n%s", d)
	}
	if s := rep.NotReaped[0].Survivors; len(s) != 1 || s[0] != survivor {
		t.Fatalf("survivors = %v; want [%d]", s, survivor)
	}
	if len(rep.Reaped) != 0 || len(rep.AlreadyEnded) != 0 {
		t.Fatalf("report = %+v; want nothing reaped", rep)
	}
	for _, id := range []string{sess.ID, inv.ID} {
		if r, _ := st.Get(ctx, id); r.Status != store.StatusRunning {
			t.Fatalf("%s is %s after a partial kill; its end must not be recorded", id, r.Status)
		}
	}
	if !alive(survivor) {
		t.Fatal("the unproven group was signalled")
	}
	if procid.Check(coordinator) == procid.Alive {
		t.Fatal("the session's own group was not stopped")
	}
}

func alive(pid int) bool {
	st, err := procid.ReadStat(pid)
	return err == nil && st.State != 'Z' && st.State != 'X'
}
