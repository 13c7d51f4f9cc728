//go:build unix

package server

import (
	"context"
	"testing"
	"time"

	"github.com/fsnotify/fsnotify"
)

// TestWakeHubCoalescesWithinTheGap: a burst of signals wakes a wait once;
// a signal that arrives during the gap is held, not lost, and wakes the
// wait once the gap has passed; a wait that ends unsubscribes.
func TestWakeHubCoalescesWithinTheGap(t *testing.T) {
	const gap = 300 * time.Millisecond
	h := newWakeHub()
	ctx, cancel := context.WithCancel(context.Background())
	wake := h.subscribe(ctx, gap)
	if n := h.subscribers(); n != 1 {
		t.Fatalf("%d subscribers after subscribe; want 1", n)
	}
	count := func(within time.Duration) int {
		n := 0
		deadline := time.After(within)
		for {
			select {
			case <-wake:
				n++
			case <-deadline:
				return n
			}
		}
	}

	t0 := time.Now()
	for range 100 {
		h.signal()
	}
	if n := count(gap / 2); n != 1 {
		t.Fatalf("a burst of 100 signals woke the wait %d times within half a gap; want 1", n)
	}
	h.signal() // inside the gap: held until it has passed
	select {
	case <-wake:
		if since := time.Since(t0); since < gap {
			t.Fatalf("a second wake came %v after the first, inside the %v gap", since, gap)
		}
	case <-time.After(5 * gap):
		t.Fatal("a signal sent during the gap was lost")
	}
	if n := count(gap + gap/2); n != 0 {
		t.Fatalf("%d wakes without any signal", n)
	}

	cancel()
	deadline := time.Now().Add(2 * time.Second)
	for h.subscribers() != 0 {
		if time.Now().After(deadline) {
			t.Fatalf("a finished wait is still subscribed (%d)", h.subscribers())
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// TestStoreWatcherClassify: only a write to the store or its WAL, or the
// store file appearing, is a change; the -wal and -shm a reader creates and
// deletes, other files of the home, and other directories are not; the
// home itself going away loses the watch.
func TestStoreWatcherClassify(t *testing.T) {
	w := &storeWatcher{dir: "/home/me/.limcp", names: map[string]bool{"state.db": true, "state.db-wal": true}, created: "state.db"}
	for _, c := range []struct {
		name          string
		op            fsnotify.Op
		changed, lost bool
	}{
		{"/home/me/.limcp/state.db", fsnotify.Write, true, false},
		{"/home/me/.limcp/state.db-wal", fsnotify.Write, true, false},
		{"/home/me/.limcp/state.db", fsnotify.Create, true, false},
		{"/home/me/.limcp/state.db-wal", fsnotify.Create, false, false},
		{"/home/me/.limcp/state.db-wal", fsnotify.Remove, false, false},
		{"/home/me/.limcp/state.db-shm", fsnotify.Write, false, false},
		{"/home/me/.limcp/state.db", fsnotify.Chmod, false, false},
		{"/home/me/.limcp/notify.log", fsnotify.Write, false, false},
		{"/home/me/.limcp/runs/state.db", fsnotify.Write, false, false},
		{"/home/me/.limcp", fsnotify.Remove, false, true},
		{"/home/me/.limcp", fsnotify.Rename, false, true},
	} {
		changed, lost := w.classify(fsnotify.Event{Name: c.name, Op: c.op})
		if changed != c.changed || lost != c.lost {
			t.Errorf("%s %s: changed %v lost %v; want %v %v", c.op, c.name, changed, lost, c.changed, c.lost)
		}
	}
}
