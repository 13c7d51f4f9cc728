//go:build unix

package server

import (
	"context"
	"sync"
	"sync/atomic"
	"time"
)

// WakeGap is the shortest time between two early wakes of one job.wait.
// Each wake costs an observation (a `limcp job observe` subprocess), so a
// store written many times a second must not turn a wait into a busy loop;
// wakes within the gap coalesce into one. It equals wait.MinPollInterval.
const WakeGap = 50 * time.Millisecond

// wakeHub fans a change signal (a write seen on the store, a terminal
// notification) out to every job.wait in progress. A signal is a prompt to
// observe, never a finding: the waits read the lifecycle store through the
// CLI to learn what changed, so a spurious or lost signal costs at most one
// observation or one poll interval.
type wakeHub struct {
	mu   sync.Mutex
	subs map[chan struct{}]struct{}

	// Counters by source, for tests and the bench figures.
	storeSignals  atomic.Int64
	notifySignals atomic.Int64

	// onSubscribe, when set, runs before each subscription is made: the
	// server starts its store watcher there, on the first wait that
	// needs it, and it returns once the watch is in place.
	onSubscribe func()
}

func newWakeHub() *wakeHub { return &wakeHub{subs: map[chan struct{}]struct{}{}} }

// signal wakes every subscriber without blocking: each subscriber's inbox
// holds one pending signal, and bursts coalesce into it.
func (h *wakeHub) signal() {
	h.mu.Lock()
	defer h.mu.Unlock()
	for in := range h.subs {
		select {
		case in <- struct{}{}:
		default:
		}
	}
}

// subscribe returns the wake channel of one job.wait, live until ctx ends.
// Successive wakes on it are at least gap apart (signals in between
// coalesce), so the wait observes at most once per gap because of wakes,
// whatever the rate of signals.
func (h *wakeHub) subscribe(ctx context.Context, gap time.Duration) <-chan struct{} {
	if h.onSubscribe != nil {
		h.onSubscribe()
	}
	in := make(chan struct{}, 1)
	out := make(chan struct{}, 1)
	h.mu.Lock()
	h.subs[in] = struct{}{}
	h.mu.Unlock()
	go func() {
		defer func() {
			h.mu.Lock()
			delete(h.subs, in)
			h.mu.Unlock()
		}()
		for {
			select {
			case <-ctx.Done():
				return
			case <-in:
			}
			select {
			case out <- struct{}{}:
			default:
			}
			t := time.NewTimer(gap)
			select {
			case <-ctx.Done():
				t.Stop()
				return
			case <-t.C:
			}
		}
	}()
	return out
}

// subscribers reports how many waits are subscribed (tests).
func (h *wakeHub) subscribers() int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return len(h.subs)
}
