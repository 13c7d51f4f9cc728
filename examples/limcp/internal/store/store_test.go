package store

import (
	"context"
	"errors"
	"fmt"
	"math/rand"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func newStore(t *testing.T) *Store {
	t.Helper()
	s, err := Open(context.Background(), filepath.Join(t.TempDir(), "state.db"), Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

func create(t *testing.T, s *Store, nr NewRecord) Record {
	t.Helper()
	if nr.Kind == "" {
		nr.Kind = KindInvocation
	}
	recs, err := s.Create(context.Background(), CreateOptions{}, nr)
	if err != nil {
		t.Fatal(err)
	}
	return recs[0]
}

func TestOpen(t *testing.T) {
	ctx := context.Background()
	t.Run("a new store is created at the current version in WAL mode", func(t *testing.T) {
		s := newStore(t)
		v, err := s.Version(ctx)
		if err != nil || v != CurrentVersion {
			t.Fatalf("version = %d, %v; want %d", v, err, CurrentVersion)
		}
		var mode string
		if err := s.DB().QueryRow("PRAGMA journal_mode").Scan(&mode); err != nil || mode != "wal" {
			t.Fatalf("journal_mode = %q, %v; want wal", mode, err)
		}
	})
	t.Run("an older store is refused as outdated until migrated", func(t *testing.T) {
		path := filepath.Join(t.TempDir(), "state.db")
		if err := CreateAt(ctx, path, 1); err != nil {
			t.Fatal(err)
		}
		_, err := Open(ctx, path, Options{})
		var se *SchemaError
		if !errors.Is(err, ErrSchemaOutdated) || !errors.As(err, &se) || se.Version != 1 || se.Path != path {
			t.Fatalf("Open(v1) = %v; want ErrSchemaOutdated naming %s at version 1", err, path)
		}
		s, err := Open(ctx, path, Options{AllowOutdated: true})
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		from, to, err := s.Migrate(ctx)
		if err != nil || from != 1 || to != CurrentVersion {
			t.Fatalf("Migrate = %d, %d, %v", from, to, err)
		}
		if _, err := s.SetTrust(ctx, Trust{Kind: "plugin", Subject: "x"}); err != nil {
			t.Fatalf("migrated store lacks the v2 table: %v", err)
		}
		s2, err := Open(ctx, path, Options{})
		if err != nil {
			t.Fatalf("Open after migrate: %v", err)
		}
		s2.Close()
	})
	t.Run("a file that is not a database is corrupt, naming the file", func(t *testing.T) {
		path := filepath.Join(t.TempDir(), "state.db")
		if err := os.WriteFile(path, []byte("this is not a database, it is a text file with enough bytes to have a header........."), 0o600); err != nil {
			t.Fatal(err)
		}
		_, err := Open(ctx, path, Options{})
		var pe *PathError
		if !errors.Is(err, ErrCorrupt) || !errors.As(err, &pe) || pe.Path != path {
			t.Fatalf("Open(text file) = %v; want ErrCorrupt naming the path", err)
		}
	})
	t.Run("a foreign SQLite database is not taken over", func(t *testing.T) {
		path := filepath.Join(t.TempDir(), "state.db")
		s, err := openDB(path, Options{})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := s.DB().Exec("CREATE TABLE theirs (x)"); err != nil {
			t.Fatal(err)
		}
		s.Close()
		if _, err := Open(ctx, path, Options{}); !errors.Is(err, ErrCorrupt) {
			t.Fatalf("Open(foreign db) = %v; want ErrCorrupt", err)
		}
	})
	t.Run("concurrent first opens create the store once", func(t *testing.T) {
		// The race is in the first moments of a new file (the WAL switch,
		// the schema commit), so it is run on many fresh files: a single
		// round missed it most of the time.
		for round := 0; round < 20; round++ {
			path := filepath.Join(t.TempDir(), "state.db")
			var wg sync.WaitGroup
			errs := make(chan error, 8)
			for i := 0; i < 8; i++ {
				wg.Add(1)
				go func() {
					defer wg.Done()
					s, err := Open(ctx, path, Options{})
					if err == nil {
						_, err = s.Create(ctx, CreateOptions{}, NewRecord{Kind: KindInvocation})
						s.Close()
					}
					errs <- err
				}()
			}
			wg.Wait()
			close(errs)
			for err := range errs {
				if err != nil {
					t.Fatalf("round %d: %v", round, err)
				}
			}
			s, err := Open(ctx, path, Options{})
			if err != nil {
				t.Fatal(err)
			}
			page, err := s.List(ctx, ListQuery{Limit: 100})
			s.Close()
			if err != nil || len(page.Records) != 8 {
				t.Fatalf("round %d: %d records after 8 concurrent first opens (%v), want 8", round, len(page.Records), err)
			}
		}
	})
}

func TestResolve(t *testing.T) {
	ctx := context.Background()
	s := newStore(t)
	create(t, s, NewRecord{ID: "aaaabbbb00000001"})
	create(t, s, NewRecord{ID: "aaaabbbb00000002"})
	create(t, s, NewRecord{ID: "ccccdddd00000003"})
	var many []string
	for i := 0; i <= MaxCandidates; i++ {
		many = append(many, fmt.Sprintf("dddd0000%08x", i))
		create(t, s, NewRecord{ID: many[i]})
	}
	tests := []struct {
		name       string
		id         string
		want       string
		ambiguous  []string
		more       bool
		wantUnknow bool
	}{
		{name: "a full id resolves", id: "aaaabbbb00000001", want: "aaaabbbb00000001"},
		{name: "a unique 8-character prefix resolves", id: "ccccdddd", want: "ccccdddd00000003"},
		{name: "ids are case-insensitive", id: "CCCCDDDD0", want: "ccccdddd00000003"},
		{name: "an ambiguous prefix lists every candidate, never the first", id: "aaaabbbb", ambiguous: []string{"aaaabbbb00000001", "aaaabbbb00000002"}},
		{name: "a prefix shorter than 8 is unknown even if unique", id: "cccc", wantUnknow: true},
		{name: "a prefix matching nothing is unknown", id: "eeeeeeee", wantUnknow: true},
		{name: "a non-hex id is unknown", id: "zzzzzzzzzz", wantUnknow: true},
		{name: "a prefix matching many lists the first MaxCandidates and says there are more", id: "dddd0000", ambiguous: many[:MaxCandidates], more: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, err := s.Resolve(ctx, tt.id)
			var ie *IDError
			switch {
			case tt.want != "":
				if err != nil || r.ID != tt.want {
					t.Fatalf("Resolve(%q) = %q, %v; want %q", tt.id, r.ID, err, tt.want)
				}
			case tt.ambiguous != nil:
				if !errors.As(err, &ie) || !ie.Ambiguous {
					t.Fatalf("Resolve(%q) = %v; want ambiguous", tt.id, err)
				}
				if d := cmp.Diff(tt.ambiguous, ie.Candidates); d != "" {
					t.Fatalf("candidates (-want +got):\n%s", d)
				}
				if ie.More != tt.more || strings.HasSuffix(ie.Error(), "and more") != tt.more {
					t.Fatalf("%q: More = %v; want %v", ie.Error(), ie.More, tt.more)
				}
			default:
				if !errors.As(err, &ie) || ie.Ambiguous {
					t.Fatalf("Resolve(%q) = %v; want unknown", tt.id, err)
				}
			}
		})
	}
}

func TestTransitionRules(t *testing.T) {
	ctx := context.Background()
	tests := []struct {
		name    string
		setup   []Status // transitions applied first
		to      Status
		stale   bool // pass a stale version
		wantErr error
	}{
		{name: "preparing → running is allowed", to: StatusRunning},
		{name: "preparing → a terminal status is allowed", to: StatusCancelled},
		{name: "running → a terminal status is allowed", setup: []Status{StatusRunning}, to: StatusCompleted},
		{name: "running → preparing is refused", setup: []Status{StatusRunning}, to: StatusPreparing, wantErr: ErrInvalidTransition},
		{name: "running → running is refused", setup: []Status{StatusRunning}, to: StatusRunning, wantErr: ErrInvalidTransition},
		{name: "an unknown status is refused", to: Status("paused"), wantErr: ErrInvalidTransition},
		{name: "terminal floor: completed never changes", setup: []Status{StatusRunning, StatusCompleted}, to: StatusFailed, wantErr: ErrTerminal},
		{name: "terminal floor holds even with the current version", setup: []Status{StatusCancelled}, to: StatusRunning, wantErr: ErrTerminal},
		{name: "a stale version is a conflict", setup: []Status{StatusRunning}, to: StatusFailed, stale: true, wantErr: ErrConflict},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := newStore(t)
			r := create(t, s, NewRecord{})
			for _, st := range tt.setup {
				var err error
				if r, err = s.Transition(ctx, Change{ID: r.ID, Version: r.Version, To: st, Reason: "test." + string(st) + ".setup"}); err != nil {
					t.Fatal(err)
				}
			}
			v := r.Version
			if tt.stale {
				v--
			}
			before, _ := s.Audit(ctx, r.ID)
			_, err := s.Transition(ctx, Change{ID: r.ID, Version: v, To: tt.to, Reason: "test.x.y"})
			after, _ := s.Audit(ctx, r.ID)
			if tt.wantErr == nil {
				if err != nil || len(after) != len(before)+1 {
					t.Fatalf("Transition = %v, audit %d → %d rows; want success and one new row", err, len(before), len(after))
				}
				return
			}
			if !errors.Is(err, tt.wantErr) {
				t.Fatalf("Transition = %v; want %v", err, tt.wantErr)
			}
			if len(after) != len(before) {
				t.Fatalf("a refused transition wrote %d audit rows", len(after)-len(before))
			}
			got, _ := s.Get(ctx, r.ID)
			if got.Version != r.Version || got.Status != r.Status {
				t.Fatalf("a refused transition changed the record: %+v", got)
			}
		})
	}
}

func TestTransitionRecordsProcessAndEnd(t *testing.T) {
	ctx := context.Background()
	s := newStore(t)
	r := create(t, s, NewRecord{})
	r, err := s.Transition(ctx, Change{ID: r.ID, Version: r.Version, To: StatusRunning, Reason: "run.running.started",
		Process: &Process{PID: 4242, PGID: 4242, StartTime: 99}})
	if err != nil {
		t.Fatal(err)
	}
	code := 3
	r, err = s.Transition(ctx, Change{ID: r.ID, Version: r.Version, To: StatusFailed, Reason: "run.failed.exit_nonzero", ExitCode: &code})
	if err != nil {
		t.Fatal(err)
	}
	got, _ := s.Get(ctx, r.ID)
	if got.Phase != PhaseStarted || got.PID != 4242 || got.PGID != 4242 || got.StartTime != 99 || got.ExitCode == nil || *got.ExitCode != 3 ||
		got.EndedAt.IsZero() || got.StartedAt.IsZero() || got.Outcome != OutcomeFailed || got.Version != 3 {
		t.Fatalf("stored record = %+v", got)
	}
}

func TestSchemaTriggersBackTheRules(t *testing.T) {
	ctx := context.Background()
	s := newStore(t)
	r := create(t, s, NewRecord{})
	if _, err := s.Transition(ctx, Change{ID: r.ID, Version: r.Version, To: StatusCompleted, Reason: "run.completed.exit_0"}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.DB().Exec("UPDATE records SET status = 'running' WHERE id = ?", r.ID); err == nil {
		t.Fatal("a direct UPDATE of a terminal record succeeded; the floor trigger is missing")
	}
	if _, err := s.DB().Exec("DELETE FROM transitions"); err == nil {
		t.Fatal("deleting audit rows succeeded; the append-only trigger is missing")
	}
	if _, err := s.DB().Exec("UPDATE transitions SET reason_code = 'x'"); err == nil {
		t.Fatal("updating audit rows succeeded; the append-only trigger is missing")
	}
}

// TestRandomConcurrentTransitions is the property test: 1,000 random
// transitions from concurrent writers (separate connections) never move a
// terminal record, and every accepted transition has exactly one audit row
// forming an unbroken version chain.
func TestRandomConcurrentTransitions(t *testing.T) {
	ctx := context.Background()
	s := newStore(t)
	s.DB().SetMaxOpenConns(8)
	const nRecords, nWriters, perWriter = 20, 8, 125 // 1,000 attempts
	ids := make([]string, nRecords)
	for i := range ids {
		nr := NewRecord{}
		if i%2 == 0 { // half the records announce their end
			nr.Notify = Notify{URL: "http://127.0.0.1:9/", Command: []string{"/bin/true"}, Timeout: time.Second, MaxAttempts: 1}
		}
		ids[i] = create(t, s, nr).ID
	}
	var hookCalls sync.Map // id → count
	s.OnTerminal(func(_ context.Context, r Record) {
		n, _ := hookCalls.LoadOrStore(r.ID, new(int64))
		atomic.AddInt64(n.(*int64), 1)
	})
	var accepted atomic.Int64
	var wg sync.WaitGroup
	for w := 0; w < nWriters; w++ {
		wg.Add(1)
		go func(seed int64) {
			defer wg.Done()
			rng := rand.New(rand.NewSource(seed))
			for i := 0; i < perWriter; i++ {
				id := ids[rng.Intn(nRecords)]
				r, err := s.Get(ctx, id)
				if err != nil {
					t.Error(err)
					return
				}
				v := r.Version
				if rng.Intn(4) == 0 {
					v -= int64(rng.Intn(2)) // sometimes stale
				}
				to := Statuses[rng.Intn(len(Statuses))]
				_, err = s.Transition(ctx, Change{ID: id, Version: v, To: to, Reason: "prop." + string(to) + ".random", Actor: "writer"})
				switch {
				case err == nil:
					accepted.Add(1)
				case errors.Is(err, ErrTerminal), errors.Is(err, ErrConflict), errors.Is(err, ErrInvalidTransition):
				default:
					t.Errorf("unexpected error: %v", err)
				}
			}
		}(int64(w))
	}
	wg.Wait()
	audit, err := s.Audit(ctx, "")
	if err != nil {
		t.Fatal(err)
	}
	if got, want := len(audit), nRecords+int(accepted.Load()); got != want {
		t.Fatalf("audit has %d rows; want %d (creations + accepted transitions): a row was lost or invented", got, want)
	}
	byRecord := map[string][]AuditRow{}
	for _, a := range audit {
		byRecord[a.RecordID] = append(byRecord[a.RecordID], a)
	}
	terminalSeen := 0
	for _, id := range ids {
		rows := byRecord[id]
		for i, a := range rows {
			if a.FromVersion != int64(i) || a.ToVersion != int64(i+1) {
				t.Fatalf("record %s: row %d has versions %d→%d; the chain is broken", id, i, a.FromVersion, a.ToVersion)
			}
			if i > 0 && rows[i-1].ToStatus != a.FromStatus {
				t.Fatalf("record %s: row %d starts from %s but the previous row ended at %s", id, i, a.FromStatus, rows[i-1].ToStatus)
			}
			if a.FromStatus.Terminal() && a.FromStatus != "" {
				t.Fatalf("record %s: terminal floor regressed: %s → %s", id, a.FromStatus, a.ToStatus)
			}
		}
		r, _ := s.Get(ctx, id)
		last := rows[len(rows)-1]
		if r.Status != last.ToStatus || r.Version != last.ToVersion {
			t.Fatalf("record %s is %s v%d but its audit ends at %s v%d", id, r.Status, r.Version, last.ToStatus, last.ToVersion)
		}
		calls := int64(0)
		if n, ok := hookCalls.Load(id); ok {
			calls = atomic.LoadInt64(n.(*int64))
		}
		if r.Terminal() {
			terminalSeen++
			if calls != 1 {
				t.Fatalf("record %s: terminal hook ran %d times; want exactly once", id, calls)
			}
		} else if calls != 0 {
			t.Fatalf("record %s is not terminal but the terminal hook ran %d times", id, calls)
		}
		ds, err := s.Deliveries(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		want := 0
		if r.Terminal() {
			want = len(r.Notify.Channels())
		}
		if len(ds) != want {
			t.Fatalf("record %s (%s) has %d deliveries; want %d (one per channel, only once it ends)", id, r.Status, len(ds), want)
		}
		for _, d := range ds {
			if d.RecordVersion != last.ToVersion {
				t.Fatalf("record %s: delivery announces version %d; the end is version %d", id, d.RecordVersion, last.ToVersion)
			}
		}
	}
	if terminalSeen == 0 || accepted.Load() < nRecords {
		t.Fatalf("the random walk was too timid to test anything: %d accepted, %d terminal", accepted.Load(), terminalSeen)
	}
}

func TestList(t *testing.T) {
	ctx := context.Background()
	s := newStore(t)
	for i := 0; i < 7; i++ {
		create(t, s, NewRecord{Kind: KindInvocation})
	}
	create(t, s, NewRecord{Kind: KindSession})
	var all []string
	cursor := ""
	for pages := 0; ; pages++ {
		p, err := s.List(ctx, ListQuery{Limit: 3, Cursor: cursor})
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range p.Records {
			all = append(all, r.ID)
		}
		if p.NextCursor == "" {
			break
		}
		cursor = p.NextCursor
		if pages > 5 {
			t.Fatal("pagination does not end")
		}
	}
	if len(all) != 8 {
		t.Fatalf("paged through %d records; want 8", len(all))
	}
	seen := map[string]bool{}
	for _, id := range all {
		if seen[id] {
			t.Fatalf("record %s listed twice", id)
		}
		seen[id] = true
	}
	p, err := s.List(ctx, ListQuery{Kind: KindSession})
	if err != nil || len(p.Records) != 1 {
		t.Fatalf("kind filter: %d records, %v", len(p.Records), err)
	}
	if _, err := s.List(ctx, ListQuery{Cursor: "garbage!"}); !errors.Is(err, ErrBadCursor) {
		t.Fatalf("bad cursor = %v", err)
	}
	for _, limit := range []int{-1, MaxListLimit + 1} {
		if _, err := s.List(ctx, ListQuery{Limit: limit}); err == nil {
			t.Fatalf("limit %d was accepted", limit)
		}
	}

	// The status filter.
	ended := end(t, s, create(t, s, NewRecord{}), StatusCancelled)
	p, err = s.List(ctx, ListQuery{Status: StatusCancelled})
	if err != nil || len(p.Records) != 1 || p.Records[0].ID != ended.ID {
		t.Fatalf("status filter: %d records, %v; want only %s", len(p.Records), err, ended.ID)
	}

	// A cursor is a position: records created after it was handed out do
	// not shift the next page.
	before, err := s.List(ctx, ListQuery{Limit: MaxListLimit})
	if err != nil {
		t.Fatal(err)
	}
	first, err := s.List(ctx, ListQuery{Limit: 3})
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 4; i++ {
		create(t, s, NewRecord{})
	}
	second, err := s.List(ctx, ListQuery{Limit: 3, Cursor: first.NextCursor})
	if err != nil {
		t.Fatal(err)
	}
	var want, got []string
	for _, r := range before.Records[3:6] {
		want = append(want, r.ID)
	}
	for _, r := range second.Records {
		got = append(got, r.ID)
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Fatalf("second page after new records (-want +got):\n%s", d)
	}
}

func TestShowSettlesOnceWhenItsLastPlayEnds(t *testing.T) {
	ctx := context.Background()
	s := newStore(t)
	var plays []Record
	for i := 0; i < 6; i++ {
		recs, err := s.Create(ctx, CreateOptions{Show: "nightly"}, NewRecord{Kind: KindPlay})
		if err != nil {
			t.Fatal(err)
		}
		plays = append(plays, recs[0])
	}
	show := plays[0].Parent
	for _, p := range plays {
		if p.Parent != show {
			t.Fatalf("plays of one show have parents %s and %s", show, p.Parent)
		}
	}
	// One play ending while the others are open leaves the show open.
	first := plays[0]
	if _, err := s.Transition(ctx, Change{ID: first.ID, Version: first.Version, To: StatusCompleted, Reason: "run.completed.all_steps"}); err != nil {
		t.Fatal(err)
	}
	if r, ok, err := s.SettleShow(ctx, show, "test"); err != nil || ok || r.Terminal() {
		t.Fatalf("SettleShow with 5 plays open = %s, %v, %v; want the show left open", r.Status, ok, err)
	}
	plays = plays[1:]
	var settled atomic.Int64
	var wg sync.WaitGroup
	for _, p := range plays {
		wg.Add(1)
		go func(p Record) {
			defer wg.Done()
			if _, err := s.Transition(ctx, Change{ID: p.ID, Version: p.Version, To: StatusCompleted, Reason: "run.completed.all_steps"}); err != nil {
				t.Error(err)
			}
			if _, ok, err := s.SettleShow(ctx, show, "test"); err != nil {
				t.Error(err)
			} else if ok {
				settled.Add(1)
			}
		}(p)
	}
	wg.Wait()
	r, _ := s.Get(ctx, show)
	if settled.Load() != 1 || r.Status != StatusCompleted {
		t.Fatalf("show settled %d times, status %s; want once, completed", settled.Load(), r.Status)
	}
	recs, err := s.Create(ctx, CreateOptions{Show: "nightly"}, NewRecord{Kind: KindPlay})
	if err != nil || recs[0].Parent == show {
		t.Fatalf("a play after the show ended joined the ended show (%v)", err)
	}
}

// TestStats: counts by kind and status; durations (start to end, in
// seconds) only over records that both started and ended.
func TestStats(t *testing.T) {
	ctx := context.Background()
	s, clk := storeWithClock(t)
	run := func(d time.Duration, to Status) {
		r := create(t, s, NewRecord{})
		r = end(t, s, r, StatusRunning)
		clk.add(d)
		end(t, s, r, to)
	}
	run(2*time.Second, StatusCompleted)
	run(6*time.Second, StatusFailed)
	end(t, s, create(t, s, NewRecord{}), StatusCancelled) // never started: no duration
	end(t, s, create(t, s, NewRecord{}), StatusRunning)   // still running
	create(t, s, NewRecord{Kind: KindSession})
	got, err := s.Stats(ctx)
	if err != nil {
		t.Fatal(err)
	}
	want := []KindStats{
		{Kind: KindInvocation, Total: 4, Ended: 2,
			ByStatus: map[Status]int{StatusCompleted: 1, StatusFailed: 1, StatusCancelled: 1, StatusRunning: 1},
			Duration: &DurationSummary{Min: 2, Mean: 4, Max: 6}},
		{Kind: KindSession, Total: 1, ByStatus: map[Status]int{StatusPreparing: 1}},
		{Kind: KindPlay, ByStatus: map[Status]int{}},
		{Kind: KindShow, ByStatus: map[Status]int{}},
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Fatalf("Stats (-want +got):\n%s", d)
	}
}

// TestLockedStoreIsBusy: a write that waits past the busy timeout for
// another writer's lock fails with ErrBusy naming the file, and changes
// nothing.
func TestLockedStoreIsBusy(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "state.db")
	holder, err := Open(ctx, path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer holder.Close()
	r := create(t, holder, NewRecord{})
	waiter, err := Open(ctx, path, Options{BusyTimeout: 100 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	defer waiter.Close()
	tx, err := holder.DB().BeginTx(ctx, nil) // IMMEDIATE: takes the write lock
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback()
	_, err = waiter.Transition(ctx, Change{ID: r.ID, Version: r.Version, To: StatusRunning, Reason: "run.running.started"})
	var pe *PathError
	if !errors.Is(err, ErrBusy) || !errors.As(err, &pe) || pe.Path != path {
		t.Fatalf("Transition under a held lock = %v; want ErrBusy naming %s", err, path)
	}
	tx.Rollback()
	if got, _ := waiter.Get(ctx, r.ID); got.Status != StatusPreparing || got.Version != r.Version {
		t.Fatalf("the busy transition changed the record: %s v%d", got.Status, got.Version)
	}
}
