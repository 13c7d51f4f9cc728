//go:build unix

package run

import (
	"context"
	"errors"
	"sync"

	"github.com/verbsurface/verbsurface/examples/limcp/internal/store"
	"github.com/verbsurface/verbsurface/internal/procid"
	"github.com/verbsurface/verbsurface/wait"
)

// Observer is the lifecycle authority's observation of records, for
// `job observe` and `job wait`. It implements wait.Observer.
type Observer struct {
	Store *store.Store
}

var _ wait.Observer = (*Observer)(nil)

// Observe returns one observation per id, in order. An id that names no
// record, or more than one, gets a per-id error; a store failure fails the
// whole call. It performs the fenced reap (see the package documentation).
func (o *Observer) Observe(ctx context.Context, ids []string) ([]wait.Observation, error) {
	out := make([]wait.Observation, len(ids))
	groups := &groupTable{}
	for i, id := range ids {
		rec, err := o.Store.Resolve(ctx, id)
		var ie *store.IDError
		if errors.As(err, &ie) {
			code := wait.CodeUnknownID
			if ie.Ambiguous {
				code = wait.CodeAmbiguousID
			}
			out[i] = wait.Observation{ID: id, Error: &wait.IDError{Code: code, Message: ie.Error()}}
			continue
		}
		if err != nil {
			return nil, err
		}
		out[i] = o.observe(ctx, id, rec, groups)
	}
	return out, nil
}

func (o *Observer) observe(ctx context.Context, asGiven string, rec store.Record, groups *groupTable) wait.Observation {
	ev, orphan := o.evidence(ctx, rec, groups)
	publishFailed := false
	if rec.Status == store.StatusRunning && ev == wait.EvidenceGone {
		next, err := o.Store.Transition(ctx, store.Change{ID: rec.ID, Version: rec.Version, To: store.StatusFailed,
			Reason: ReasonProcessGone, Actor: ActorObserver})
		switch {
		case err == nil:
			rec = next
		case errors.Is(err, store.ErrTerminal), errors.Is(err, store.ErrConflict):
			// Another writer got there first (another observer, the
			// worker's own end, a kill): report the record as it now is.
			if cur, gerr := o.Store.Get(ctx, rec.ID); gerr == nil {
				rec = cur
			} else {
				publishFailed = true
			}
		default:
			publishFailed = true
		}
	}
	var full string
	if rec.ID != asGiven {
		full = rec.ID
	}
	return wait.Observation{
		ID:               asGiven,
		RecordID:         full,
		Kind:             string(rec.Kind),
		Label:            rec.Label,
		Status:           string(rec.Status),
		Terminal:         rec.Terminal(),
		ReasonCode:       rec.ReasonCode,
		Phase:            wait.Phase(rec.Phase),
		PhaseEnteredAt:   rec.PhaseEnteredAt,
		Process:          ev,
		EndRecorded:      rec.EndRecorded(),
		PublishFailed:    publishFailed,
		PossiblyOrphaned: orphan,
	}
}

// evidence is what the process table says about the record's process, in this order:
//
//  1. a show has no process: alive if any of its open plays is alive, else
//     unknown;
//  2. no recorded identity (preparing): unknown;
//  3. the leader (pid and start time) is alive: alive;
//  4. the leader cannot be checked: unknown;
//  5. the leader is gone and its group still has live members: unknown,
//     and possibly orphaned (the worker that would record the end is gone
//     but processes of the run remain; reaping now would lie);
//  6. the leader is gone and its group is empty: gone.
//
// A terminal record reaped as process_gone is checked for orphans too.
func (o *Observer) evidence(ctx context.Context, rec store.Record, groups *groupTable) (wait.Evidence, bool) {
	if rec.Kind == store.KindShow {
		kids, err := o.Store.Children(ctx, rec.ID)
		if err != nil {
			return wait.EvidenceUnknown, false
		}
		for _, k := range kids {
			if k.Terminal() {
				continue
			}
			if ev, _ := o.evidence(ctx, k, groups); ev == wait.EvidenceAlive {
				return wait.EvidenceAlive, false
			}
		}
		return wait.EvidenceUnknown, false
	}
	if rec.PID <= 0 {
		return wait.EvidenceUnknown, false
	}
	switch procid.Check(procid.Identity{PID: rec.PID, StartTime: rec.StartTime}) {
	case procid.Alive:
		return wait.EvidenceAlive, false
	case procid.Unknown:
		return wait.EvidenceUnknown, false
	}
	if rec.Terminal() && rec.ReasonCode != ReasonProcessGone {
		return wait.EvidenceGone, false
	}
	n, err := groups.members(rec.PGID)
	switch {
	case err != nil:
		return wait.EvidenceUnknown, false
	case n > 0:
		return wait.EvidenceUnknown, true
	}
	return wait.EvidenceGone, false
}

// groupTable counts live members per process group, reading the process table once per
// observation call and only if some record needs it.
type groupTable struct {
	once   sync.Once
	counts map[int]int
	err    error
}

func (g *groupTable) members(pgid int) (int, error) {
	g.once.Do(func() { g.counts, g.err = procid.GroupSizes() })
	return g.counts[pgid], g.err
}
