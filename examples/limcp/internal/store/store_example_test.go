package store_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

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

// A record with a notify setting gets its pending deliveries with its end;
// each attempt is claimed by compare-and-set, so a second claimant gets
// nothing while the first holds it.
func ExampleStore_ClaimDelivery() {
	ctx := context.Background()
	dir, _ := os.MkdirTemp("", "limcp-example-")
	defer os.RemoveAll(dir)
	st, _ := store.Open(ctx, filepath.Join(dir, "state.db"), store.Options{})
	defer st.Close()
	recs, _ := st.Create(ctx, store.CreateOptions{}, store.NewRecord{Kind: store.KindInvocation,
		Notify: store.Notify{Command: []string{"/usr/bin/logger"}, Timeout: 5 * time.Second, MaxAttempts: 2}})
	r, _ := st.Transition(ctx, store.Change{ID: recs[0].ID, Version: recs[0].Version, To: store.StatusCompleted, Reason: "run.completed.exit_0"})

	first, ok1, _ := st.ClaimDelivery(ctx, r.ID, store.ChannelCommand, "first", time.Minute)
	_, ok2, _ := st.ClaimDelivery(ctx, r.ID, store.ChannelCommand, "second", time.Minute)
	fmt.Println(first.State, first.Attempts, ok1, ok2)
	d, _ := st.RecordAttempt(ctx, first, store.Attempt{Error: "exit status 1", RetryAfter: 0})
	fmt.Println(d.State, d.LastError)
	again, _, _ := st.ClaimDelivery(ctx, r.ID, store.ChannelCommand, "first", time.Minute)
	d, _ = st.RecordAttempt(ctx, again, store.Attempt{Delivered: true})
	fmt.Println(d.State, d.Attempts)
	// Output:
	// attempting 1 true false
	// retrying exit status 1
	// delivered 2
}

// Resolve takes a full id or a unique prefix of at least MinPrefix
// characters; it never guesses among several matches.
func ExampleStore_Resolve() {
	ctx := context.Background()
	dir, _ := os.MkdirTemp("", "limcp-example-")
	defer os.RemoveAll(dir)
	st, _ := store.Open(ctx, filepath.Join(dir, "state.db"), store.Options{})
	defer st.Close()
	for _, id := range []string{"abcdef0000000001", "abcdef0000000002", "1234567800000003"} {
		st.Create(ctx, store.CreateOptions{}, store.NewRecord{ID: id, Kind: store.KindInvocation})
	}
	r, err := st.Resolve(ctx, "12345678")
	fmt.Println(r.ID, err)
	_, err = st.Resolve(ctx, "abcdef00")
	fmt.Println(err)
	_, err = st.Resolve(ctx, "1234")
	fmt.Println(err)
	// Output:
	// 1234567800000003 <nil>
	// id prefix "abcdef00" is ambiguous: it matches abcdef0000000001, abcdef0000000002
	// no record has id "1234" (a prefix must have at least 8 characters)
}
