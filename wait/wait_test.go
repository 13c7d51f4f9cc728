package wait

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

var (
	completed = terminal("completed", "run.completed.exit_0")
	failed    = terminal("failed", "run.failed.process_gone")
	oldPrep   = preparing(epoch.Add(-time.Hour))
)

// runAuto runs Wait on an auto-advancing fake clock and returns the result,
// the observer's calls and the sleeps the loop asked for.
func runAuto(t *testing.T, per map[string][]Observation, ids []string, opts Options) (*Result, [][]string, []time.Duration) {
	t.Helper()
	clock := newAutoClock()
	opts.Clock = clock
	obs := &script{answer: states(per)}
	res, err := Wait(context.Background(), obs, ids, &opts)
	if err != nil {
		t.Fatalf("Wait: %v", err)
	}
	return res, obs.Calls(), clock.Sleeps()
}

func TestWaitSnapshot(t *testing.T) {
	tests := []struct {
		name         string
		state        Observation
		wantTimedOut bool
		wantList     func(*Result) []string
	}{
		{"snapshot of a pending id observes once and reports the timeout", running(), true, func(r *Result) []string { return r.Pending }},
		{"snapshot of a stopped id pays no floor", goneNoEnd(), false, func(r *Result) []string { return r.StoppedWithoutEnd }},
		{"snapshot of an unresolved spawn pays no floor", oldPrep, false, func(r *Result) []string { return r.UnresolvedSpawn }},
		{"snapshot of a terminal id observes once", completed, false, func(r *Result) []string {
			if r.AllTerminal {
				return []string{"a"}
			}
			return nil
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, calls, sleeps := runAuto(t, map[string][]Observation{"a": {tt.state, completed}}, []string{"a"}, Options{MaxWait: dur(0)})
			if len(calls) != 1 {
				t.Errorf("observer called %d times, want 1", len(calls))
			}
			if len(sleeps) != 0 {
				t.Errorf("snapshot slept %v, want no sleep", sleeps)
			}
			if res.TimedOut != tt.wantTimedOut {
				t.Errorf("timed_out = %v, want %v", res.TimedOut, tt.wantTimedOut)
			}
			if got := tt.wantList(res); !slices.Equal(got, []string{"a"}) {
				t.Errorf("id not in the expected list: %+v", res)
			}
			if res.MaxWaitSeconds != 0 {
				t.Errorf("max_wait_seconds = %v, want 0", res.MaxWaitSeconds)
			}
		})
	}
}

func TestWaitPollsUntilNothingIsPending(t *testing.T) {
	per := map[string][]Observation{"a": {running(), running(), running(), completed}}
	res, calls, sleeps := runAuto(t, per, []string{"a"}, Options{})
	if len(calls) != 4 {
		t.Errorf("observer called %d times, want 4", len(calls))
	}
	if want := []time.Duration{time.Second, time.Second, time.Second}; !slices.Equal(sleeps, want) {
		t.Errorf("sleeps = %v, want %v", sleeps, want)
	}
	if !res.AllTerminal || res.TimedOut || len(res.Pending) != 0 {
		t.Errorf("result = %+v, want all terminal, not timed out", res)
	}
	if res.Entries[0].Outcome != OutcomeSucceeded {
		t.Errorf("outcome = %q, want succeeded", res.Entries[0].Outcome)
	}
}

func TestWaitExpiryIsNotAnError(t *testing.T) {
	per := map[string][]Observation{"a": {running()}, "b": {completed}}
	res, calls, sleeps := runAuto(t, per, []string{"a", "b"}, Options{MaxWait: dur(5 * time.Second), PollInterval: dur(2 * time.Second)})
	// Sleeps are bounded by what is left of the window; the last
	// observation is at the deadline.
	if want := []time.Duration{2 * time.Second, 2 * time.Second, time.Second}; !slices.Equal(sleeps, want) {
		t.Errorf("sleeps = %v, want %v", sleeps, want)
	}
	if len(calls) != 4 {
		t.Errorf("observer called %d times, want 4", len(calls))
	}
	if !res.TimedOut || res.AllTerminal {
		t.Errorf("timed_out = %v all_terminal = %v, want true false", res.TimedOut, res.AllTerminal)
	}
	if !slices.Equal(res.Pending, []string{"a"}) {
		t.Errorf("pending = %q, want [a]", res.Pending)
	}
	if res.Entries[1].Outcome != OutcomeSucceeded {
		t.Errorf("a timed-out wait still reports what it learned: b outcome = %q", res.Entries[1].Outcome)
	}
}

// TestWaitOnePollFloor: the floor rules above Wait, row by row.
func TestWaitOnePollFloor(t *testing.T) {
	tests := []struct {
		name       string
		per        map[string][]Observation
		ids        []string
		opts       Options
		wantSleeps []time.Duration
		wantCalls  int
		check      func(*testing.T, *Result)
	}{
		{
			name:       "stopped without end at once waits one poll and observes again",
			per:        map[string][]Observation{"a": {goneNoEnd()}},
			ids:        []string{"a"},
			wantSleeps: []time.Duration{time.Second}, wantCalls: 2,
			check: func(t *testing.T, r *Result) {
				if !slices.Equal(r.StoppedWithoutEnd, []string{"a"}) || r.TimedOut {
					t.Errorf("result = %+v", r)
				}
			},
		},
		{
			name:       "unresolved spawn at once waits one poll and observes again",
			per:        map[string][]Observation{"a": {oldPrep}},
			ids:        []string{"a"},
			wantSleeps: []time.Duration{time.Second}, wantCalls: 2,
			check: func(t *testing.T, r *Result) {
				if !slices.Equal(r.UnresolvedSpawn, []string{"a"}) {
					t.Errorf("result = %+v", r)
				}
			},
		},
		{
			name:       "errored id at once waits one poll and observes again",
			per:        map[string][]Observation{"a": {completed}},
			ids:        []string{"a", "nope"},
			wantSleeps: []time.Duration{time.Second}, wantCalls: 2,
			check: func(t *testing.T, r *Result) {
				if r.AllTerminal || r.TimedOut || len(r.Pending) != 0 || r.Entries[1].Error == nil {
					t.Errorf("result = %+v", r)
				}
			},
		},
		{
			name:       "the floor's second look sees a reap that landed",
			per:        map[string][]Observation{"a": {goneNoEnd(), failed}},
			ids:        []string{"a"},
			wantSleeps: []time.Duration{time.Second}, wantCalls: 2,
			check: func(t *testing.T, r *Result) {
				if !r.AllTerminal || r.Entries[0].Outcome != OutcomeFailed {
					t.Errorf("result = %+v", r)
				}
			},
		},
		{
			name:       "all terminal at once returns without waiting",
			per:        map[string][]Observation{"a": {completed}, "b": {failed}},
			ids:        []string{"a", "b"},
			wantSleeps: nil, wantCalls: 1,
		},
		{
			name:       "a snapshot pays no floor",
			per:        map[string][]Observation{"a": {goneNoEnd()}},
			ids:        []string{"a"},
			opts:       Options{MaxWait: dur(0)},
			wantSleeps: nil, wantCalls: 1,
		},
		{
			name:       "the floor is bounded by the window",
			per:        map[string][]Observation{"a": {goneNoEnd()}},
			ids:        []string{"a"},
			opts:       Options{MaxWait: dur(300 * time.Millisecond)},
			wantSleeps: []time.Duration{300 * time.Millisecond}, wantCalls: 2,
		},
		{
			name:       "the floor is one poll interval as configured",
			per:        map[string][]Observation{"a": {goneNoEnd()}},
			ids:        []string{"a"},
			opts:       Options{PollInterval: dur(3 * time.Second)},
			wantSleeps: []time.Duration{3 * time.Second}, wantCalls: 2,
		},
		{
			name:       "a call that already waited has met the floor",
			per:        map[string][]Observation{"a": {running(), goneNoEnd()}},
			ids:        []string{"a"},
			wantSleeps: []time.Duration{time.Second}, wantCalls: 2,
		},
		{
			name:       "the floor is paid once, not repeated",
			per:        map[string][]Observation{"a": {goneNoEnd()}, "b": {oldPrep}},
			ids:        []string{"a", "b"},
			wantSleeps: []time.Duration{time.Second}, wantCalls: 2,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, calls, sleeps := runAuto(t, tt.per, tt.ids, tt.opts)
			if !slices.Equal(sleeps, tt.wantSleeps) {
				t.Errorf("sleeps = %v, want %v", sleeps, tt.wantSleeps)
			}
			if len(calls) != tt.wantCalls {
				t.Errorf("observer called %d times, want %d", len(calls), tt.wantCalls)
			}
			if tt.check != nil {
				tt.check(t, res)
			}
		})
	}
}

func TestWaitCancelledBeforeStartObservesNothing(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	obs := &script{answer: states(map[string][]Observation{"a": {running()}})}
	res, err := Wait(ctx, obs, []string{"a"}, &Options{Clock: newManualClock()})
	if !errors.Is(err, context.Canceled) || res != nil {
		t.Fatalf("Wait = %v, %v; want nil and an error wrapping context.Canceled", res, err)
	}
	if n := len(obs.Calls()); n != 0 {
		t.Errorf("observer called %d times after cancellation, want 0", n)
	}
}

// TestWaitCancelDuringSleepReturnsPromptly uses the real clock and a 1 s
// poll: the cancel must end the sleep, not the timer.
func TestWaitCancelDuringSleepReturnsPromptly(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	obs := &script{answer: states(map[string][]Observation{"a": {running()}}), observe: make(chan int, 8)}
	type outcome struct {
		res *Result
		err error
		at  time.Time
	}
	done := make(chan outcome, 1)
	go func() {
		res, err := Wait(ctx, obs, []string{"a"}, &Options{PollInterval: dur(time.Second)})
		done <- outcome{res, err, time.Now()}
	}()
	<-obs.observe // the first observation is in; the loop is about to sleep 1 s
	time.Sleep(20 * time.Millisecond)
	cancelled := time.Now()
	cancel()
	var o outcome
	select {
	case o = <-done:
	case <-time.After(5 * time.Second):
		t.Fatal("Wait did not return after cancellation")
	}
	latency := o.at.Sub(cancelled)
	t.Logf("returned %v after cancel (poll interval 1 s)", latency)
	if latency > 500*time.Millisecond {
		t.Errorf("Wait returned %v after cancel, want well under the 1 s poll interval", latency)
	}
	if !errors.Is(o.err, context.Canceled) || o.res != nil {
		t.Errorf("Wait = %v, %v; want nil and an error wrapping context.Canceled", o.res, o.err)
	}
	if n := len(obs.Calls()); n != 1 {
		t.Errorf("observer called %d times, want 1 (nothing after the cancel)", n)
	}
}

// TestWaitCancelDuringObservation: an observer that fails because ctx was
// cancelled yields the cancellation, not an ObserveError.
func TestWaitCancelDuringObservation(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	obs := &script{answer: func(poll int, ids []string) ([]Observation, error) {
		cancel()
		return nil, ctx.Err()
	}}
	res, err := Wait(ctx, obs, []string{"a"}, &Options{Clock: newManualClock()})
	var oe *ObserveError
	if !errors.Is(err, context.Canceled) || errors.As(err, &oe) || res != nil {
		t.Fatalf("Wait = %v, %v; want nil and a cancellation, not an ObserveError", res, err)
	}
}

// flip is an Observer that reports running until done is set, then
// completed; it announces every observation.
type flip struct {
	done   atomic.Bool
	calls  atomic.Int32
	polled chan struct{}
}

func (f *flip) Observe(ctx context.Context, ids []string) ([]Observation, error) {
	f.calls.Add(1)
	o := running()
	if f.done.Load() {
		o = completed
	}
	out := make([]Observation, len(ids))
	for i, id := range ids {
		out[i] = withID(id, o)
	}
	if f.polled != nil {
		f.polled <- struct{}{}
	}
	return out, nil
}

// TestWaitWakeObservesWithoutTheClockMoving: on a fake clock that never
// advances, a wake alone gets the terminal transition seen, so the latency
// the wake adds is zero clock time whatever the poll interval.
func TestWaitWakeObservesWithoutTheClockMoving(t *testing.T) {
	clock := newManualClock()
	wake := make(chan struct{}, 1)
	f := &flip{}
	done := startWait(t, f, []string{"a"}, Options{Clock: clock, Wake: wake})
	if d := clock.waitArmed(t); d != time.Second {
		t.Errorf("loop slept %v, want the 1 s poll interval", d)
	}
	f.done.Store(true)
	wake <- struct{}{}
	var res *Result
	select {
	case res = <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("a wake did not end the sleep")
	}
	if !res.AllTerminal {
		t.Errorf("result after wake = %+v, want all terminal", res)
	}
	if !clock.Now().Equal(epoch) {
		t.Errorf("clock moved to %v; the wake alone should have done it", clock.Now())
	}
	if n := f.calls.Load(); n != 2 {
		t.Errorf("observer called %d times, want 2", n)
	}
}

// TestWaitWakeRealClock is the sanity check on the real clock: with a 1 s
// poll, a wake gets the transition seen far sooner than the poll would.
// The exact latency is measured by BenchmarkWakeLatency.
func TestWaitWakeRealClock(t *testing.T) {
	wake := make(chan struct{}, 1)
	f := &flip{polled: make(chan struct{}, 8)}
	type outcome struct {
		res *Result
		at  time.Time
	}
	done := make(chan outcome, 1)
	go func() {
		res, err := Wait(context.Background(), f, []string{"a"}, &Options{PollInterval: dur(time.Second), Wake: wake})
		if err != nil {
			t.Error(err)
		}
		done <- outcome{res, time.Now()}
	}()
	<-f.polled
	time.Sleep(20 * time.Millisecond) // let the loop go to sleep
	f.done.Store(true)
	woke := time.Now()
	wake <- struct{}{}
	o := <-done
	latency := o.at.Sub(woke)
	t.Logf("terminal transition seen %v after the wake (poll interval 1 s)", latency)
	if !o.res.AllTerminal {
		t.Fatalf("result = %+v, want all terminal", o.res)
	}
	if latency >= 500*time.Millisecond {
		t.Errorf("seen %v after the wake; want far below the 1 s poll", latency)
	}
}

// TestWaitWakesNeverBreakCorrectness: a wake source that never fires, fires
// with nothing changed, or is closed leaves the answer exactly what
// polling alone gives.
func TestWaitWakesNeverBreakCorrectness(t *testing.T) {
	t.Run("a wake that never fires: polling sees the transition", func(t *testing.T) {
		per := map[string][]Observation{"a": {running(), completed}}
		res, calls, sleeps := runAuto(t, per, []string{"a"}, Options{Wake: make(chan struct{})})
		if !res.AllTerminal || len(calls) != 2 || !slices.Equal(sleeps, []time.Duration{time.Second}) {
			t.Errorf("result %+v after %d calls, sleeps %v", res, len(calls), sleeps)
		}
	})
	t.Run("a closed wake channel does not spin the loop", func(t *testing.T) {
		// On a clock that only moves when told, a loop that kept
		// "waking" on the closed channel would observe again and again.
		clock := newManualClock()
		wake := make(chan struct{})
		close(wake)
		f := &flip{}
		done := startWait(t, f, []string{"a"}, Options{Clock: clock, Wake: wake, MaxWait: dur(2 * time.Second)})
		clock.waitArmed(t)
		time.Sleep(30 * time.Millisecond) // room for a spinning loop to show itself
		if n := f.calls.Load(); n != 1 {
			t.Errorf("%d observations with the clock stopped, want 1", n)
		}
		clock.Advance(time.Second)
		clock.waitArmed(t)
		f.done.Store(true)
		clock.Advance(time.Second)
		res := <-done
		if !res.AllTerminal || f.calls.Load() != 3 {
			t.Errorf("result %+v after %d calls, want all terminal after 3 (as with no wake)", res, f.calls.Load())
		}
	})
	t.Run("closing the wake channel mid-sleep is one wake, then polling", func(t *testing.T) {
		clock := newManualClock()
		wake := make(chan struct{})
		f := &flip{}
		done := startWait(t, f, []string{"a"}, Options{Clock: clock, Wake: wake})
		clock.waitArmed(t)
		f.done.Store(true)
		close(wake)
		res := <-done // the close woke the loop; the clock never moved
		if !res.AllTerminal || f.calls.Load() != 2 || !clock.Now().Equal(epoch) {
			t.Errorf("result %+v after %d calls at %v; want all terminal after 2, clock unmoved", res, f.calls.Load(), clock.Now())
		}
	})
	t.Run("after a close the loop polls and does not spin", func(t *testing.T) {
		clock := newManualClock()
		wake := make(chan struct{})
		f := &flip{}
		done := startWait(t, f, []string{"a"}, Options{Clock: clock, Wake: wake, MaxWait: dur(3 * time.Second)})
		clock.waitArmed(t)
		close(wake)        // nothing changed: one extra observation
		clock.waitArmed(t) // asleep again
		time.Sleep(30 * time.Millisecond)
		if n := f.calls.Load(); n != 2 {
			t.Errorf("%d observations with the clock stopped after a close, want 2", n)
		}
		clock.Advance(3 * time.Second)
		if res := <-done; !res.TimedOut || f.calls.Load() != 3 {
			t.Errorf("result %+v after %d calls; want a timeout after 3", res, f.calls.Load())
		}
	})
	t.Run("a spurious wake costs one observation and changes nothing", func(t *testing.T) {
		clock := newManualClock()
		wake := make(chan struct{}, 1)
		f := &flip{}
		done := startWait(t, f, []string{"a"}, Options{Clock: clock, Wake: wake})
		clock.waitArmed(t)
		wake <- struct{}{} // nothing changed
		clock.waitArmed(t) // observed (still running) and asleep again
		if n := f.calls.Load(); n != 2 {
			t.Errorf("after a spurious wake: %d observations, want 2", n)
		}
		f.done.Store(true)
		clock.Advance(time.Second) // no wake this time: the poll must see it
		res := <-done
		if !res.AllTerminal || f.calls.Load() != 3 {
			t.Errorf("result %+v after %d calls, want all terminal after 3", res, f.calls.Load())
		}
	})
	t.Run("a wake during the one-poll floor observes at once but does not end the floor", func(t *testing.T) {
		// A wake source that fires often (a change signal on a busy store)
		// must not let a client looping on all_terminal spin: a call
		// returns a stopped id only once a full interval has passed.
		clock := newManualClock()
		wake := make(chan struct{}, 1)
		var calls atomic.Int32
		obs := ObserverFunc(func(ctx context.Context, ids []string) ([]Observation, error) {
			calls.Add(1)
			return []Observation{withID("a", goneNoEnd())}, nil
		})
		done := startWait(t, obs, []string{"a"}, Options{Clock: clock, Wake: wake})
		if d := clock.waitArmed(t); d != time.Second {
			t.Fatalf("floor sleep %v, want the 1 s poll interval", d)
		}
		clock.Advance(300 * time.Millisecond)
		wake <- struct{}{} // nothing changed for "a"
		if d := clock.waitArmed(t); d != 700*time.Millisecond {
			t.Errorf("after a wake 300ms into the floor the loop slept %v, want the remaining 700ms", d)
		}
		if n := calls.Load(); n != 2 {
			t.Errorf("%d observations after the wake, want 2 (the wake observes at once)", n)
		}
		select {
		case res := <-done:
			t.Fatalf("returned %+v before the floor interval had passed", res)
		case <-time.After(30 * time.Millisecond):
		}
		clock.Advance(700 * time.Millisecond)
		res := <-done
		if !slices.Equal(res.StoppedWithoutEnd, []string{"a"}) || calls.Load() != 3 {
			t.Errorf("result %+v after %d observations, want a stopped without end after 3", res, calls.Load())
		}
	})
	t.Run("a call woken early while pending still meets the floor before returning a stopped id", func(t *testing.T) {
		clock := newManualClock()
		wake := make(chan struct{}, 1)
		var calls atomic.Int32
		obs := ObserverFunc(func(ctx context.Context, ids []string) ([]Observation, error) {
			if calls.Add(1) == 1 {
				return []Observation{withID("a", running())}, nil
			}
			return []Observation{withID("a", goneNoEnd())}, nil
		})
		done := startWait(t, obs, []string{"a"}, Options{Clock: clock, Wake: wake})
		clock.waitArmed(t)
		clock.Advance(100 * time.Millisecond)
		wake <- struct{}{} // the process died: it is now stopped without end
		if d := clock.waitArmed(t); d != 900*time.Millisecond {
			t.Errorf("the loop slept %v after seeing the stopped id 100ms in, want the remaining 900ms of the floor", d)
		}
		clock.Advance(900 * time.Millisecond)
		if res := <-done; !slices.Equal(res.StoppedWithoutEnd, []string{"a"}) || calls.Load() != 3 {
			t.Errorf("result %+v after %d observations, want a stopped without end after 3", res, calls.Load())
		}
	})
	t.Run("a wake received before an observation is consumed by it", func(t *testing.T) {
		// A stale wake must not cut the next sleep short: here it would
		// reduce the one-poll floor to nothing.
		clock := newManualClock()
		wake := make(chan struct{}, 1)
		wake <- struct{}{}
		var calls atomic.Int32
		var secondAt atomic.Pointer[time.Time]
		obs := ObserverFunc(func(ctx context.Context, ids []string) ([]Observation, error) {
			if calls.Add(1) == 2 {
				now := clock.Now()
				secondAt.Store(&now)
			}
			return []Observation{withID("a", goneNoEnd())}, nil
		})
		done := make(chan struct{})
		go func() {
			defer close(done)
			if _, err := Wait(context.Background(), obs, []string{"a"}, &Options{Clock: clock, Wake: wake}); err != nil {
				t.Error(err)
			}
		}()
		clock.waitArmed(t)
		time.Sleep(30 * time.Millisecond) // room for a wrongly woken loop to observe early
		clock.Advance(time.Second)
		<-done
		if at := secondAt.Load(); at == nil || !at.Equal(epoch.Add(time.Second)) {
			t.Errorf("second observation at %v, want after the full floor interval at %v", at, epoch.Add(time.Second))
		}
	})
}

// startWait runs Wait in the background; its result arrives on the channel
// (an error fails the test).
func startWait(t *testing.T, obs Observer, ids []string, opts Options) <-chan *Result {
	done := make(chan *Result, 1)
	go func() {
		res, err := Wait(context.Background(), obs, ids, &opts)
		if err != nil {
			t.Error(err)
		}
		done <- res
	}()
	return done
}

// ObserverFunc adapts a function to Observer (test-only).
type ObserverFunc func(ctx context.Context, ids []string) ([]Observation, error)

func (f ObserverFunc) Observe(ctx context.Context, ids []string) ([]Observation, error) {
	return f(ctx, ids)
}

// codedError stands in for a dispatch error carrying a code (contract C3).
type codedError struct{ code string }

func (e codedError) Error() string     { return "dispatch: " + e.code }
func (e codedError) ErrorCode() string { return e.code }

// TestWaitObserveFailure: an observation that fails as a whole is returned
// at once as an *ObserveError, first poll or later, and never retried.
func TestWaitObserveFailure(t *testing.T) {
	boom := codedError{"launch_failed"}
	tests := []struct {
		name      string
		answer    func(poll int, ids []string) ([]Observation, error)
		wantPoll  int
		wantInErr string
	}{
		{
			name:     "a failing first observation is returned at once",
			answer:   func(int, []string) ([]Observation, error) { return nil, boom },
			wantPoll: 1, wantInErr: "launch_failed",
		},
		{
			name: "a failing later observation is returned at once, not retried",
			answer: func(poll int, ids []string) ([]Observation, error) {
				if poll == 3 {
					return nil, boom
				}
				return states(map[string][]Observation{"a": {running()}, "b": {running()}})(poll, ids)
			},
			wantPoll: 3, wantInErr: "launch_failed",
		},
		{
			name: "too few entries is a failed observation",
			answer: func(int, []string) ([]Observation, error) {
				return []Observation{withID("a", running())}, nil
			},
			wantPoll: 1, wantInErr: "observer returned 1 entries for 2 ids",
		},
		{
			name: "an entry for the wrong id is a failed observation",
			answer: func(int, []string) ([]Observation, error) {
				return []Observation{withID("b", running()), withID("a", running())}, nil
			},
			wantPoll: 1, wantInErr: `observer entry 0 is for id "b", want "a"`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			obs := &script{answer: tt.answer}
			res, err := Wait(context.Background(), obs, []string{"a", "b"}, &Options{Clock: newAutoClock()})
			if res != nil {
				t.Errorf("result %+v returned with the error", res)
			}
			var oe *ObserveError
			if !errors.As(err, &oe) {
				t.Fatalf("error %v (%T) is not an *ObserveError", err, err)
			}
			if oe.Poll != tt.wantPoll || oe.IDs != 2 {
				t.Errorf("ObserveError poll %d ids %d, want %d and 2", oe.Poll, oe.IDs, tt.wantPoll)
			}
			if !strings.Contains(err.Error(), tt.wantInErr) || !strings.HasPrefix(err.Error(), "wait: ") {
				t.Errorf("error %q does not say %q", err, tt.wantInErr)
			}
			if n := len(obs.Calls()); n != tt.wantPoll {
				t.Errorf("observer called %d times, want %d (no retry)", n, tt.wantPoll)
			}
		})
	}
	t.Run("the observer's code is reachable through the error", func(t *testing.T) {
		obs := &script{answer: func(int, []string) ([]Observation, error) { return nil, boom }}
		_, err := Wait(context.Background(), obs, []string{"a"}, &Options{Clock: newAutoClock()})
		var coded interface{ ErrorCode() string }
		if !errors.As(err, &coded) || coded.ErrorCode() != "launch_failed" {
			t.Errorf("errors.As did not find the coded error in %v", err)
		}
	})
}

func TestWaitRefusesBadInput(t *testing.T) {
	good := &script{answer: states(map[string][]Observation{"a": {completed}})}
	tests := []struct {
		name    string
		obs     Observer
		ids     []string
		opts    Options
		wantErr string
	}{
		{"no observer", nil, []string{"a"}, Options{}, "wait: no observer given"},
		{"no ids", good, nil, Options{}, "wait: no ids given"},
		{"an empty id", good, []string{"a", ""}, Options{}, "wait: ids[1] is the empty string"},
		{"an outcome table that does not validate", good, []string{"a"}, Options{Outcomes: OutcomeTable{"done": OutcomeNone}},
			`wait: outcome table: status "done" maps to "none"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, err := Wait(context.Background(), tt.obs, tt.ids, &tt.opts)
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) || res != nil {
				t.Errorf("Wait = %v, %v; want error containing %q", res, err, tt.wantErr)
			}
		})
	}
	if n := len(good.Calls()); n != 0 {
		t.Errorf("observer called %d times on bad input, want 0", n)
	}
}

func TestWaitDuplicateIDsAreObservedOnceAndReportedEach(t *testing.T) {
	per := map[string][]Observation{"a": {running(), completed}, "b": {completed}}
	res, calls, _ := runAuto(t, per, []string{"a", "b", "a"}, Options{})
	for i, c := range calls {
		if !slices.Equal(c, []string{"a", "b"}) {
			t.Errorf("call %d asked for %q, want each id once: [a b]", i+1, c)
		}
	}
	var got []string
	for _, e := range res.Entries {
		got = append(got, e.ID)
	}
	if !slices.Equal(got, []string{"a", "b", "a"}) {
		t.Errorf("entries for %q, want one per requested id in input order", got)
	}
	if !res.AllTerminal {
		t.Errorf("all_terminal = false with duplicates all terminal")
	}
}

func TestWaitAllTerminalIsFalseWhenAnIDErrored(t *testing.T) {
	per := map[string][]Observation{"a": {completed}}
	res, _, _ := runAuto(t, per, []string{"a", "ghost"}, Options{})
	if res.AllTerminal {
		t.Error("all_terminal = true with an id that could not be observed")
	}
	if len(res.Pending) != 0 || res.TimedOut {
		t.Errorf("an errored id held the wait open: pending %q timed_out %v", res.Pending, res.TimedOut)
	}
	e := res.Entries[1]
	if e.Error == nil || e.Error.Code != CodeUnknownID || e.Outcome != OutcomeNone || e.Terminal {
		t.Errorf("errored entry = %+v", e)
	}
}

func TestWaitReportsProgressOncePerPoll(t *testing.T) {
	per := map[string][]Observation{"a": {running(), completed}, "b": {running(), running(), completed}}
	var got []Progress
	_, calls, _ := runAuto(t, per, []string{"a", "b", "a"}, Options{OnPoll: func(p Progress) { got = append(got, p) }})
	want := []Progress{
		{Poll: 1, Terminal: 0, Total: 2, Elapsed: 0},
		{Poll: 2, Terminal: 1, Total: 2, Elapsed: time.Second},
		{Poll: 3, Terminal: 2, Total: 2, Elapsed: 2 * time.Second},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("progress (-want +got):\n%s", diff)
	}
	if len(calls) != len(got) {
		t.Errorf("%d polls but %d progress reports", len(calls), len(got))
	}
}

// TestWait256IDsCostOneObserverCallPerPoll: the observer is asked once per
// poll for every id, never once per id.
func TestWait256IDsCostOneObserverCallPerPoll(t *testing.T) {
	const n = 256
	ids := make([]string, n)
	per := map[string][]Observation{}
	for i := range ids {
		ids[i] = fmt.Sprintf("run-%03d", i)
		per[ids[i]] = []Observation{running(), running(), running(), completed}
	}
	res, calls, sleeps := runAuto(t, per, ids, Options{})
	if len(calls) != 4 || len(sleeps) != 3 {
		t.Fatalf("%d observer calls over %d sleeps, want 4 calls for 4 polls", len(calls), len(sleeps))
	}
	for i, c := range calls {
		if !slices.Equal(c, ids) {
			t.Errorf("call %d asked for %d ids, want all %d in order", i+1, len(c), n)
		}
	}
	if !res.AllTerminal || len(res.Entries) != n {
		t.Errorf("all_terminal %v with %d entries", res.AllTerminal, len(res.Entries))
	}
}

// TestWaitResultDoesNotAliasTheObserver: the observer may reuse its memory
// once Observe returns.
func TestWaitResultDoesNotAliasTheObserver(t *testing.T) {
	shared := []Observation{idErr("a", CodeAmbiguousID)}
	obs := ObserverFunc(func(context.Context, []string) ([]Observation, error) { return shared, nil })
	res, err := Wait(context.Background(), obs, []string{"a"}, &Options{MaxWait: dur(0)})
	if err != nil {
		t.Fatal(err)
	}
	shared[0].Error.Code = "scribbled"
	if res.Entries[0].Error.Code != CodeAmbiguousID {
		t.Errorf("result changed when the observer reused its memory: %+v", res.Entries[0].Error)
	}
}

// TestWaitNamesRunsByTheirFullID: when the authority resolves a prefix to a
// record, the entry carries the record's full id and the prefix as
// requested, and the partition lists name full ids, once per record even
// when two prefixes of it were asked for.
func TestWaitNamesRunsByTheirFullID(t *testing.T) {
	const full = "d62cd0c5c7ca9b5d"
	resolve := func(id string) Observation {
		o := running()
		if strings.HasPrefix(full, id) {
			o.RecordID = full
		}
		return o
	}
	obs := ObserverFunc(func(_ context.Context, ids []string) ([]Observation, error) {
		out := make([]Observation, len(ids))
		for i, id := range ids {
			out[i] = resolve(id)
			out[i].ID = id
		}
		return out, nil
	})
	res, err := Wait(context.Background(), obs, []string{"d62cd0c5", "d62cd0c5c7", full}, &Options{MaxWait: Seconds(0)})
	if err != nil {
		t.Fatal(err)
	}
	want := []Entry{
		{ID: full, Requested: "d62cd0c5"},
		{ID: full, Requested: "d62cd0c5c7"},
		{ID: full},
	}
	for i, e := range res.Entries {
		if e.ID != want[i].ID || e.Requested != want[i].Requested {
			t.Errorf("entry %d: id %q requested %q, want %q %q", i, e.ID, e.Requested, want[i].ID, want[i].Requested)
		}
	}
	if !slices.Equal(res.Pending, []string{full}) {
		t.Errorf("pending %q, want the full id once", res.Pending)
	}
}
