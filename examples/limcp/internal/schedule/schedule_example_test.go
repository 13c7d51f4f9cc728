package schedule_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/verbsurface/verbsurface/examples/limcp/internal/schedule"
	"github.com/verbsurface/verbsurface/examples/limcp/internal/store"
)

func ExampleParse() {
	s, _ := schedule.Parse("30 3 * * *")
	fmt.Println(s.Next(time.Date(2030, 1, 1, 12, 0, 0, 0, time.UTC)))
	_, err := schedule.Parse("30 3 * *")
	fmt.Println(err != nil)
	// Output:
	// 2030-01-02 03:30:00 +0000 UTC
	// true
}

// Tick starts each schedule that is due, once, through the caller's start
// function (the CLI re-executes limcp with the stored command), and moves
// it to its next occurrence.
func ExampleTick() {
	dir, _ := os.MkdirTemp("", "limcp-schedule-example-")
	defer os.RemoveAll(dir)
	ctx := context.Background()
	st, err := store.Open(ctx, filepath.Join(dir, "state.db"), store.Options{})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer st.Close()
	due := time.Date(2030, 1, 1, 3, 0, 0, 0, time.UTC)
	st.AddSchedule(ctx, store.Schedule{Name: "nightly", Cron: "0 3 * * *", Command: []string{"agent", "echo", "check"}, NextRunAt: due})

	start := func(_ context.Context, sc store.Schedule) (string, error) {
		fmt.Println("start", strings.Join(sc.Command, " "))
		return "0123456789abcdef", nil
	}
	now := due.Add(time.Minute)
	started, _ := schedule.Tick(ctx, st, now, start)
	for _, s := range started {
		fmt.Println(s.Schedule, s.ID, s.NextRun)
	}
	again, _ := schedule.Tick(ctx, st, now, start)
	fmt.Println(len(again), "started by a second tick")
	// Output:
	// start agent echo check
	// nightly 0123456789abcdef 2030-01-02 03:00:00 +0000 UTC
	// 0 started by a second tick
}
