//go:build unix

package run

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/verbsurface/verbsurface/examples/limcp/internal/machine"
	"github.com/verbsurface/verbsurface/examples/limcp/internal/playbook"
	"github.com/verbsurface/verbsurface/examples/limcp/internal/store"
	"github.com/verbsurface/verbsurface/internal/procid"
)

// The test binary doubles as the worker: started as `BIN --home HOME
// __worker ID` (what startWorker runs), it works the record and exits, so
// these tests drive real detached workers, sessions and providers without
// building limcp.
func TestMain(m *testing.M) {
	if n := len(os.Args); n >= 5 && os.Args[1] == "--home" && os.Args[3] == WorkerCommand {
		envFD := -1
		if n == 6 {
			fmt.Sscanf(os.Args[4], "--"+EnvFDFlag+"=%d", &envFD)
		}
		os.Exit(workerMain(os.Args[2], os.Args[n-1], envFD))
	}
	os.Exit(m.Run())
}

func workerMain(home, id string, envFD int) int {
	var secrets map[string]string
	if envFD >= 0 {
		var err error
		if secrets, err = ReadSecrets(envFD); err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
	}
	ctx := context.Background()
	st, err := store.Open(ctx, filepath.Join(home, "state.db"), store.Options{})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer st.Close()
	exe, err := os.Executable()
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	if err := (&Runtime{Store: st, Home: home, Exe: exe, Secrets: secrets}).Work(ctx, id); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	return 0
}

// workerRuntime is a runtime whose workers are this test binary, with
// providers.yaml set to providers (if not empty). Cleanup kills the process
// group of every record still alive.
func workerRuntime(t *testing.T, providers string) *Runtime {
	t.Helper()
	home := t.TempDir()
	if providers != "" {
		if err := os.WriteFile(filepath.Join(home, "providers.yaml"), []byte(providers), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	st := openStore(t, filepath.Join(home, "state.db"), store.Options{})
	t.Cleanup(func() {
		recs, _ := st.Active(context.Background())
		for _, r := range recs {
			if r.PGID > 0 && procid.Check(procid.Identity{PID: r.PID, StartTime: r.StartTime}) == procid.Alive {
				syscall.Kill(-r.PGID, syscall.SIGKILL)
			}
		}
	})
	return &Runtime{Store: st, Home: home, Exe: exe}
}

// waitFor polls record id until cond holds (at most 20s).
func waitFor(t *testing.T, st *store.Store, id, what string, cond func(store.Record) bool) store.Record {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		r, err := st.Get(context.Background(), id)
		if err != nil {
			t.Fatal(err)
		}
		if cond(r) {
			return r
		}
		if time.Now().After(deadline) {
			t.Fatalf("record %s never %s: %+v", id, what, r)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func terminal(r store.Record) bool { return r.Terminal() }

func prompt(t *testing.T, text string) Prompt {
	t.Helper()
	p, err := ReadPrompt(text, true, "")
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// TestCommandProviderRunsInCwdAndTakesItsLeftoversWithIt: the provider runs
// in the run's --cwd, and what it leaves running in the run's process
// group is stopped when it exits, before the end is recorded.
func TestCommandProviderRunsInCwdAndTakesItsLeftoversWithIt(t *testing.T) {
	ctx := context.Background()
	rt := workerRuntime(t, `providers:
  - name: leaves
    argv: ["sh", "-c", "pwd; sleep 60 >/dev/null 2>&1 </dev/null & echo $! >&2"]
`)
	cwd := t.TempDir()
	sub, err := rt.SubmitAgent(ctx, "leaves", prompt(t, "x"), Common{Cwd: cwd})
	if err != nil {
		t.Fatal(err)
	}
	r := waitFor(t, rt.Store, sub.ID, "ended", terminal)
	if r.Status != store.StatusCompleted {
		t.Fatalf("record = %s (%s)", r.Status, r.ReasonCode)
	}
	out, _ := os.ReadFile(filepath.Join(Dir(rt.Home, sub.ID), StdoutFile))
	if strings.TrimSpace(string(out)) != cwd {
		t.Fatalf("the provider ran in %q; want --cwd %q", out, cwd)
	}
	errb, _ := os.ReadFile(filepath.Join(Dir(rt.Home, sub.ID), StderrFile))
	left, err := strconv.Atoi(strings.TrimSpace(string(errb)))
	if err != nil {
		t.Fatalf("stderr %q: %v", errb, err)
	}
	if alive(left) {
		syscall.Kill(left, syscall.SIGKILL)
		t.Fatalf("the provider's background process %d outlived the run's recorded end", left)
	}
}

// TestSessionReapsAStepWhoseWorkerVanished: a step's worker is killed with
// SIGKILL mid-run, so nothing records its end. Its coordinator, which
// waits for it, records it failed (run.failed.process_gone) once its
// group has stayed empty, and the session ends failed instead of waiting
// forever.
func TestSessionReapsAStepWhoseWorkerVanished(t *testing.T) {
	ctx := context.Background()
	rt := workerRuntime(t, "")
	sub, err := rt.SubmitFanout(ctx, "echo:delay=60s", 1, "", prompt(t, "x"), Common{})
	if err != nil {
		t.Fatal(err)
	}
	sess := waitFor(t, rt.Store, sub.ID, "started its step", func(r store.Record) bool {
		kids, _ := rt.Store.Children(ctx, r.ID)
		return len(kids) == 1 && kids[0].Status == store.StatusRunning
	})
	kids, _ := rt.Store.Children(ctx, sess.ID)
	step := kids[0]
	if err := syscall.Kill(step.PID, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	sess = waitFor(t, rt.Store, sub.ID, "ended", terminal)
	if sess.Status != store.StatusFailed || sess.ReasonCode != ReasonStepFailed {
		t.Fatalf("session = %s (%s); want failed (%s)", sess.Status, sess.ReasonCode, ReasonStepFailed)
	}
	audit, _ := rt.Store.Audit(ctx, step.ID)
	last := audit[len(audit)-1]
	if last.ToStatus != store.StatusFailed || last.ReasonCode != ReasonProcessGone || last.Actor != ActorCoordinator {
		t.Fatalf("the vanished step's end = %+v; want failed, %s, by the coordinator", last, ReasonProcessGone)
	}
}

// TestPlayThatCannotStartFailsItsSessionToo: nothing of a run is left
// preparing when its worker cannot be started.
func TestPlayThatCannotStartFailsItsSessionToo(t *testing.T) {
	ctx := context.Background()
	rt := workerRuntime(t, "")
	rt.Exe = "/nonexistent/limcp"
	pb := playbookOf(t, rt.Home, "flow: {steps: [{id: a, model: echo, prompt: x}]}\n")
	_, err := rt.SubmitPlay(ctx, pb, "pf1-0000000000000000", nil, prompt(t, "go"), "", Common{})
	me, ok := machine.As(err)
	if !ok || me.Code != machine.SpawnFailed {
		t.Fatalf("SubmitPlay = %v; want spawn_failed", err)
	}
	page, err := rt.Store.List(ctx, store.ListQuery{})
	if err != nil {
		t.Fatal(err)
	}
	got := map[store.Kind]string{}
	for _, r := range page.Records {
		got[r.Kind] = string(r.Status) + " " + r.ReasonCode
	}
	want := map[store.Kind]string{store.KindPlay: "failed " + ReasonSpawnError, store.KindSession: "failed " + ReasonSpawnError}
	if d := cmp.Diff(want, got); d != "" {
		t.Fatalf("records (-want +got):\n%s", d)
	}
}

func TestCommonOptions(t *testing.T) {
	ctx := context.Background()
	rt := workerRuntime(t, "")
	if _, err := rt.Store.CreateTeam(ctx, "ops"); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	file := filepath.Join(dir, "f")
	if err := os.WriteFile(file, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	t.Chdir(dir)
	tests := []struct {
		name    string
		in      Common
		wantCwd string
		code    machine.Code
		arg     string
	}{
		{name: "no --cwd is the submitter's directory", in: Common{}, wantCwd: dir},
		{name: "a relative --cwd is made absolute", in: Common{Cwd: "."}, wantCwd: dir},
		{name: "an existing team is accepted", in: Common{Cwd: dir, Team: "ops"}, wantCwd: dir},
		{name: "a --cwd that is a file is refused", in: Common{Cwd: file}, code: machine.InvalidArgument, arg: "cwd"},
		{name: "a --cwd that does not exist is refused", in: Common{Cwd: filepath.Join(dir, "absent")}, code: machine.InvalidArgument, arg: "cwd"},
		{name: "a negative --timeout is refused", in: Common{Timeout: -time.Second}, code: machine.InvalidArgument, arg: "timeout"},
		{name: "an unknown team is refused", in: Common{Team: "nobody"}, code: machine.UnknownTeam},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := tt.in
			err := rt.common(ctx, &c)
			if tt.code == "" {
				if err != nil || c.Cwd != tt.wantCwd {
					t.Fatalf("common = %q, %v; want cwd %q", c.Cwd, err, tt.wantCwd)
				}
				return
			}
			me, ok := machine.As(err)
			if !ok || me.Code != tt.code || tt.arg != "" && me.Details.(map[string]any)["argument"] != tt.arg {
				t.Fatalf("common = %v; want %s on %q", err, tt.code, tt.arg)
			}
		})
	}
}

func playbookOf(t *testing.T, home, content string) *playbook.Playbook {
	t.Helper()
	pb, err := playbook.Parse(filepath.Join(home, playbook.Dir, "p"+playbook.Suffix), []byte(content))
	if err != nil {
		t.Fatal(err)
	}
	pb.Name = "p"
	return pb
}

// TestProviderKilledBySignalIsLeftToTheKiller: a provider that dies of
// SIGKILL (or SIGTERM) it was not sent by its worker is being killed by
// someone else: the worker records nothing (the killer records the end),
// and if nobody does, the next observer reaps the run as process_gone.
func TestProviderKilledBySignalIsLeftToTheKiller(t *testing.T) {
	ctx := context.Background()
	rt := workerRuntime(t, `providers:
  - name: killed
    argv: ["sh", "-c", "cat >/dev/null; kill -KILL $$"]
`)
	sub, err := rt.SubmitAgent(ctx, "killed", prompt(t, "x"), Common{})
	if err != nil {
		t.Fatal(err)
	}
	r := waitFor(t, rt.Store, sub.ID, "started", func(r store.Record) bool { return r.Phase == store.PhaseStarted })
	worker := procid.Identity{PID: r.PID, StartTime: r.StartTime}
	for deadline := time.Now().Add(20 * time.Second); procid.Check(worker) == procid.Alive; {
		if time.Now().After(deadline) {
			t.Fatal("the worker did not exit")
		}
		time.Sleep(20 * time.Millisecond)
	}
	if r, _ := rt.Store.Get(ctx, sub.ID); r.Status != store.StatusRunning {
		t.Fatalf("the worker recorded %s (%s) for a provider killed by someone else", r.Status, r.ReasonCode)
	}
	if o := observe1(t, rt.Store, sub.ID); o.Status != string(store.StatusFailed) || o.ReasonCode != ReasonProcessGone {
		t.Fatalf("observation = %+v; want reaped as %s", o, ReasonProcessGone)
	}
}

// TestSessionOutputHasEveryStep: a session's own stdout lists each step in
// declaration order, with its record id, status and output.
func TestSessionOutputHasEveryStep(t *testing.T) {
	ctx := context.Background()
	rt := workerRuntime(t, "")
	sub, err := rt.SubmitFanout(ctx, "echo", 2, "echo", prompt(t, "q"), Common{})
	if err != nil {
		t.Fatal(err)
	}
	if r := waitFor(t, rt.Store, sub.ID, "ended", terminal); r.Status != store.StatusCompleted {
		t.Fatalf("session = %s (%s)", r.Status, r.ReasonCode)
	}
	kids, _ := rt.Store.Children(ctx, sub.ID)
	id := map[string]string{}
	for _, k := range kids {
		id[k.Label] = k.ID
	}
	out, _ := os.ReadFile(filepath.Join(Dir(rt.Home, sub.ID), StdoutFile))
	want := fmt.Sprintf("=== step 1 (%s) completed ===\nq\n=== step 2 (%s) completed ===\nq\n=== step synthesis (%s) completed ===\n"+
		"q\n\n--- output of 1 ---\nq\n\n--- output of 2 ---\nq\n", id["1"], id["2"], id["synthesis"])
	if d := cmp.Diff(want, string(out)); d != "" {
		t.Fatalf("session stdout (-want +got):\n%s", d)
	}
}
