package wait

import (
	"math"
	"time"
)

// Bounds of the wait window and the poll interval. Requested values outside
// them are clamped, never refused, and the effective values are echoed in
// the [Result].
const (
	// DefaultMaxWait is safely below the 60 s request timeout common among
	// MCP clients, so a default wait returns before the client gives up.
	DefaultMaxWait = 25 * time.Second
	// MaxWaitLimit bounds one call; a caller that needs longer calls again.
	MaxWaitLimit = 300 * time.Second

	DefaultPollInterval = 1 * time.Second
	// MinPollInterval keeps a careless caller from turning the loop into a
	// busy spin over the observer (each observation may be a subprocess).
	// A wake signal (Options.Wake) observes as soon as a run changes, so
	// polling only catches what a wake missed, and polling faster buys no
	// latency where one is wired: at 50 ms, sixteen waits of one request
	// polled 320 times a second (1.45 cores for sixteen such requests).
	MinPollInterval = 250 * time.Millisecond
	// MaxPollInterval keeps a long window from going blind for minutes
	// when no wake signal is wired.
	MaxPollInterval = 30 * time.Second

	// DefaultPreparingThreshold is how long a record may stay preparing
	// before it is an unresolved spawn. Preparing normally lasts well under
	// a second (write the record, snapshot the prompt, fork and exec); 30 s
	// leaves room for a loaded machine without leaving a failed spawn
	// pending for more than about one default wait.
	DefaultPreparingThreshold = 30 * time.Second
)

// Clock is the loop's source of time, so tests can drive it exactly.
type Clock interface {
	Now() time.Time
	// After returns a channel that receives once d has passed.
	After(d time.Duration) <-chan time.Time
}

// Progress is reported to [Options].OnPoll after every observation.
type Progress struct {
	Poll     int           // 1 for the first observation of the call
	Terminal int           // distinct ids observed terminal in this poll
	Total    int           // distinct ids in the call
	Elapsed  time.Duration // since the call began, by the Clock
}

// Options configures [Wait]. The zero value is right: a 25 s window, a 1 s
// poll, a 30 s preparing threshold, [DefaultOutcomes], the system clock,
// no wake signal and no progress callback.
type Options struct {
	// MaxWait is the window. nil means DefaultMaxWait. Zero (or less) is a
	// snapshot: one observation, no sleep, no floor. Larger than
	// MaxWaitLimit is clamped to it. Build it from a JSON number of seconds
	// with [Seconds].
	MaxWait *time.Duration

	// PollInterval is the time between observations. nil means
	// DefaultPollInterval; any value is clamped to [MinPollInterval,
	// MaxPollInterval].
	PollInterval *time.Duration

	// PreparingThreshold is the age past which a preparing record is an
	// unresolved spawn. Zero or less means DefaultPreparingThreshold.
	PreparingThreshold time.Duration

	// Outcomes maps terminal statuses to outcomes. nil means
	// [DefaultOutcomes]. A table that does not validate makes Wait fail.
	Outcomes OutcomeTable

	// Clock is the source of time. nil means the system clock.
	Clock Clock

	// Wake, when a change may have happened (a terminal notification from
	// the CLI, a change signal on the lifecycle store), makes the loop
	// observe at once instead of at the next poll. It only shortens
	// latency: polling stays the correctness path, so a missed, dropped or
	// spurious wake costs at most one poll interval of latency or one extra
	// observation. Wakes received before an observation are consumed by it.
	// Closing the channel counts as one last wake; after it the loop only
	// polls. The sender should not block: a 1-buffered channel with
	// non-blocking sends coalesces bursts.
	Wake <-chan struct{}

	// OnPoll, if set, is called synchronously after every observation
	// (including the last) with how many ids are terminal of how many, so
	// an MCP server can send progress notifications. It must return
	// quickly; the loop waits for it.
	OnPoll func(Progress)
}

// Seconds converts a JSON number of seconds into a duration for
// [Options].MaxWait or [Options].PollInterval. NaN yields nil (the default);
// magnitudes beyond a billion seconds saturate there, to be clamped like any
// other out-of-bounds value.
func Seconds(s float64) *time.Duration {
	if math.IsNaN(s) {
		return nil
	}
	const limit = 1e9
	s = max(-limit, min(limit, s))
	d := time.Duration(s * float64(time.Second))
	return &d
}

// effective is Options after defaults and clamping.
type effective struct {
	maxWait            time.Duration
	pollInterval       time.Duration
	preparingThreshold time.Duration
	outcomes           OutcomeTable
	clock              Clock
	wake               <-chan struct{}
	onPoll             func(Progress)
}

func (o Options) effective() effective {
	e := effective{
		maxWait:            DefaultMaxWait,
		pollInterval:       DefaultPollInterval,
		preparingThreshold: DefaultPreparingThreshold,
		outcomes:           o.Outcomes,
		clock:              o.Clock,
		wake:               o.Wake,
		onPoll:             o.OnPoll,
	}
	if o.MaxWait != nil {
		e.maxWait = max(0, min(MaxWaitLimit, *o.MaxWait))
	}
	if o.PollInterval != nil {
		e.pollInterval = max(MinPollInterval, min(MaxPollInterval, *o.PollInterval))
	}
	if o.PreparingThreshold > 0 {
		e.preparingThreshold = o.PreparingThreshold
	}
	if e.outcomes == nil {
		e.outcomes = DefaultOutcomes()
	}
	if e.clock == nil {
		e.clock = systemClock{}
	}
	return e
}

type systemClock struct{}

func (systemClock) Now() time.Time                         { return time.Now() }
func (systemClock) After(d time.Duration) <-chan time.Time { return time.After(d) }
