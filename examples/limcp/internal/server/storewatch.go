package server

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"sync/atomic"
	"syscall"
	"time"
	"unsafe"
)

// The change signal on the lifecycle store (DESIGN 4.6): the server learns
// that the store may have changed without opening it, let alone writing it.
//
// What counts as a change was measured on limcp's store (SQLite in WAL
// mode): a transaction that writes appends frames to "state.db-wal"
// (IN_MODIFY on it), and the last connection to close copies them into
// "state.db" (IN_MODIFY on it) before deleting the WAL. A session that only
// reads — every `limcp job observe` this server runs, for instance — creates
// and deletes the -wal and -shm files and closes state.db, but modifies
// neither state.db nor state.db-wal. So the signal is IN_MODIFY (or a file
// renamed into place, IN_MOVED_TO) on exactly those two names: a wait's own
// observations never wake it, and each real write causes at most two wakes
// (its frames, then their checkpoint).
//
// inotify needs the directory to exist and a watch to be available; when
// either is missing the watcher polls the two files' size and modification
// time instead, and keeps trying to set the watch up. Polling the files
// ignores an empty WAL, which is what a read-only session leaves for a
// moment.

const (
	// storePollEvery is the fallback's sampling period.
	storePollEvery = 100 * time.Millisecond
	// inotifyRetryEvery is how often the fallback retries inotify.
	inotifyRetryEvery = time.Second
)

// Watch modes, as reported by storeWatcher.mode.
const (
	watchInotify = "inotify"
	watchPolling = "polling"
)

type storeWatcher struct {
	dir       string
	names     map[string]bool // base names whose modification is a change
	onChange  func()
	noInotify bool // tests: force the polling fallback

	cancel context.CancelFunc
	done   chan struct{}
	mode   atomic.Value // string: watchInotify or watchPolling
}

// watchStore starts watching the store file dbFile (an absolute path) for
// writes and calls onChange for each batch of changes it sees. Stop it with
// close.
func watchStore(dbFile string, onChange func(), noInotify bool) *storeWatcher {
	ctx, cancel := context.WithCancel(context.Background())
	base := filepath.Base(dbFile)
	w := &storeWatcher{
		dir:       filepath.Dir(dbFile),
		names:     map[string]bool{base: true, base + "-wal": true},
		onChange:  onChange,
		noInotify: noInotify,
		cancel:    cancel,
		done:      make(chan struct{}),
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
		if !w.noInotify {
			if err := w.inotify(ctx); err == nil {
				return // ctx ended
			}
		}
		w.mode.Store(watchPolling)
		w.poll(ctx, inotifyRetryEvery)
	}
}

var errWatchLost = errors.New("the watched directory went away")

// inotify watches the directory until ctx ends (nil) or the watch cannot
// be set up or is lost (an error: fall back to polling).
func (w *storeWatcher) inotify(ctx context.Context) error {
	fd, err := syscall.InotifyInit1(syscall.IN_CLOEXEC | syscall.IN_NONBLOCK)
	if err != nil {
		return err
	}
	// A non-blocking descriptor handed to os.NewFile is served by the
	// runtime's poller, so Close unblocks a pending Read.
	f := os.NewFile(uintptr(fd), "inotify")
	const mask = syscall.IN_MODIFY | syscall.IN_MOVED_TO | syscall.IN_DELETE_SELF | syscall.IN_MOVE_SELF
	if _, err := syscall.InotifyAddWatch(fd, w.dir, mask); err != nil {
		f.Close()
		return err
	}
	w.mode.Store(watchInotify)
	stop := context.AfterFunc(ctx, func() { f.Close() })
	defer stop()
	buf := make([]byte, 16<<10)
	for {
		n, err := f.Read(buf)
		if err != nil {
			if ctx.Err() != nil {
				return nil
			}
			f.Close()
			return err
		}
		changed, lost := w.scan(buf[:n])
		if changed {
			w.onChange()
		}
		if lost {
			f.Close()
			return errWatchLost
		}
	}
}

// scan reads a batch of inotify events: whether one of them is a change of
// a watched name, and whether the watch is gone.
func (w *storeWatcher) scan(b []byte) (changed, lost bool) {
	for off := 0; off+syscall.SizeofInotifyEvent <= len(b); {
		ev := (*syscall.InotifyEvent)(unsafe.Pointer(&b[off]))
		end := off + syscall.SizeofInotifyEvent + int(ev.Len)
		if end > len(b) {
			break
		}
		name := b[off+syscall.SizeofInotifyEvent : end]
		if i := bytes.IndexByte(name, 0); i >= 0 {
			name = name[:i]
		}
		switch {
		case ev.Mask&(syscall.IN_IGNORED|syscall.IN_DELETE_SELF|syscall.IN_MOVE_SELF|syscall.IN_Q_OVERFLOW) != 0:
			// An overflow may have dropped a change: count it as one.
			changed = changed || ev.Mask&syscall.IN_Q_OVERFLOW != 0
			lost = lost || ev.Mask&syscall.IN_Q_OVERFLOW == 0
		case ev.Mask&(syscall.IN_MODIFY|syscall.IN_MOVED_TO) != 0 && w.names[string(name)]:
			changed = true
		}
		off = end
	}
	return changed, lost
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
		if !w.noInotify && time.Now().After(deadline) {
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
