package runs

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sync"

	"github.com/fsnotify/fsnotify"
)

// SignalDir is the directory, beside the store file, whose changes
// announce ends.
const SignalDir = "ends"

// Notify announces that run id changed (its end is recorded): it writes
// the file SignalDir/id under dir. A failure is returned but harms
// nothing: watchers still poll.
func Notify(dir, id string) error {
	d := filepath.Join(dir, SignalDir)
	if err := os.MkdirAll(d, DirMode); err != nil {
		return fmt.Errorf("runs: signal: %w", err)
	}
	return os.WriteFile(filepath.Join(d, id), nil, FileMode)
}

// Watcher turns announced ends under one directory into wake-ups for
// any number of subscribers, through one file-system watch (a process has
// few: Linux allows 128 inotify instances per user by default). It starts
// at the first Subscribe and is safe for concurrent use.
type Watcher struct {
	dir string

	mu      sync.Mutex
	started bool
	failed  bool
	subs    map[chan struct{}]struct{}
	w       *fsnotify.Watcher
}

// NewWatcher returns a Watcher of the ends announced under dir.
func NewWatcher(dir string) *Watcher {
	return &Watcher{dir: dir, subs: map[chan struct{}]struct{}{}}
}

// Subscribe returns a channel that receives (never blocking the watcher:
// bursts coalesce) whenever an end is announced, until ctx ends; then it
// is closed. When the watch cannot be set up the channel is closed at
// once, which package wait reads as "poll only".
func (x *Watcher) Subscribe(ctx context.Context) <-chan struct{} {
	ch := make(chan struct{}, 1)
	x.mu.Lock()
	if !x.started {
		x.started = true
		x.start()
	}
	if x.failed {
		x.mu.Unlock()
		close(ch)
		return ch
	}
	x.subs[ch] = struct{}{}
	x.mu.Unlock()
	go func() {
		<-ctx.Done()
		x.mu.Lock()
		if _, ok := x.subs[ch]; ok {
			delete(x.subs, ch)
			close(ch)
		}
		x.mu.Unlock()
	}()
	return ch
}

// start sets up the watch; x.mu is held.
func (x *Watcher) start() {
	d := filepath.Join(x.dir, SignalDir)
	w, err := fsnotify.NewWatcher()
	if err == nil {
		if err = os.MkdirAll(d, DirMode); err == nil {
			err = w.Add(d)
		}
		if err != nil {
			w.Close()
		}
	}
	if err != nil {
		x.failed = true
		return
	}
	x.w = w
	go x.run(w)
}

func (x *Watcher) run(w *fsnotify.Watcher) {
	defer func() {
		// The watch ended (closed): every subscriber falls back to polling.
		x.mu.Lock()
		x.failed = true
		for ch := range x.subs {
			delete(x.subs, ch)
			close(ch)
		}
		x.mu.Unlock()
	}()
	for {
		select {
		case _, ok := <-w.Events:
			if !ok {
				return
			}
			x.mu.Lock()
			for ch := range x.subs {
				select {
				case ch <- struct{}{}:
				default:
				}
			}
			x.mu.Unlock()
		case _, ok := <-w.Errors:
			if !ok {
				return
			}
		}
	}
}

// Close ends the watch.
func (x *Watcher) Close() error {
	x.mu.Lock()
	w := x.w
	x.mu.Unlock()
	if w != nil {
		return w.Close()
	}
	return nil
}
