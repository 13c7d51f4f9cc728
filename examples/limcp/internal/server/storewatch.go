//go:build unix

package server

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	"github.com/fsnotify/fsnotify"
)

// The change signal on the lifecycle store: the server learns
// that the store may have changed without opening it, let alone writing it.
//
// What counts as a change was measured on limcp's store (SQLite in WAL
// mode): a transaction that writes appends frames to "state.db-wal" (a
// write to it), and the last connection to close copies them into
// "state.db" (a write to it) before deleting the WAL. A session that only
// reads — every `limcp job observe` this server runs, for instance — creates
// and deletes the -wal and -shm files and closes state.db, but writes
// neither state.db nor state.db-wal. So the signal is a write to exactly
// those two names, or state.db itself appearing (created, or renamed into
// place): a wait's own observations never wake it, and each real write
// causes at most two wakes (its frames, then their checkpoint).
//
// The events come from the kernel through github.com/fsnotify/fsnotify,
// watching the state home directory: inotify on Linux, kqueue on macOS and
// FreeBSD (which watches each file of the directory too, so a write inside
// a file is seen there as well). Watching needs the directory to exist and
// the kernel to grant a watch; when either is missing, or the directory
// goes away, the watcher polls the two files' size and modification time
// instead, and keeps trying to set the watch up. Polling the files ignores
// an empty WAL, which is what a read-only session leaves for a moment.
//
// Switching between the two loses nothing: the watcher keeps the files'
// state as it last saw it (seen), and each mode starts from it. Once a
// watch is set up, the files are compared with seen and a difference is a
// change (a write between polling's last look and the watch would
// otherwise reach neither); polling after a lost watch compares its first
// look with seen, kept current after every change the events reported.
//
// The watcher starts when the first job.wait needs it (lazyStoreWatch):
// a server that answers one request and exits (limcp call) never makes an
// inotify instance, whose teardown at exit was most of that cold path
// (16 of 26.5 ms). A write before the first wait needs no signal: the
// wait's first observation reads the store after the watch is set up.

const (
	// storePollEvery is the fallback's sampling period.
	storePollEvery = 100 * time.Millisecond
	// watchRetryEvery is how often the fallback retries the event watch.
	watchRetryEvery = time.Second
)

// Watch modes, as reported by storeWatcher.mode: the kernel's event
// mechanism by name ("inotify" on Linux, "kqueue" on macOS and the BSDs,
// see watchEvents), or the fallback.
const watchPolling = "polling"

// watchEvents names the mechanism fsnotify uses on this platform.
var watchEvents = map[string]string{"linux": "inotify", "darwin": "kqueue", "freebsd": "kqueue",
	"openbsd": "kqueue", "netbsd": "kqueue", "dragonfly": "kqueue", "illumos": "fen", "solaris": "fen"}[runtime.GOOS]

type storeWatcher struct {
	dir      string
	names    map[string]bool // base names whose modification is a change
	created  string          // the base name whose appearance is a change: the store file
	onChange func()
	noEvents bool // tests (and --store-polling): force the polling fallback

	pollEvery, retryEvery time.Duration // storePollEvery, watchRetryEvery
	// seen is the files' state as the watcher last saw it; only its own
	// goroutine touches it.
	seen map[string]fileSig
	// Test hooks, nil in production: beforeWatch runs just before the
	// watch is set up (an error fails the attempt, as a missing directory
	// does); afterLost just after a watch is lost, before polling looks.
	beforeWatch func() error
	afterLost   func()

	cancel context.CancelFunc
	done   chan struct{}
	mode   atomic.Value // string: watchEvents or watchPolling
}

// watchStore starts watching the store file dbFile (an absolute path) for
// writes and calls onChange for each batch of changes it sees. It returns
// once the watch is set up (or, failing that, polling has taken its first
// look), so a write made after it returns is signalled. Stop it with close.
func watchStore(dbFile string, onChange func(), noEvents bool) *storeWatcher {
	w := newStoreWatcher(dbFile, onChange, noEvents)
	w.start()
	return w
}

func newStoreWatcher(dbFile string, onChange func(), noEvents bool) *storeWatcher {
	base := filepath.Base(dbFile)
	w := &storeWatcher{
		dir:        filepath.Dir(dbFile),
		names:      map[string]bool{base: true, base + "-wal": true},
		created:    base,
		onChange:   onChange,
		noEvents:   noEvents || watchEvents == "",
		pollEvery:  storePollEvery,
		retryEvery: watchRetryEvery,
		done:       make(chan struct{}),
	}
	w.mode.Store(watchPolling)
	return w
}

func (w *storeWatcher) start() {
	ctx, cancel := context.WithCancel(context.Background())
	w.cancel = cancel
	w.seen = w.signature()
	ready := make(chan struct{})
	go w.run(ctx, ready)
	<-ready
}

func (w *storeWatcher) close() {
	w.cancel()
	<-w.done
}

func (w *storeWatcher) currentMode() string { return w.mode.Load().(string) }

// run alternates between events and polling until ctx ends; ready is
// closed once the first mode is in place.
func (w *storeWatcher) run(ctx context.Context, ready chan struct{}) {
	defer close(w.done)
	for ctx.Err() == nil {
		if !w.noEvents {
			err := w.events(ctx, ready)
			if err == nil {
				return // ctx ended
			}
			if w.afterLost != nil {
				w.afterLost()
			}
		}
		w.mode.Store(watchPolling)
		w.poll(ctx, w.retryEvery, ready)
	}
}

var errWatchLost = errors.New("the watched directory went away")

// events watches the directory until ctx ends (nil) or the watch cannot
// be set up or is lost (an error: fall back to polling).
func (w *storeWatcher) events(ctx context.Context, ready chan struct{}) error {
	fw, err := fsnotify.NewWatcher()
	if err != nil {
		return err
	}
	defer fw.Close()
	if w.beforeWatch != nil {
		if err := w.beforeWatch(); err != nil {
			return err
		}
	}
	if err := fw.Add(w.dir); err != nil {
		return err
	}
	w.mode.Store(watchEvents)
	// What changed before the watch existed (since polling last looked)
	// no event will report.
	w.look()
	signalReady(ready)
	for {
		select {
		case <-ctx.Done():
			return nil
		case ev, ok := <-fw.Events:
			if !ok {
				return errWatchLost
			}
			changed, lost := w.classify(ev)
			if changed {
				w.seen = w.signature() // polling, should the watch be lost, starts from here
				w.onChange()
			}
			if lost || len(fw.WatchList()) == 0 {
				return errWatchLost
			}
		case err, ok := <-fw.Errors:
			if !ok {
				return errWatchLost
			}
			if errors.Is(err, fsnotify.ErrEventOverflow) {
				w.seen = w.signature()
				w.onChange() // an overflow may have dropped a change: count it as one
				continue
			}
			return err
		}
	}
}

// look compares the files with what the watcher last saw, signals a
// difference, and remembers what it saw.
func (w *storeWatcher) look() {
	sig := w.signature()
	if !sameSig(sig, w.seen) {
		w.seen = sig
		w.onChange()
	}
}

func signalReady(ready chan struct{}) {
	select {
	case <-ready:
	default:
		close(ready)
	}
}

// classify reads one event: whether it is a change of a watched name, and
// whether the watch itself is gone (the directory removed or renamed).
func (w *storeWatcher) classify(ev fsnotify.Event) (changed, lost bool) {
	if filepath.Clean(ev.Name) == w.dir {
		return false, ev.Has(fsnotify.Remove) || ev.Has(fsnotify.Rename)
	}
	if filepath.Dir(ev.Name) != w.dir {
		return false, false
	}
	name := filepath.Base(ev.Name)
	switch {
	case ev.Has(fsnotify.Write) && w.names[name]:
		return true, false
	case ev.Has(fsnotify.Create) && name == w.created:
		return true, false
	}
	return false, false
}

// fileSig is what polling compares: size and modification time.
type fileSig struct {
	size  int64
	mtime int64
}

func (w *storeWatcher) signature() map[string]fileSig {
	sig := make(map[string]fileSig, len(w.names))
	for name := range w.names {
		fi, err := os.Stat(filepath.Join(w.dir, name))
		if err != nil || fi.Size() == 0 {
			continue // missing, or an empty WAL a reader left for a moment
		}
		sig[name] = fileSig{fi.Size(), fi.ModTime().UnixNano()}
	}
	return sig
}

// poll samples the files every pollEvery for d (or until ctx ends),
// comparing each look with the one before, the first with what the
// watcher last saw in any mode.
func (w *storeWatcher) poll(ctx context.Context, d time.Duration, ready chan struct{}) {
	w.look() // what changed while no watch reported anything
	signalReady(ready)
	tick := time.NewTicker(w.pollEvery)
	defer tick.Stop()
	deadline := time.Now().Add(d)
	for {
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
		w.look()
		if !w.noEvents && time.Now().After(deadline) {
			return
		}
	}
}

// lazyStoreWatch is the store watcher of a server, started by the first
// job.wait that subscribes to the wakes (ensure) rather than when the
// server starts; see the note on the cold path above.
type lazyStoreWatch struct {
	dbFile   string
	onChange func()
	noEvents bool

	mu     sync.Mutex
	w      *storeWatcher // nil until started
	closed bool
}

// watchModeUnstarted is the mode before the first wait started the watch.
const watchModeUnstarted = "unstarted"

// ensure starts the watcher unless it runs or the server closed; it
// returns once the watch is in place.
func (l *lazyStoreWatch) ensure() {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.w == nil && !l.closed {
		l.w = watchStore(l.dbFile, l.onChange, l.noEvents)
	}
}

func (l *lazyStoreWatch) currentMode() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.w == nil {
		return watchModeUnstarted
	}
	return l.w.currentMode()
}

func (l *lazyStoreWatch) close() {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.closed = true
	if l.w != nil {
		l.w.close()
	}
}

func sameSig(a, b map[string]fileSig) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}
