package store_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/verbsurface/verbsurface/examples/limcp/internal/store"
)

// Every status change is a compare-and-set through Transition; a terminal
// record never changes again.
func ExampleStore_Transition() {
	ctx := context.Background()
	dir, _ := os.MkdirTemp("", "limcp-example-")
	defer os.RemoveAll(dir)
	st, err := store.Open(ctx, filepath.Join(dir, "state.db"), store.Options{})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer st.Close()
	st.OnTerminal(func(_ context.Context, r store.Record) {
		fmt.Println("ended:", r.Status, r.ReasonCode)
	})
	recs, _ := st.Create(ctx, store.CreateOptions{}, store.NewRecord{Kind: store.KindInvocation})
	r := recs[0]
	r, _ = st.Transition(ctx, store.Change{ID: r.ID, Version: r.Version, To: store.StatusRunning, Reason: "run.running.started"})
	stale := r.Version
	r, _ = st.Transition(ctx, store.Change{ID: r.ID, Version: r.Version, To: store.StatusCompleted, Reason: "run.completed.exit_0"})
	_, err = st.Transition(ctx, store.Change{ID: r.ID, Version: stale, To: store.StatusFailed, Reason: "run.failed.process_gone"})
	fmt.Println(errors.Is(err, store.ErrTerminal), r.Version, store.OutcomeOf(r.Status))
	// Output:
	// ended: completed run.completed.exit_0
	// true 3 succeeded
}
