package wait

import (
	"context"
	"sync"
	"testing"
	"time"
)

// epoch is the fake clocks' starting instant.
var epoch = time.Date(2025, 3, 1, 12, 0, 0, 0, time.UTC)

// fakeClock is a Clock under the test's control. In auto mode After moves
// time forward by d and fires at once, so a whole Wait runs synchronously in
// virtual time. In manual mode After fires only when Advance passes it, and
// each After call is announced on armed so a test knows the loop is asleep.
type fakeClock struct {
	mu     sync.Mutex
	now    time.Time
	auto   bool
	sleeps []time.Duration // every d passed to After, in order
	timers []fakeTimer
	armed  chan time.Duration
}

type fakeTimer struct {
	at time.Time
	ch chan time.Time
}

func newAutoClock() *fakeClock { return &fakeClock{now: epoch, auto: true} }

func newManualClock() *fakeClock {
	return &fakeClock{now: epoch, armed: make(chan time.Duration, 64)}
}

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *fakeClock) After(d time.Duration) <-chan time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.sleeps = append(c.sleeps, d)
	ch := make(chan time.Time, 1)
	if c.auto {
		c.now = c.now.Add(d)
		ch <- c.now
		return ch
	}
	c.timers = append(c.timers, fakeTimer{at: c.now.Add(d), ch: ch})
	c.armed <- d
	return ch
}

// Advance moves a manual clock forward and fires every timer now due.
func (c *fakeClock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
	kept := c.timers[:0]
	for _, t := range c.timers {
		if !t.at.After(c.now) {
			t.ch <- c.now
			continue
		}
		kept = append(kept, t)
	}
	c.timers = kept
}

func (c *fakeClock) Sleeps() []time.Duration {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]time.Duration(nil), c.sleeps...)
}

// waitArmed blocks until the loop (in manual mode) has gone to sleep.
func (c *fakeClock) waitArmed(t *testing.T) time.Duration {
	t.Helper()
	select {
	case d := <-c.armed:
		return d
	case <-time.After(10 * time.Second):
		t.Fatal("the wait loop never went to sleep on the fake clock")
		return 0
	}
}

// script is an Observer whose answer is a function of the poll number
// (1-based) and the ids asked for. It records every call.
type script struct {
	mu      sync.Mutex
	calls   [][]string
	answer  func(poll int, ids []string) ([]Observation, error)
	observe chan int // if set, receives the poll number after each call
}

func (s *script) Observe(ctx context.Context, ids []string) ([]Observation, error) {
	s.mu.Lock()
	s.calls = append(s.calls, append([]string(nil), ids...))
	poll := len(s.calls)
	s.mu.Unlock()
	out, err := s.answer(poll, ids)
	if s.observe != nil {
		s.observe <- poll
	}
	return out, err
}

func (s *script) Calls() [][]string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([][]string(nil), s.calls...)
}

// states answers each id from a per-id list of observations, one per poll;
// the last one repeats.
func states(per map[string][]Observation) func(int, []string) ([]Observation, error) {
	return func(poll int, ids []string) ([]Observation, error) {
		out := make([]Observation, len(ids))
		for i, id := range ids {
			seq := per[id]
			if len(seq) == 0 {
				out[i] = idErr(id, CodeUnknownID)
				continue
			}
			o := seq[min(poll, len(seq))-1]
			o.ID = id
			out[i] = o
		}
		return out, nil
	}
}

// Observation builders for the common records.

func terminal(status, reason string) Observation {
	return Observation{Kind: "invocation", Label: "job", Status: status, Terminal: true, ReasonCode: reason,
		Phase: PhaseStarted, PhaseEnteredAt: epoch.Add(-time.Minute), Process: EvidenceGone, EndRecorded: true}
}

func running() Observation {
	return Observation{Kind: "invocation", Label: "job", Status: "running",
		Phase: PhaseStarted, PhaseEnteredAt: epoch.Add(-time.Minute), Process: EvidenceAlive}
}

func goneNoEnd() Observation {
	return Observation{Kind: "invocation", Label: "job", Status: "running",
		Phase: PhaseStarted, PhaseEnteredAt: epoch.Add(-time.Minute), Process: EvidenceGone, PossiblyOrphaned: true}
}

func preparing(entered time.Time) Observation {
	return Observation{Kind: "session", Label: "spawn", Status: "preparing",
		Phase: PhasePreparing, PhaseEnteredAt: entered, Process: EvidenceUnknown}
}

func idErr(id, code string) Observation {
	return Observation{ID: id, Error: &IDError{Code: code, Message: "no record matches " + id}}
}

func dur(d time.Duration) *time.Duration { return &d }
