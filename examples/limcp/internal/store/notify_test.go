package store

import (
	"context"
	"errors"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

var bothChannels = Notify{URL: "http://127.0.0.1:9/n", Command: []string{"/bin/true"}, Timeout: time.Second, MaxAttempts: 2}

// clock is a settable time source for Options.Now.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *clock) now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.t }
func (c *clock) add(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}

func storeWithClock(t *testing.T) (*Store, *clock) {
	t.Helper()
	c := &clock{t: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)}
	s, err := Open(context.Background(), filepath.Join(t.TempDir(), "state.db"), Options{Now: c.now})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s, c
}

func end(t *testing.T, s *Store, r Record, to Status) Record {
	t.Helper()
	r, err := s.Transition(context.Background(), Change{ID: r.ID, Version: r.Version, To: to, Reason: "test." + string(to) + ".end"})
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func TestNotifySettingRoundTrips(t *testing.T) {
	s := newStore(t)
	r := create(t, s, NewRecord{Notify: bothChannels})
	got, err := s.Get(context.Background(), r.ID)
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(bothChannels, got.Notify); d != "" {
		t.Fatalf("stored setting (-want +got):\n%s", d)
	}
	if _, err := s.Create(context.Background(), CreateOptions{}, NewRecord{Kind: KindInvocation, Notify: Notify{URL: "http://127.0.0.1:9/"}}); err == nil {
		t.Fatal("a setting without timeout and attempts was stored")
	}
}

func TestTerminalTransitionRecordsPendingDeliveries(t *testing.T) {
	ctx := context.Background()
	tests := []struct {
		name     string
		notify   Notify
		to       []Status
		channels []string
	}{
		{name: "a record without a setting gets no delivery", to: []Status{StatusRunning, StatusCompleted}},
		{name: "a non-terminal transition records no delivery", notify: bothChannels, to: []Status{StatusRunning}},
		{name: "an end records one pending delivery per channel", notify: bothChannels, to: []Status{StatusRunning, StatusFailed}, channels: []string{ChannelCommand, ChannelURL}},
		{name: "a preparing record cancelled is announced too", notify: Notify{Command: []string{"/bin/true"}, Timeout: time.Second, MaxAttempts: 1}, to: []Status{StatusCancelled}, channels: []string{ChannelCommand}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := newStore(t)
			r := create(t, s, NewRecord{Notify: tt.notify})
			for _, st := range tt.to {
				r = end(t, s, r, st)
			}
			ds, err := s.Deliveries(ctx, r.ID)
			if err != nil {
				t.Fatal(err)
			}
			var chans []string
			audit, _ := s.Audit(ctx, r.ID)
			last := audit[len(audit)-1]
			for _, d := range ds {
				chans = append(chans, d.Channel)
				if d.State != DeliveryPending || d.Attempts != 0 || d.MaxAttempts != tt.notify.MaxAttempts ||
					d.TransitionSeq != last.Seq || d.RecordVersion != r.Version || !d.CreatedAt.Equal(last.At) {
					t.Fatalf("delivery %+v does not announce the terminal transition %+v", d, last)
				}
			}
			if d := cmp.Diff(tt.channels, chans); d != "" {
				t.Fatalf("channels (-want +got):\n%s", d)
			}
		})
	}
}

// TestDeliveriesCommitWithTheTransition: if the deliveries cannot be
// written, the end is not written either (one transaction).
func TestDeliveriesCommitWithTheTransition(t *testing.T) {
	ctx := context.Background()
	s := newStore(t)
	r := create(t, s, NewRecord{Notify: bothChannels})
	r = end(t, s, r, StatusRunning)
	// A row already in the way makes the insert of the deliveries fail.
	if _, err := s.DB().Exec(`INSERT INTO deliveries (record_id, channel, transition_seq, record_version, state, max_attempts, created_at)
		VALUES (?, 'url', 0, 0, 'pending', 1, 0)`, r.ID); err != nil {
		t.Fatal(err)
	}
	before, _ := s.Audit(ctx, r.ID)
	if _, err := s.Transition(ctx, Change{ID: r.ID, Version: r.Version, To: StatusCompleted, Reason: "run.completed.exit_0"}); err == nil {
		t.Fatal("the transition committed although its deliveries could not be recorded")
	}
	after, _ := s.Audit(ctx, r.ID)
	got, _ := s.Get(ctx, r.ID)
	if got.Status != StatusRunning || len(after) != len(before) {
		t.Fatalf("a failed delivery insert left the record %s with %d new audit rows", got.Status, len(after)-len(before))
	}
}

func TestDeliveryStateMachine(t *testing.T) {
	ctx := context.Background()
	s, clk := storeWithClock(t)
	r := create(t, s, NewRecord{Notify: Notify{Command: []string{"/bin/true"}, Timeout: time.Second, MaxAttempts: 2}})
	end(t, s, r, StatusCompleted)
	claim := func(who string) (Delivery, bool) {
		t.Helper()
		d, ok, err := s.ClaimDelivery(ctx, r.ID, ChannelCommand, who, 5*time.Second)
		if err != nil {
			t.Fatal(err)
		}
		return d, ok
	}

	d1, ok := claim("a")
	if !ok || d1.State != DeliveryAttempting || d1.Attempts != 1 || d1.Claimant != "a" {
		t.Fatalf("first claim = %+v, %v", d1, ok)
	}
	if _, ok := claim("b"); ok {
		t.Fatal("a held attempt was claimed twice")
	}
	d, err := s.RecordAttempt(ctx, d1, Attempt{Error: "exit status 1", RetryAfter: time.Second})
	if err != nil || d.State != DeliveryRetrying || d.LastError != "exit status 1" || !d.NextAt.Equal(clk.now().Add(time.Second)) {
		t.Fatalf("failed attempt with one left = %+v, %v; want retrying", d, err)
	}
	if _, ok := claim("a"); ok {
		t.Fatal("a retry was claimed before its time")
	}
	clk.add(time.Second)
	d2, ok := claim("a")
	if !ok || d2.Attempts != 2 {
		t.Fatalf("due retry claim = %+v, %v", d2, ok)
	}
	// The claimant vanishes: its lease lapses and the last attempt is lost.
	clk.add(6 * time.Second)
	if _, err := s.RecordAttempt(ctx, Delivery{RecordID: r.ID, Channel: ChannelCommand, Attempts: 1, Claimant: "a", MaxAttempts: 2}, Attempt{Delivered: true}); !errors.Is(err, ErrClaimLost) {
		t.Fatalf("recording a stale attempt = %v; want ErrClaimLost", err)
	}
	d, ok = claim("c")
	if ok || d.State != DeliveryFailed || d.Attempts != 2 || d.FinishedAt.IsZero() {
		t.Fatalf("claim after the last attempt was lost = %+v, %v; want failed", d, ok)
	}
	if _, err := s.RecordAttempt(ctx, d2, Attempt{Delivered: true}); !errors.Is(err, ErrClaimLost) {
		t.Fatalf("the vanished claimant recorded an outcome after being failed: %v", err)
	}
	if _, err := s.DB().Exec("UPDATE deliveries SET state = 'pending' WHERE record_id = ?", r.ID); err == nil {
		t.Fatal("a failed delivery was changed; the trigger is missing")
	}
	if _, err := s.DB().Exec("DELETE FROM deliveries"); err == nil {
		t.Fatal("a delivery was deleted; the trigger is missing")
	}
}

func TestLapsedLeaseIsTakenOverAndDelivered(t *testing.T) {
	ctx := context.Background()
	s, clk := storeWithClock(t)
	r := create(t, s, NewRecord{Notify: Notify{URL: "http://127.0.0.1:9/", Timeout: time.Second, MaxAttempts: 3}})
	end(t, s, r, StatusCancelled)
	a, ok, err := s.ClaimDelivery(ctx, r.ID, ChannelURL, "a", time.Second)
	if err != nil || !ok {
		t.Fatal(ok, err)
	}
	clk.add(2 * time.Second)
	b, ok, err := s.ClaimDelivery(ctx, r.ID, ChannelURL, "b", time.Second)
	if err != nil || !ok || b.Attempts != 2 || b.LastError == "" {
		t.Fatalf("takeover = %+v, %v, %v", b, ok, err)
	}
	if _, err := s.RecordAttempt(ctx, a, Attempt{Delivered: true}); !errors.Is(err, ErrClaimLost) {
		t.Fatalf("the displaced claimant's outcome = %v; want ErrClaimLost", err)
	}
	d, err := s.RecordAttempt(ctx, b, Attempt{Delivered: true})
	if err != nil || d.State != DeliveryDelivered || d.Attempts != 2 || d.LastError == "" {
		t.Fatalf("delivered = %+v, %v (the lost attempt's reason is kept)", d, err)
	}
	if _, ok, _ := s.ClaimDelivery(ctx, r.ID, ChannelURL, "c", time.Second); ok {
		t.Fatal("a delivered notification was claimed again")
	}
}

// TestConcurrentClaimantsOneWins: many claimants on separate connections
// race for one pending delivery; exactly one holds the attempt.
func TestConcurrentClaimantsOneWins(t *testing.T) {
	ctx := context.Background()
	s := newStore(t)
	s.DB().SetMaxOpenConns(16)
	r := create(t, s, NewRecord{Notify: bothChannels})
	end(t, s, r, StatusCompleted)
	var won atomic.Int64
	var wg sync.WaitGroup
	for i := 0; i < 48; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			_, ok, err := s.ClaimDelivery(ctx, r.ID, ChannelURL, "claimant", time.Minute)
			if err != nil {
				t.Error(err)
			}
			if ok {
				won.Add(1)
			}
		}(i)
	}
	wg.Wait()
	if won.Load() != 1 {
		t.Fatalf("%d claimants won; want exactly 1", won.Load())
	}
}

func TestStaleDeliveries(t *testing.T) {
	ctx := context.Background()
	s, clk := storeWithClock(t)
	n := Notify{Command: []string{"/bin/true"}, Timeout: time.Second, MaxAttempts: 3}
	pending := create(t, s, NewRecord{ID: "a000000000000001", Notify: n})
	held := create(t, s, NewRecord{ID: "a000000000000002", Notify: n})
	end(t, s, pending, StatusCompleted)
	end(t, s, held, StatusCompleted)
	if _, ok, _ := s.ClaimDelivery(ctx, held.ID, ChannelCommand, "x", 30*time.Second); !ok {
		t.Fatal("claim failed")
	}
	if ids, _ := s.StaleDeliveries(ctx, 5*time.Second, 10); len(ids) != 0 {
		t.Fatalf("fresh deliveries reported stale: %v", ids)
	}
	clk.add(6 * time.Second)
	if ids, _ := s.StaleDeliveries(ctx, 5*time.Second, 10); !cmp.Equal(ids, []string{pending.ID}) {
		t.Fatalf("stale = %v; want only the unclaimed pending one", ids)
	}
	clk.add(30 * time.Second)
	if ids, _ := s.StaleDeliveries(ctx, 5*time.Second, 10); !cmp.Equal(ids, []string{pending.ID, held.ID}) {
		t.Fatalf("stale = %v; want the lapsed lease too", ids)
	}
}

// TestMigrateToVersion3KeepsRecords: a version 2 store with records is
// migrated; its records have no setting, end without deliveries, and new
// records can carry one.
func TestMigrateToVersion3KeepsRecords(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "state.db")
	if err := CreateAt(ctx, path, 2); err != nil {
		t.Fatal(err)
	}
	old, err := openDB(path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := old.DB().Exec(`INSERT INTO records (id, kind, status, phase, outcome, created_at, updated_at, version)
		VALUES ('b000000000000001', 'invocation', 'running', 'started', 'none', 1, 1, 2)`); err != nil {
		t.Fatal(err)
	}
	old.Close()
	if _, err := Open(ctx, path, Options{}); !errors.Is(err, ErrSchemaOutdated) {
		t.Fatalf("Open(v2) = %v; want ErrSchemaOutdated", err)
	}
	s, err := Open(ctx, path, Options{AllowOutdated: true})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if from, to, err := s.Migrate(ctx); err != nil || from != 2 || to != 3 {
		t.Fatalf("Migrate = %d, %d, %v", from, to, err)
	}
	r, err := s.Get(ctx, "b000000000000001")
	if err != nil || !r.Notify.Empty() || r.Version != 2 {
		t.Fatalf("migrated record = %+v, %v", r, err)
	}
	end(t, s, r, StatusCompleted)
	if ds, _ := s.Deliveries(ctx, r.ID); len(ds) != 0 {
		t.Fatalf("a record without a setting got deliveries: %+v", ds)
	}
	nr := create(t, s, NewRecord{Notify: bothChannels})
	end(t, s, nr, StatusFailed)
	if ds, _ := s.Deliveries(ctx, nr.ID); len(ds) != 2 {
		t.Fatalf("a new record's end has %d deliveries; want 2", len(ds))
	}
	if _, _, err := s.Migrate(ctx); err != nil {
		t.Fatalf("migrating again: %v", err)
	}
}

func TestStatusShowsSettingAndDeliveries(t *testing.T) {
	ctx := context.Background()
	s := newStore(t)
	parent := create(t, s, NewRecord{Kind: KindSession, Notify: bothChannels})
	child := create(t, s, NewRecord{Parent: parent.ID})
	sr, err := s.Status(ctx, parent)
	if err != nil {
		t.Fatal(err)
	}
	if !cmp.Equal(sr.Children, []string{child.ID}) || sr.Notify == nil || *sr.Notify.URL != bothChannels.URL ||
		sr.Notify.Timeout != "1s" || sr.Notify.MaxAttempts != 2 || len(sr.Notify.Deliveries) != 0 {
		t.Fatalf("status before the end = %+v", sr)
	}
	parent = end(t, s, parent, StatusCompleted)
	sr, _ = s.Status(ctx, parent)
	if len(sr.Notify.Deliveries) != 2 || sr.Notify.Deliveries[0].State != DeliveryPending {
		t.Fatalf("status after the end = %+v", sr.Notify)
	}
	if sr, _ := s.Status(ctx, child); sr.Notify != nil {
		t.Fatalf("a record without a setting shows notify %+v; want null", sr.Notify)
	}
}
