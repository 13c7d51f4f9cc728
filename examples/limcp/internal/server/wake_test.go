//go:build unix

package server

import (
	"context"
	"errors"
	"os"
	"path/filepath"
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

// switchWatcher is a watcher of dir/state.db that counts its signals on a
// channel, polling every millisecond and retrying the watch at once.
func switchWatcher(t *testing.T, dir string) (*storeWatcher, <-chan struct{}) {
	t.Helper()
	signals := make(chan struct{}, 64)
	w := newStoreWatcher(filepath.Join(dir, "state.db"), func() { signals <- struct{}{} }, false)
	w.pollEvery, w.retryEvery = time.Millisecond, time.Millisecond
	t.Cleanup(w.close)
	return w, signals
}

func signalled(t *testing.T, signals <-chan struct{}, what string) {
	t.Helper()
	select {
	case <-signals:
	case <-time.After(10 * time.Second):
		t.Fatalf("%s was never signalled", what)
	}
}

// TestStoreWatcherSwitchToEventsLosesNoWrite: a write made after polling
// last looked and before the kernel watch exists (what a home created
// while the server watches it meets) is signalled once the watch is up:
// the watcher compares the files with what it last saw. The hook makes
// the write exactly there, every time.
func TestStoreWatcherSwitchToEventsLosesNoWrite(t *testing.T) {
	if watchEvents == "" {
		t.Skip("no kernel events on this platform: the watcher only polls")
	}
	dir := t.TempDir()
	w, signals := switchWatcher(t, dir)
	attempts := 0
	w.beforeWatch = func() error {
		attempts++
		if attempts == 1 {
			return errors.New("not yet") // the first watch fails: polling takes over
		}
		if attempts == 2 { // polling has looked and stopped; the watch is not up yet
			if err := os.WriteFile(filepath.Join(dir, "state.db"), []byte("written during the switch"), 0o600); err != nil {
				t.Error(err)
			}
		}
		return nil
	}
	w.start()
	signalled(t, signals, "a write between polling and the watch")
	if m := w.currentMode(); m != watchEvents {
		t.Fatalf("mode %s after the switch, want %s", m, watchEvents)
	}
}

// TestStoreWatcherSwitchToPollingLosesNoWrite: a write made after the
// watch was lost and before polling first looks is signalled by that first
// look: polling starts from what the watch last saw, not from what it
// finds. The hook removes and rewrites the store exactly there.
func TestStoreWatcherSwitchToPollingLosesNoWrite(t *testing.T) {
	if watchEvents == "" {
		t.Skip("no kernel events on this platform: the watcher only polls")
	}
	base := t.TempDir()
	dir := filepath.Join(base, "home")
	if err := os.Mkdir(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "state.db"), []byte("before"), 0o600); err != nil {
		t.Fatal(err)
	}
	w, signals := switchWatcher(t, dir)
	lost := make(chan struct{})
	w.afterLost = func() {
		select {
		case <-lost:
			return // only the first loss
		default:
		}
		close(lost)
		if err := os.Mkdir(dir, 0o700); err != nil {
			t.Error(err)
		}
		if err := os.WriteFile(filepath.Join(dir, "state.db"), []byte("written while no watch was up"), 0o600); err != nil {
			t.Error(err)
		}
	}
	w.beforeWatch = func() error {
		select {
		case <-lost: // keep polling after the loss: the first look is under test
			return errors.New("stay polling")
		default:
			return nil
		}
	}
	w.start()
	if m := w.currentMode(); m != watchEvents {
		t.Fatalf("mode %s at start, want %s", m, watchEvents)
	}
	if err := os.RemoveAll(dir); err != nil { // loses the watch
		t.Fatal(err)
	}
	signalled(t, signals, "a write between the lost watch and polling's first look")
}

// TestStoreWatcherStartsOnTheFirstWait: a server starts no watcher; help,
// a status and a second server's lifetime leave it unstarted; the first
// job.wait starts it, and it is watching by the time the wait returns.
func TestStoreWatcherStartsOnTheFirstWait(t *testing.T) {
	var started []string
	l := &lazyStoreWatch{dbFile: filepath.Join(t.TempDir(), "state.db"), onChange: func() {}}
	h := newWakeHub()
	h.onSubscribe = func() { l.ensure(); started = append(started, l.currentMode()) }
	if m := l.currentMode(); m != watchModeUnstarted {
		t.Fatalf("mode %s before any wait", m)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	h.subscribe(ctx, WakeGap)
	h.subscribe(ctx, WakeGap)
	want := watchEvents
	if want == "" {
		want = watchPolling
	}
	if len(started) != 2 || started[0] != want || started[1] != want {
		t.Fatalf("modes at each subscription: %v, want [%s %s]", started, want, want)
	}
	l.close()
	l.ensure() // a closed server never starts it again
	if l.w == nil || l.currentMode() == watchModeUnstarted {
		t.Fatal("the watcher started by the wait is gone")
	}
	select {
	case <-l.w.done:
	default:
		t.Fatal("close did not stop the watcher")
	}
	closedFirst := &lazyStoreWatch{dbFile: filepath.Join(t.TempDir(), "state.db"), onChange: func() {}}
	closedFirst.close()
	closedFirst.ensure()
	if m := closedFirst.currentMode(); m != watchModeUnstarted {
		t.Fatalf("a server closed before any wait started its watcher: %s", m)
	}
}
