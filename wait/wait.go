package wait

import (
	"context"
	"errors"
	"fmt"
	"time"
)

// ObserveError reports that an observation failed as a whole: the observer
// returned an error, or broke its contract (wrong number of entries, or an
// entry for the wrong id). It wraps the observer's error, so a code carried
// by it (interface{ ErrorCode() string }) is found with [errors.As].
type ObserveError struct {
	Poll int   // 1 for the call's first observation
	IDs  int   // distinct ids asked for
	Err  error // what went wrong
}

func (e *ObserveError) Error() string {
	return fmt.Sprintf("wait: observation %d of %d ids failed: %v", e.Poll, e.IDs, e.Err)
}

func (e *ObserveError) Unwrap() error { return e.Err }

// Wait observes ids until none is pending or the window ends, and reports
// the last observation. One call of obs.Observe covers every id of a poll,
// and each distinct id is asked for once however often it is requested.
//
// The loop, in order:
//
//   - Observe every id; classify with [Partition] at the Clock's now.
//   - Report progress to OnPoll.
//   - If no id is pending, return, unless the one-poll floor applies: the
//     window is not zero, less than one poll interval (bounded by the
//     window) has passed since the call began, by the Clock, and some id is
//     stopped without end, an unresolved spawn, or errored. Then wait out
//     the rest of that interval and observe again, so a client looping on
//     all_terminal cannot spin. The floor reaches errored ids as well as
//     the two classes the floor exists for, for the same reason: a client
//     looping on an unknown id would otherwise spin. A wake during the
//     floor observes at once but does not end it: otherwise a wake source
//     that fires often (a change signal on a busy store) would let such a
//     client spin at the rate of its wakes. A call that has already waited
//     a full interval has met the floor.
//   - If the window has ended, return: ids still pending make it a timeout,
//     which is a result, not an error.
//   - Otherwise sleep for the poll interval (or what is left of the window,
//     if less), or until Wake fires, and observe again.
//
// A snapshot (MaxWait zero) is one observation: no sleep, no floor.
//
// Wait returns an error, and no result, in these cases:
//
//   - ids is empty, an id is the empty string, obs is nil, or
//     Options.Outcomes does not validate: the error names what is wrong and
//     nothing is observed.
//   - ctx is done, before or during the call: the error wraps ctx.Err(). The
//     loop checks ctx before every observation and selects on it while
//     sleeping, so it returns as soon as ctx is done (an observation in
//     flight returns when the observer honours ctx). The observer is never
//     asked anything after that.
//   - An observation fails as a whole: the error is an [*ObserveError]. The
//     loop does not retry. A whole failure means the lifecycle authority
//     could not be read (the CLI is missing or broken, the store cannot be
//     opened); a retry would either hide that behind a stale "pending" until
//     the window ends or turn a clear error into a late one, and the caller,
//     who sees the error at once, can simply call again.
//
// What Wait does not do: it never writes. Observing is read-only from the
// loop's side (the [Observer] interface has no other method), so a wait that
// expires, is cancelled, or whose caller goes away changes nothing durable.
// The only write a wait can cause is the lifecycle authority's own fenced
// reap inside Observe.
func Wait(ctx context.Context, obs Observer, ids []string, opts *Options) (*Result, error) {
	if opts == nil {
		opts = &Options{}
	}
	if obs == nil {
		return nil, errors.New("wait: no observer given")
	}
	if len(ids) == 0 {
		return nil, errors.New("wait: no ids given; job.wait needs at least one id")
	}
	for i, id := range ids {
		if id == "" {
			return nil, fmt.Errorf("wait: ids[%d] is the empty string", i)
		}
	}
	eff := opts.effective()
	if err := eff.outcomes.Validate(); err != nil {
		return nil, err
	}
	l := loop{eff: eff, obs: obs, distinct: distinct(ids), wake: eff.wake}
	return l.run(ctx, ids)
}

// loop is the state of one Wait call.
type loop struct {
	eff      effective
	obs      Observer
	distinct []string // ids asked of the observer, each once, in input order
	wake     <-chan struct{}
	polls    int
}

func (l *loop) run(ctx context.Context, ids []string) (*Result, error) {
	clock := l.eff.clock
	start := clock.Now()
	deadline := start.Add(l.eff.maxWait)
	floorEnd := start.Add(min(l.eff.pollInterval, l.eff.maxWait))
	for {
		if err := ctx.Err(); err != nil {
			return nil, l.cancelled(err)
		}
		l.drainWake()
		observations, err := l.observe(ctx)
		if err != nil {
			if cerr := ctx.Err(); cerr != nil {
				return nil, l.cancelled(cerr)
			}
			return nil, err
		}
		now := clock.Now()
		sets := Partition(observations, now, l.eff.preparingThreshold)
		if l.eff.onPoll != nil {
			l.eff.onPoll(Progress{Poll: l.polls, Terminal: len(sets.Terminal), Total: len(l.distinct), Elapsed: now.Sub(start)})
		}

		nap := min(l.eff.pollInterval, deadline.Sub(now))
		if len(sets.Pending) == 0 {
			// A snapshot's floorEnd is its start: it never pays the floor.
			if !sets.settledButUnfinished() || !now.Before(floorEnd) {
				return l.result(ids, observations, sets), nil
			}
			nap = floorEnd.Sub(now)
		} else if nap <= 0 {
			return l.result(ids, observations, sets), nil
		}

		if err := l.sleep(ctx, nap); err != nil {
			return nil, l.cancelled(err)
		}
	}
}

// observe asks for every distinct id once and checks the observer kept its
// contract: one entry per id, in order.
func (l *loop) observe(ctx context.Context) ([]Observation, error) {
	l.polls++
	got, err := l.obs.Observe(ctx, l.distinct)
	if err != nil {
		return nil, &ObserveError{Poll: l.polls, IDs: len(l.distinct), Err: err}
	}
	if len(got) != len(l.distinct) {
		return nil, &ObserveError{Poll: l.polls, IDs: len(l.distinct),
			Err: fmt.Errorf("observer returned %d entries for %d ids", len(got), len(l.distinct))}
	}
	for i := range got {
		if got[i].ID != l.distinct[i] {
			return nil, &ObserveError{Poll: l.polls, IDs: len(l.distinct),
				Err: fmt.Errorf("observer entry %d is for id %q, want %q", i, got[i].ID, l.distinct[i])}
		}
	}
	return got, nil
}

// sleep waits d, or until a wake, or until ctx is done (the only error).
func (l *loop) sleep(ctx context.Context, d time.Duration) error {
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-l.eff.clock.After(d):
		return nil
	case <-l.wake:
		// A close is the broadcast form of a wake and counts as one;
		// drainWake, before the observation it triggers, stops the loop
		// listening to a channel that would otherwise always be ready.
		return nil
	}
}

// drainWake consumes wakes already received: the observation about to run
// sees whatever change they announced. Without this a stale wake would cut
// the next sleep (and the one-poll floor) to nothing. A channel found closed
// here is dropped for the same reason: the coming observation is its wake.
func (l *loop) drainWake() {
	for range cap(l.wake) + 1 {
		select {
		case _, ok := <-l.wake:
			if !ok {
				l.wake = nil
				return
			}
		default:
			return
		}
	}
}

func (l *loop) cancelled(err error) error {
	return fmt.Errorf("wait: cancelled after %d observations: %w", l.polls, err)
}

func (l *loop) result(ids []string, observations []Observation, sets Sets) *Result {
	byID := make(map[string]int, len(observations))
	for i := range observations {
		byID[observations[i].ID] = i
	}
	entries := make([]Entry, len(ids))
	for i, id := range ids {
		entries[i] = entryOf(id, observations[byID[id]], l.eff.outcomes)
	}
	full := func(requested []string) []string {
		out := make([]string, 0, len(requested))
		seen := make(map[string]bool, len(requested))
		for _, id := range requested {
			if o := observations[byID[id]]; o.RecordID != "" {
				id = o.RecordID
			}
			if !seen[id] {
				seen[id] = true
				out = append(out, id)
			}
		}
		return out
	}
	return &Result{
		Entries:                   entries,
		AllTerminal:               len(sets.Terminal) == len(l.distinct),
		TimedOut:                  len(sets.Pending) > 0,
		Pending:                   full(sets.Pending),
		StoppedWithoutEnd:         full(sets.StoppedWithoutEnd),
		UnresolvedSpawn:           full(sets.UnresolvedSpawn),
		UnresolvedSpawnAgeSeconds: l.eff.preparingThreshold.Seconds(),
		MaxWaitSeconds:            l.eff.maxWait.Seconds(),
		PollIntervalSeconds:       l.eff.pollInterval.Seconds(),
	}
}

// distinct returns ids without repeats, in order of first appearance.
func distinct(ids []string) []string {
	seen := make(map[string]struct{}, len(ids))
	out := make([]string, 0, len(ids))
	for _, id := range ids {
		if _, ok := seen[id]; ok {
			continue
		}
		seen[id] = struct{}{}
		out = append(out, id)
	}
	return out
}
