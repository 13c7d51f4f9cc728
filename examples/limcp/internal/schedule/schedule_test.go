package schedule

import (
	"context"
	"errors"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/verbsurface/verbsurface/examples/limcp/internal/machine"
	"github.com/verbsurface/verbsurface/examples/limcp/internal/store"
)

func TestParse(t *testing.T) {
	for _, ok := range []string{"*/5 * * * *", "0 3 * * 1-5", "@hourly"} {
		if _, err := Parse(ok); err != nil {
			t.Errorf("Parse(%q) = %v", ok, err)
		}
	}
	for _, bad := range []string{"", "* * * *", "* * * * * *", "61 * * * *", "every day"} {
		_, err := Parse(bad)
		if me, ok := machine.As(err); !ok || me.Code != machine.InvalidCron {
			t.Errorf("Parse(%q) = %v; want invalid_cron", bad, err)
		}
	}
}

func newStore(t *testing.T) *store.Store {
	st, err := store.Open(context.Background(), filepath.Join(t.TempDir(), "state.db"), store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return st
}

func TestTick(t *testing.T) {
	ctx := context.Background()
	st := newStore(t)
	base := time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC)
	add := func(name, expr string, next time.Time, cmd ...string) {
		if _, err := st.AddSchedule(ctx, store.Schedule{Name: name, Cron: expr, Command: cmd, NextRunAt: next}); err != nil {
			t.Fatal(err)
		}
	}
	add("due", "0 * * * *", base, "agent", "echo", "due")
	add("missed-many", "*/5 * * * *", base.Add(-3*time.Hour), "agent", "echo", "backlog")
	add("later", "0 * * * *", base.Add(time.Hour), "agent", "echo", "later")
	add("broken", "0 * * * *", base, "agent", "fails")
	var calls atomic.Int64
	start := func(_ context.Context, argv []string) (string, error) {
		calls.Add(1)
		if argv[1] == "fails" {
			return "", errors.New("provider_not_found: nope")
		}
		return "id-" + argv[2], nil
	}
	now := base.Add(30 * time.Second)
	got, err := Tick(ctx, st, now, start)
	if err != nil {
		t.Fatal(err)
	}
	byName := map[string]Started{}
	for _, s := range got {
		byName[s.Schedule] = s
	}
	if len(got) != 3 || byName["due"].ID != "id-due" || byName["missed-many"].ID != "id-backlog" || byName["broken"].Error == "" {
		t.Fatalf("Tick = %+v; want due, missed-many (once) and broken (failed)", got)
	}
	if calls.Load() != 3 {
		t.Fatalf("start called %d times; a backlog must coalesce into one run", calls.Load())
	}
	if n := byName["missed-many"].NextRun; !n.Equal(base.Add(5 * time.Minute)) {
		t.Fatalf("next run after a backlog = %s; want the next occurrence after now", n)
	}
	sc, _ := st.GetSchedule(ctx, "broken")
	if sc.LastError == "" || sc.LastRecordID != "" {
		t.Fatalf("a failed start was not recorded: %+v", sc)
	}
	if again, _ := Tick(ctx, st, now, start); len(again) != 0 {
		t.Fatalf("a second tick at the same time started %+v", again)
	}
}

func TestConcurrentTicksStartAnOccurrenceOnce(t *testing.T) {
	ctx := context.Background()
	st := newStore(t)
	st.DB().SetMaxOpenConns(8)
	base := time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC)
	if _, err := st.AddSchedule(ctx, store.Schedule{Name: "s", Cron: "0 * * * *", Command: []string{"agent", "echo", "x"}, NextRunAt: base}); err != nil {
		t.Fatal(err)
	}
	var calls atomic.Int64
	var wg sync.WaitGroup
	for i := 0; i < 8; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if _, err := Tick(ctx, st, base, func(context.Context, []string) (string, error) { calls.Add(1); return "id", nil }); err != nil {
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	if calls.Load() != 1 {
		t.Fatalf("8 concurrent ticks started %d runs; want 1", calls.Load())
	}
}
