//go:build unix

package server

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"runtime"
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

	cancel context.CancelFunc
	done   chan struct{}
	mode   atomic.Value // string: watchEvents or watchPolling
}

// watchStore starts watching the store file dbFile (an absolute path) for
// writes and calls onChange for each batch of changes it sees. Stop it with
// close.
func watchStore(dbFile string, onChange func(), noEvents bool) *storeWatcher {
	ctx, cancel := context.WithCancel(context.Background())
	base := filepath.Base(dbFile)
	w := &storeWatcher{
		dir:      filepath.Dir(dbFile),
		names:    map[string]bool{base: true, base + "-wal": true},
		created:  base,
		onChange: onChange,
		noEvents: noEvents || watchEvents == "",
		cancel:   cancel,
		done:     make(chan struct{}),
	}
	w.mode.Store(watchPolling)
	go w.run(ctx)
	return w
}

func (w *storeWatcher) close() {
	w.cancel()
	<-w.done
}

func (w *storeWatcher) currentMode() string { return w.mode.Load().(string) }

func (w *storeWatcher) run(ctx context.Context) {
	defer close(w.done)
	for ctx.Err() == nil {
		if !w.noEvents {
			if err := w.events(ctx); err == nil {
				return // ctx ended
			}
		}
		w.mode.Store(watchPolling)
		w.poll(ctx, watchRetryEvery)
	}
}

var errWatchLost = errors.New("the watched directory went away")

// events watches the directory until ctx ends (nil) or the watch cannot
// be set up or is lost (an error: fall back to polling).
func (w *storeWatcher) events(ctx context.Context) error {
	fw, err := fsnotify.NewWatcher()
	if err != nil {
		return err
	}
	defer fw.Close()
	if err := fw.Add(w.dir); err != nil {
		return err
	}
	w.mode.Store(watchEvents)
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
				w.onChange() // an overflow may have dropped a change: count it as one
				continue
			}
			return err
		}
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

// poll samples the files every storePollEvery for d (or until ctx ends).
func (w *storeWatcher) poll(ctx context.Context, d time.Duration) {
	last := w.signature()
	tick := time.NewTicker(storePollEvery)
	defer tick.Stop()
	deadline := time.Now().Add(d)
	for {
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
		sig := w.signature()
		if !sameSig(sig, last) {
			w.onChange()
		}
		last = sig
		if !w.noEvents && time.Now().After(deadline) {
			return
		}
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
