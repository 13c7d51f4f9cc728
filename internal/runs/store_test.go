package runs

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"
)

func open(t *testing.T, dir string) *SQLite {
	t.Helper()
	s, err := Open(context.Background(), dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// runsDir is a fresh store directory, not yet created.
func runsDir(t *testing.T) string { return filepath.Join(t.TempDir(), "runs") }

func exit(n int) *int { return &n }

// createThrough records a new run and moves it through the statuses
// given.
func createThrough(t *testing.T, s *SQLite, statuses []Status) Record {
	t.Helper()
	ctx := context.Background()
	r, err := s.Create(ctx, New{Verb: "lint.run", Spec: []byte(`{"argv":["x"]}`)})
	if err != nil {
		t.Fatal(err)
	}
	for _, st := range statuses {
		if r, err = s.Transition(ctx, Change{ID: r.ID, Version: r.Version, To: st, Reason: "setup"}); err != nil {
			t.Fatal(err)
		}
	}
	return r
}

// The lifecycle, one row per rule of Transition's doc, in its order.
func TestTransitionRules(t *testing.T) {
	ctx := context.Background()
	s := open(t, runsDir(t))
	tests := []struct {
		name    string
		from    []Status // transitions applied first
		to      Status
		version int64 // 0: the current one
		want    error
	}{
		{name: "preparing_to_running", to: StatusRunning},
		{name: "preparing_to_terminal", to: StatusFailed},
		{name: "running_to_terminal", from: []Status{StatusRunning}, to: StatusCompleted},
		{name: "terminal_floor", from: []Status{StatusRunning, StatusCompleted}, to: StatusFailed, want: ErrTerminal},
		{name: "terminal_floor_before_version", from: []Status{StatusCancelled}, to: StatusRunning, version: 1, want: ErrTerminal},
		{name: "stale_version", from: []Status{StatusRunning}, to: StatusCompleted, version: 1, want: ErrConflict},
		{name: "running_to_preparing", from: []Status{StatusRunning}, to: StatusPreparing, want: ErrInvalidTransition},
		{name: "running_to_running", from: []Status{StatusRunning}, to: StatusRunning, want: ErrInvalidTransition},
		{name: "unknown_status", to: Status("vanished"), want: ErrInvalidTransition},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := createThrough(t, s, tt.from)
			v := r.Version
			if tt.version != 0 {
				v = tt.version
			}
			got, err := s.Transition(ctx, Change{ID: r.ID, Version: v, To: tt.to, Reason: "test", ExitCode: exit(0)})
			if !errors.Is(err, tt.want) {
				t.Fatalf("err = %v, want %v", err, tt.want)
			}
			if tt.want != nil {
				var te *TransitionError
				if !errors.As(err, &te) || te.Current.Version != r.Version || te.Current.Status != r.Status {
					t.Fatalf("refusal does not carry the record as it is: %+v", te)
				}
				now, _ := s.Get(ctx, r.ID)
				if now.Version != r.Version || now.Status != r.Status {
					t.Fatalf("a refused transition changed the record: %+v", now)
				}
				return
			}
			if got.Status != tt.to || got.Version != v+1 || got.Outcome != OutcomeOf(tt.to) {
				t.Fatalf("got %+v", got)
			}
			if tt.to.Terminal() && (got.ExitCode == nil || got.EndedAt.IsZero()) {
				t.Fatalf("end not recorded: %+v", got)
			}
		})
	}
}

// Moving to running records the started phase and both identities; the
// audit has one row per accepted change.
func TestStartRecordsIdentityAndAudit(t *testing.T) {
	ctx := context.Background()
	s := open(t, runsDir(t))
	r, _ := s.Create(ctx, New{Verb: "lint.run"})
	if r.Phase != PhasePreparing || r.Status != StatusPreparing || r.Outcome != OutcomeNone {
		t.Fatalf("new run: %+v", r)
	}
	r, err := s.Transition(ctx, Change{ID: r.ID, Version: r.Version, To: StatusRunning, Actor: "supervisor",
		Process: &Identity{PID: 42, StartTime: 7}, Supervisor: &Identity{PID: 41, StartTime: 6}})
	if err != nil {
		t.Fatal(err)
	}
	if r.Phase != PhaseStarted || r.Process != (Identity{42, 7}) || r.Supervisor != (Identity{41, 6}) || r.StartedAt.IsZero() {
		t.Fatalf("started: %+v", r)
	}
	if _, err := s.Transition(ctx, Change{ID: r.ID, Version: r.Version, To: StatusFailed, Signal: "killed", Actor: "supervisor"}); err != nil {
		t.Fatal(err)
	}
	a, err := s.Audit(ctx, r.ID)
	if err != nil || len(a) != 2 || a[0].To != StatusRunning || a[1].To != StatusFailed || a[1].FromVersion != 2 {
		t.Fatalf("audit %+v, %v", a, err)
	}
	if _, err := s.db.ExecContext(ctx, "UPDATE runs SET status = 'running' WHERE id = ?", r.ID); err == nil {
		t.Fatal("a write around Transition moved an ended run")
	}
	if _, err := s.db.ExecContext(ctx, "DELETE FROM transitions"); err == nil {
		t.Fatal("the audit was deleted")
	}
}

// Many writers, in two store handles (as a server and supervisors are two
// processes), race for the same runs: for each run exactly one terminal
// write wins, every loser is refused with the floor or a conflict, and
// nothing is lost.
func TestConcurrentWritersOneWinner(t *testing.T) {
	ctx := context.Background()
	dir := runsDir(t)
	a, b := open(t, dir), open(t, dir)
	const runs, writers = 20, 8
	ids := make([]string, runs)
	for i := range ids {
		r, err := a.Create(ctx, New{Verb: "v"})
		if err != nil {
			t.Fatal(err)
		}
		r, err = a.Transition(ctx, Change{ID: r.ID, Version: r.Version, To: StatusRunning})
		if err != nil {
			t.Fatal(err)
		}
		ids[i] = r.ID
	}
	var mu sync.Mutex
	wins := map[string]int{}
	var wg sync.WaitGroup
	for w := 0; w < writers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			s := a
			if w%2 == 1 {
				s = b
			}
			to := []Status{StatusCompleted, StatusFailed, StatusCancelled, StatusAborted}[w%4]
			for _, id := range ids {
				r, err := s.Get(ctx, id)
				if err != nil {
					t.Error(err)
					return
				}
				_, err = s.Transition(ctx, Change{ID: id, Version: r.Version, To: to, Actor: "writer"})
				switch {
				case err == nil:
					mu.Lock()
					wins[id]++
					mu.Unlock()
				case errors.Is(err, ErrTerminal), errors.Is(err, ErrConflict):
				default:
					t.Error(err)
				}
			}
		}()
	}
	wg.Wait()
	for _, id := range ids {
		if wins[id] != 1 {
			t.Errorf("run %s: %d terminal writes won, want exactly 1", id, wins[id])
		}
		audit, _ := a.Audit(ctx, id)
		if len(audit) != 2 {
			t.Errorf("run %s: audit has %d rows, want 2", id, len(audit))
		}
	}
	if n, err := b.CountLive(ctx, ""); err != nil || n != 0 {
		t.Fatalf("live = %d, %v", n, err)
	}
}

// Many goroutines create runs at once: every one is recorded with its own id.
func TestConcurrentCreate(t *testing.T) {
	ctx := context.Background()
	dir := runsDir(t)
	a, b := open(t, dir), open(t, dir)
	const n = 100
	var wg sync.WaitGroup
	ids := make(chan string, n)
	for i := 0; i < n; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			s := a
			if i%2 == 1 {
				s = b
			}
			r, err := s.Create(ctx, New{Verb: "v"})
			if err != nil {
				t.Error(err)
				return
			}
			ids <- r.ID
		}()
	}
	wg.Wait()
	close(ids)
	seen := map[string]bool{}
	for id := range ids {
		seen[id] = true
	}
	all, err := a.List(ctx, ListOptions{})
	if err != nil || len(all) != n || len(seen) != n {
		t.Fatalf("listed %d, distinct ids %d, want %d (%v)", len(all), len(seen), n, err)
	}
	if live, _ := a.List(ctx, ListOptions{Live: true, Limit: 10}); len(live) != 10 {
		t.Fatalf("limit: %d", len(live))
	}
}

// A kill request marks a live run and bumps its version (so the end
// writer re-reads); an ended run is left as it is.
func TestRequestKill(t *testing.T) {
	ctx := context.Background()
	s := open(t, runsDir(t))
	r, _ := s.Create(ctx, New{Verb: "v"})
	k, err := s.RequestKill(ctx, r.ID)
	if err != nil || !k.KillRequested || k.Version != r.Version+1 {
		t.Fatalf("%+v %v", k, err)
	}
	e, _ := s.Transition(ctx, Change{ID: r.ID, Version: k.Version, To: StatusCancelled})
	again, err := s.RequestKill(ctx, r.ID)
	if err != nil || again.Version != e.Version {
		t.Fatalf("an ended run changed: %+v %v", again, err)
	}
	if _, err := s.RequestKill(ctx, "r-none"); !errors.Is(err, ErrNotFound) {
		t.Fatalf("unknown id: %v", err)
	}
}

// The store's directory and files are private.
func TestPrivateFiles(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "state", "runs")
	s := open(t, dir)
	if _, err := s.Create(context.Background(), New{Verb: "v"}); err != nil {
		t.Fatal(err)
	}
	if err := Notify(dir, "r-1"); err != nil {
		t.Fatal(err)
	}
	check := func(p string, want os.FileMode) {
		fi, err := os.Stat(p)
		if err != nil {
			t.Fatal(err)
		}
		if fi.Mode().Perm() != want {
			t.Errorf("%s: mode %04o, want %04o", p, fi.Mode().Perm(), want)
		}
	}
	check(dir, DirMode)
	check(filepath.Join(dir, StoreFile), FileMode)
	check(filepath.Join(dir, StoreFile+"-wal"), FileMode)
	check(filepath.Join(dir, SignalDir), DirMode)
	check(filepath.Join(dir, SignalDir, "r-1"), FileMode)

	open := filepath.Join(t.TempDir(), "open")
	os.Mkdir(open, 0o755)
	if _, err := Open(context.Background(), open); err == nil {
		t.Fatal("a directory others can read was accepted")
	}
}

// A Notify wakes every subscriber of the Watcher; a subscriber whose
// context ends is closed.
func TestWatcherWakes(t *testing.T) {
	dir := t.TempDir()
	w := NewWatcher(dir)
	defer w.Close()
	ctx, cancel := context.WithCancel(context.Background())
	subs := []<-chan struct{}{w.Subscribe(ctx), w.Subscribe(ctx)}
	if err := Notify(dir, "r-1"); err != nil {
		t.Fatal(err)
	}
	for i, ch := range subs {
		select {
		case _, ok := <-ch:
			if !ok {
				t.Fatalf("subscriber %d closed: the watch failed", i)
			}
		case <-time.After(30 * time.Second):
			t.Fatalf("subscriber %d not woken", i)
		}
	}
	cancel()
	for _, ch := range subs {
		for range ch {
		}
	}
}

// RecordSupervisor is a compare-and-set on a preparing run, one row per
// rule in its order: it records the identity and bumps the version; a
// stale version, a running run and an ended run are refused unchanged.
func TestRecordSupervisor(t *testing.T) {
	ctx := context.Background()
	s := open(t, runsDir(t))
	sup := Identity{PID: 41, StartTime: 6}
	tests := []struct {
		name string
		from []Status // transitions applied first
		skew int64    // added to the current version
		want error
	}{
		{name: "preparing", want: nil},
		{name: "ended", from: []Status{StatusAborted}, want: ErrTerminal},
		{name: "stale_version", skew: -1, want: ErrConflict},
		{name: "running", from: []Status{StatusRunning}, want: ErrInvalidTransition},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := createThrough(t, s, tt.from)
			got, err := s.RecordSupervisor(ctx, r.ID, r.Version+tt.skew, sup)
			if !errors.Is(err, tt.want) {
				t.Fatalf("err = %v, want %v", err, tt.want)
			}
			if tt.want != nil {
				now, _ := s.Get(ctx, r.ID)
				if now.Version != r.Version || now.Supervisor != (Identity{}) {
					t.Fatalf("a refused write changed the record: %+v", now)
				}
				return
			}
			if got.Supervisor != sup || got.Version != r.Version+1 || got.Status != StatusPreparing || got.Process != (Identity{}) {
				t.Fatalf("recorded %+v; want supervisor %+v, version %d, still preparing", got, sup, r.Version+1)
			}
		})
	}
	if _, err := s.RecordSupervisor(ctx, "r-none", 1, sup); !errors.Is(err, ErrNotFound) {
		t.Fatalf("unknown id: %v", err)
	}
}
