package schedule

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/verbsurface/verbsurface/examples/limcp/internal/guard"
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
	start := func(_ context.Context, sc store.Schedule) (string, error) {
		argv := sc.Command
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
			if _, err := Tick(ctx, st, base, func(context.Context, store.Schedule) (string, error) { calls.Add(1); return "id", nil }); err != nil {
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	if calls.Load() != 1 {
		t.Fatalf("8 concurrent ticks started %d runs; want 1", calls.Load())
	}
}

// TestTickWithinBudget: a tick with a budget runs at most that many stored
// commands, in name order; the rest are deferred, unclaimed, so the next
// tick finds them still due. A command the guard refuses runs nothing and
// costs nothing; a command that fails to start costs what a failed
// submit costs.
func TestTickWithinBudget(t *testing.T) {
	ctx := context.Background()
	st := newStore(t)
	base := time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC)
	for _, name := range []string{"a-refused", "b", "c-fails", "d", "e"} {
		if _, err := st.AddSchedule(ctx, store.Schedule{Name: name, Cron: "0 * * * *", Command: []string{"agent", "echo", name}, NextRunAt: base}); err != nil {
			t.Fatal(err)
		}
	}
	var ran []string
	start := func(_ context.Context, sc store.Schedule) (string, error) {
		switch sc.Name {
		case "a-refused":
			return "", &guard.Refusal{Forbidden: "notify-command", Reason: "refused"}
		case "c-fails":
			ran = append(ran, sc.Name)
			return "", errors.New("provider_not_found")
		}
		ran = append(ran, sc.Name)
		return "id-" + sc.Name, nil
	}
	got, err := TickWithin(ctx, st, base, 2, start)
	if err != nil {
		t.Fatal(err)
	}
	names := func(ds []Deferred) (out []string) {
		for _, d := range ds {
			out = append(out, d.Schedule)
		}
		return out
	}
	if got.Spent != 2 || fmt.Sprint(ran) != "[b c-fails]" || fmt.Sprint(names(got.Deferred)) != "[d e]" || len(got.Started) != 3 {
		t.Fatalf("TickWithin(2) = %+v, ran %v; want a refused (free), b and c-fails run, d and e deferred", got, ran)
	}
	for _, name := range []string{"d", "e"} {
		if sc, _ := st.GetSchedule(ctx, name); !sc.NextRunAt.Equal(base) || !sc.LastRunAt.IsZero() {
			t.Fatalf("deferred %s was claimed: %+v", name, sc)
		}
	}
	ran = nil
	again, _ := TickWithin(ctx, st, base, 0, start)
	if again.Spent != 0 || len(ran) != 0 || fmt.Sprint(names(again.Deferred)) != "[d e]" {
		t.Fatalf("TickWithin(0) = %+v, ran %v; want nothing run, d and e deferred again", again, ran)
	}
	rest, _ := TickWithin(ctx, st, base, -1, start)
	if rest.Spent != 2 || fmt.Sprint(ran) != "[d e]" || len(rest.Deferred) != 0 {
		t.Fatalf("TickWithin(-1) = %+v, ran %v; want the deferred two started", rest, ran)
	}
}
