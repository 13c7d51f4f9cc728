package schedule

import (
	"context"
	"errors"
	"time"

	"github.com/robfig/cron/v3"
	"github.com/verbsurface/verbsurface/examples/limcp/internal/guard"
	"github.com/verbsurface/verbsurface/examples/limcp/internal/machine"
	"github.com/verbsurface/verbsurface/examples/limcp/internal/store"
)

// Parse parses a standard cron expression; a bad one is an invalid_cron
// *machine.Error naming the expression and what is wrong.
func Parse(expr string) (cron.Schedule, error) {
	s, err := cron.ParseStandard(expr)
	if err != nil {
		return nil, machine.Errorf(machine.InvalidCron, map[string]any{"cron": expr},
			"invalid cron expression %q: %v (want 5 fields: minute hour day-of-month month day-of-week, e.g. \"*/5 * * * *\")", expr, err)
	}
	return s, nil
}

// Started is one schedule a tick started (or tried to).
type Started struct {
	Schedule string    `json:"schedule"`
	Due      time.Time `json:"due"`
	NextRun  time.Time `json:"next_run_at"`
	ID       string    `json:"id"`    // the record the command created ("" on failure)
	Error    string    `json:"error"` // why the command failed ("" on success)
	// Refused is set when the stored command was not run at all: the
	// guard, run again at the tick, refused it (Error says why).
	Refused bool `json:"refused,omitempty"`
}

// StartFunc starts a stored schedule's command (sc.Command, in sc.Cwd when
// set) and returns the id of the record it created.
type StartFunc func(ctx context.Context, sc store.Schedule) (id string, err error)

// Deferred is a due schedule a tick left for a later one: its budget was
// spent. It was not claimed, so it is still due.
type Deferred struct {
	Schedule string    `json:"schedule"`
	Due      time.Time `json:"due"`
}

// Ticked is what one tick did.
type Ticked struct {
	Started  []Started  `json:"started"`
	Deferred []Deferred `json:"deferred"`
	// Spent is how many stored commands the tick ran (a refused one runs
	// nothing and costs nothing): what it took of its budget.
	Spent int `json:"spent"`
}

// Tick starts every schedule due at now, in name order, with no budget.
func Tick(ctx context.Context, st *store.Store, now time.Time, start StartFunc) ([]Started, error) {
	t, err := TickWithin(ctx, st, now, -1, start)
	return t.Started, err
}

// TickWithin is [Tick] with a budget: it runs at most budget stored
// commands (negative: no budget), each a run started on someone's behalf
// as a direct submit would be, so the tick costs what those submits would.
// The due schedules past the budget are deferred, in name order: not
// claimed, they stay due for the next tick, and none is half-started.
func TickWithin(ctx context.Context, st *store.Store, now time.Time, budget int, start StartFunc) (Ticked, error) {
	out := Ticked{Started: []Started{}, Deferred: []Deferred{}}
	all, err := st.Schedules(ctx)
	if err != nil {
		return out, err
	}
	for _, sc := range all {
		if sc.NextRunAt.After(now) {
			continue
		}
		cs, err := Parse(sc.Cron)
		if err != nil {
			out.Started = append(out.Started, Started{Schedule: sc.Name, Due: sc.NextRunAt, Error: err.Error()})
			continue
		}
		if budget >= 0 && out.Spent >= budget {
			out.Deferred = append(out.Deferred, Deferred{Schedule: sc.Name, Due: sc.NextRunAt})
			continue
		}
		next := cs.Next(now)
		won, err := st.ClaimSchedule(ctx, sc, now, next)
		if err != nil {
			return out, err
		}
		if !won {
			continue // another tick claimed this occurrence
		}
		s := Started{Schedule: sc.Name, Due: sc.NextRunAt, NextRun: next}
		id, err := start(ctx, sc)
		s.ID = id
		if err != nil {
			s.Error = err.Error()
			var r *guard.Refusal
			s.Refused = errors.As(err, &r)
		}
		if !s.Refused {
			out.Spent++
		}
		_ = st.RecordScheduleRun(ctx, sc.Name, s.ID, s.Error)
		out.Started = append(out.Started, s)
	}
	return out, nil
}
