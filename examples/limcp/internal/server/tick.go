//go:build unix

package server

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"time"

	"github.com/verbsurface/verbsurface/verbsurface"
)

// SpawnBudgetFlag is `limcp schedule tick`'s budget flag (cli's
// SpawnBudgetFlag; a test holds them equal, since this package must not
// import cli). Like --now it is in ExcludedFlags: only the server sets it.
const SpawnBudgetFlag = "spawn-budget"

// scheduleTick is schedule.tick's handler. A tick starts runs on the
// caller's behalf, one per due schedule, so it pays for them as the same
// runs submitted one by one would: it counts the schedules due now (limcp
// schedule list), takes that many tokens of the caller's spawn bucket
// (Call.Spawns) and, under a policy's live_runs, no more than the runs
// still allowed to be live, then runs `limcp schedule tick
// --spawn-budget=N`. The CLI runs at most N stored commands and defers
// the rest, unclaimed, so they stay due; what it did not spend is given
// back. A caller cannot choose the tick's clock (--now is excluded) nor
// lift its budget. The result is the CLI's, plus limited_by
// ("rate_limited" or "live_runs") and retry_after (seconds) when a limit
// deferred schedules; a tick that could start nothing that was due is
// rate_limited itself.
func (s *Server) scheduleTick() verbsurface.Handler {
	return func(ctx context.Context, call *verbsurface.Call) (any, error) {
		due, err := s.dueSchedules(ctx, call.Runner)
		if err != nil {
			return nil, err
		}
		budget := call.Spawns.Take(due)
		limitedBy := ""
		if budget < due {
			limitedBy = "rate_limited"
			if budget == 0 {
				return nil, call.Spawns.Refusal() // nothing could start
			}
		}
		var started []string // ids of the runs the tick started
		if s.live != nil && budget > 0 {
			got, err := s.live.reserve(ctx, budget)
			if err != nil {
				call.Spawns.Return(budget)
				return nil, err
			}
			// Released once the tick returns, with the runs it started
			// (live_runs_per_subject counts them as the caller's).
			defer func() { s.live.releaseN(ctx, got, started...) }()
			if got < budget {
				call.Spawns.Return(budget - got)
				budget, limitedBy = got, "live_runs"
			}
		}
		data, err := call.Runner.Run(ctx, []string{"schedule", "tick", "--json", "--" + SpawnBudgetFlag + "=" + strconv.Itoa(budget)})
		if err != nil {
			// How many it started before it failed is unknown: the
			// tokens are kept (the safe side).
			return nil, err
		}
		var res map[string]json.RawMessage
		var ids struct {
			Started []struct {
				ID string `json:"id"`
			} `json:"started"`
		}
		if json.Unmarshal(data, &ids) == nil {
			for _, st := range ids.Started {
				if st.ID != "" {
					started = append(started, st.ID)
				}
			}
		}
		var counts struct {
			Started  []json.RawMessage `json:"started"`
			Deferred []json.RawMessage `json:"deferred"`
			Spent    *int              `json:"spent"`
		}
		if json.Unmarshal(data, &res) != nil || json.Unmarshal(data, &counts) != nil || counts.Spent == nil {
			// The CLI's answer lacks what was spent: keep every token (the
			// safe side) and pass the answer on.
			return json.RawMessage(data), nil
		}
		call.Spawns.Return(budget - *counts.Spent)
		if len(counts.Deferred) == 0 {
			return json.RawMessage(data), nil
		}
		if limitedBy == "" {
			limitedBy = "budget" // more fell due between the count and the tick
		}
		res["limited_by"], _ = json.Marshal(limitedBy)
		if limitedBy == "rate_limited" {
			res["retry_after"], _ = json.Marshal(int(math.Max(1, math.Ceil(call.Spawns.RetryAfter().Seconds()))))
		}
		return res, nil
	}
}

// dueSchedules counts the schedules due now, as `limcp schedule list`
// reports them: the tokens a tick asks for. It is a count taken before
// the tick, so the tick may find more due (those it defers) or fewer
// (their tokens are given back).
func (s *Server) dueSchedules(ctx context.Context, runner verbsurface.Runner) (int, error) {
	data, err := runner.Run(ctx, []string{"schedule", "list", "--json"})
	if err != nil {
		return 0, err
	}
	var list struct {
		Schedules []struct {
			NextRunAt time.Time `json:"next_run_at"`
		} `json:"schedules"`
	}
	if err := json.Unmarshal(data, &list); err != nil {
		return 0, fmt.Errorf("reading limcp schedule list: %w", err)
	}
	now, n := time.Now(), 0
	for _, sc := range list.Schedules {
		if !sc.NextRunAt.After(now) {
			n++
		}
	}
	return n, nil
}
