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

// StartFunc starts a stored command and returns the id of the record it created.
type StartFunc func(ctx context.Context, command []string) (id string, err error)

// Tick starts every schedule due at now, in name order.
func Tick(ctx context.Context, st *store.Store, now time.Time, start StartFunc) ([]Started, error) {
	all, err := st.Schedules(ctx)
	if err != nil {
		return nil, err
	}
	out := []Started{}
	for _, sc := range all {
		if sc.NextRunAt.After(now) {
			continue
		}
		cs, err := Parse(sc.Cron)
		if err != nil {
			out = append(out, Started{Schedule: sc.Name, Due: sc.NextRunAt, Error: err.Error()})
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
		id, err := start(ctx, sc.Command)
		s.ID = id
		if err != nil {
			s.Error = err.Error()
			var r *guard.Refusal
			s.Refused = errors.As(err, &r)
		}
		_ = st.RecordScheduleRun(ctx, sc.Name, s.ID, s.Error)
		out = append(out, s)
	}
	return out, nil
}
