//go:build unix

package run

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/verbsurface/verbsurface/examples/limcp/internal/machine"
	"github.com/verbsurface/verbsurface/examples/limcp/internal/store"
	"github.com/verbsurface/verbsurface/internal/procid"
	"github.com/verbsurface/verbsurface/kill"
)

// KillReport is the data of `limcp kill --json` (and, for a partial reap,
// the details of its kill_partial error).
type KillReport struct {
	Target       EntityRef   `json:"target"`
	Grace        string      `json:"grace"`
	Reaped       []Reaped    `json:"reaped"`        // stopped and recorded by this kill, children before parents
	NotReaped    []NotReaped `json:"not_reaped"`    // could not be stopped; left as they are
	AlreadyEnded []Ended     `json:"already_ended"` // terminal before this kill could record anything
}

// EntityRef names an entity.
type EntityRef struct {
	Kind store.Kind `json:"kind"`
	ID   string     `json:"id"`
}

// Reaped is an entity this kill stopped and recorded.
type Reaped struct {
	Kind       store.Kind   `json:"kind"`
	ID         string       `json:"id"`
	Status     store.Status `json:"status"`
	ReasonCode string       `json:"reason_code"`
	// Signals are the signals sent to the entity's process group
	// (empty when it had no process yet, or it shares its group with its
	// parent, which was signalled).
	Signals []string `json:"signals"`
}

// NotReaped is an entity this kill could not stop.
type NotReaped struct {
	Kind   store.Kind   `json:"kind"`
	ID     string       `json:"id"`
	Status store.Status `json:"status"`
	// Reason: process_survived_sigkill, leader_gone_members_remain,
	// signal_failed, child_not_reaped, store_error.
	Reason    string `json:"reason"`
	Detail    string `json:"detail"`
	Survivors []int  `json:"survivors"`
}

// Ended is an entity that was already terminal.
type Ended struct {
	Kind       store.Kind   `json:"kind"`
	ID         string       `json:"id"`
	Status     store.Status `json:"status"`
	ReasonCode string       `json:"reason_code"`
}

// killNode is one entity's outcome, with its children's.
type killNode struct {
	reaped    *Reaped
	notReaped *NotReaped
	ended     *Ended
	children  []*killNode
}

func (n *killNode) ok() bool { return n.notReaped == nil }

type killer struct {
	rt    *Runtime
	grace time.Duration

	mu        sync.Mutex
	signalled map[procid.Identity]*groupResult // groups already signalled by this kill
}

type groupResult struct {
	done    chan struct{}
	outcome kill.GroupOutcome
	err     error
}

// Kill stops the entity id and everything under it (see the package
// documentation). A show is refused with show_kill_unsupported. When some
// entity could not be stopped the report is returned with a kill_partial
// error carrying the same report as its details.
func (rt *Runtime) Kill(ctx context.Context, id string, grace time.Duration) (*KillReport, error) {
	rec, err := rt.Store.Resolve(ctx, id)
	if err != nil {
		return nil, err
	}
	if rec.Kind == store.KindShow {
		kids, _ := rt.Store.Children(ctx, rec.ID)
		plays := []string{}
		for _, k := range kids {
			plays = append(plays, k.ID)
		}
		return nil, machine.Errorf(machine.ShowKillUnsupported, map[string]any{"id": rec.ID, "plays": plays},
			"show %s (%s) groups plays and is never killed as a whole: a kill that silently half-stops a tree is worse than none; kill its plays one by one", rec.ID, rec.Label)
	}
	if grace <= 0 {
		grace = kill.DefaultGrace
	}
	// A kill is a control operation: once begun it runs to the end, so a
	// caller going away cannot leave a tree half-stopped and half-recorded.
	ctx = context.WithoutCancel(ctx)
	k := &killer{rt: rt, grace: grace, signalled: map[procid.Identity]*groupResult{}}
	root := k.visit(ctx, rec.ID)
	rep := &KillReport{Target: EntityRef{Kind: rec.Kind, ID: rec.ID}, Grace: grace.String(),
		Reaped: []Reaped{}, NotReaped: []NotReaped{}, AlreadyEnded: []Ended{}}
	var flatten func(n *killNode)
	flatten = func(n *killNode) {
		for _, c := range n.children {
			flatten(c)
		}
		switch {
		case n.reaped != nil:
			rep.Reaped = append(rep.Reaped, *n.reaped)
		case n.notReaped != nil:
			rep.NotReaped = append(rep.NotReaped, *n.notReaped)
		case n.ended != nil:
			rep.AlreadyEnded = append(rep.AlreadyEnded, *n.ended)
		}
	}
	flatten(root)
	if len(rep.NotReaped) > 0 {
		total := len(rep.Reaped) + len(rep.NotReaped)
		return rep, machine.Errorf(machine.KillPartial, rep, "%s %s: reaped %d of %d entities; %d could not be stopped (first: %s %s: %s)",
			rec.Kind, rec.ID, len(rep.Reaped), total, len(rep.NotReaped), rep.NotReaped[0].Kind, rep.NotReaped[0].ID, rep.NotReaped[0].Detail)
	}
	return rep, nil
}

// own is how an entity's own process was dealt with.
type own struct {
	rec       store.Record // as last read
	recorded  bool         // the transition is already written (a preparing record cancelled)
	ended     bool         // terminal before we did anything
	reason    string       // stopped: the reason code to record
	status    store.Status // stopped: the status to record
	signals   []string
	failure   string // not stopped ("" when stopped): the NotReaped reason
	detail    string
	survivors []int
}

// visit stops id's own process, then its children (concurrently), then
// records id's end.
func (k *killer) visit(ctx context.Context, id string) *killNode {
	o := k.stopOwn(ctx, id)
	node := &killNode{}
	kids, err := k.rt.Store.Children(ctx, id)
	if err != nil {
		node.notReaped = &NotReaped{Kind: o.rec.Kind, ID: id, Status: o.rec.Status, Reason: "store_error", Detail: err.Error(), Survivors: []int{}}
		return node
	}
	node.children = make([]*killNode, len(kids))
	var wg sync.WaitGroup
	for i, c := range kids {
		wg.Add(1)
		go func(i int, cid string) {
			defer wg.Done()
			node.children[i] = k.visit(ctx, cid)
		}(i, c.ID)
	}
	wg.Wait()
	childrenOK := true
	for _, c := range node.children {
		childrenOK = childrenOK && c.ok()
	}
	r := o.rec
	switch {
	case o.ended:
		node.ended = &Ended{Kind: r.Kind, ID: r.ID, Status: r.Status, ReasonCode: r.ReasonCode}
	case o.recorded:
		node.reaped = &Reaped{Kind: r.Kind, ID: r.ID, Status: r.Status, ReasonCode: r.ReasonCode, Signals: o.signals}
	case o.failure != "":
		node.notReaped = &NotReaped{Kind: r.Kind, ID: r.ID, Status: r.Status, Reason: o.failure, Detail: o.detail, Survivors: nonNil(o.survivors)}
	case !childrenOK:
		node.notReaped = &NotReaped{Kind: r.Kind, ID: r.ID, Status: r.Status, Reason: "child_not_reaped",
			Detail: "its process is stopped but an entity under it could not be stopped, so its end is not recorded", Survivors: []int{}}
	default:
		next, err := k.rt.Store.Transition(ctx, store.Change{ID: r.ID, Version: r.Version, To: o.status, Reason: o.reason, Actor: ActorKill})
		switch {
		case err == nil:
			node.reaped = &Reaped{Kind: next.Kind, ID: next.ID, Status: next.Status, ReasonCode: next.ReasonCode, Signals: o.signals}
		case errors.Is(err, store.ErrTerminal) || errors.Is(err, store.ErrConflict):
			cur, gerr := k.rt.Store.Get(ctx, r.ID)
			if gerr == nil && cur.Terminal() {
				node.ended = &Ended{Kind: cur.Kind, ID: cur.ID, Status: cur.Status, ReasonCode: cur.ReasonCode}
				break
			}
			node.notReaped = &NotReaped{Kind: r.Kind, ID: r.ID, Status: r.Status, Reason: "store_error", Detail: err.Error(), Survivors: []int{}}
		default:
			node.notReaped = &NotReaped{Kind: r.Kind, ID: r.ID, Status: r.Status, Reason: "store_error", Detail: err.Error(), Survivors: []int{}}
		}
	}
	return node
}

func nonNil(s []int) []int {
	if s == nil {
		return []int{}
	}
	return s
}

// stopOwn deals with the entity's own process, in this order:
//
//  1. terminal: nothing to do (ended);
//  2. preparing: cancel it by compare-and-set before its worker can start
//     it (the worker, finding it terminal, exits); if the worker won the
//     race the record is now running: go on with 3;
//  3. running: signal its process group through kill.SignalGroup, which
//     proves the leader's identity first; a group this kill already
//     signalled (a play and its session share one) is not signalled twice.
func (k *killer) stopOwn(ctx context.Context, id string) own {
	for attempt := 0; ; attempt++ {
		rec, err := k.rt.Store.Get(ctx, id)
		if err != nil {
			return own{rec: store.Record{ID: id}, failure: "store_error", detail: err.Error()}
		}
		switch {
		case rec.Terminal():
			return own{rec: rec, ended: true}
		case rec.Status == store.StatusPreparing:
			next, err := k.rt.Store.Transition(ctx, store.Change{ID: id, Version: rec.Version, To: store.StatusCancelled,
				Reason: ReasonManualKill, Actor: ActorKill})
			if err == nil {
				return own{rec: next, recorded: true, signals: []string{}}
			}
			if (errors.Is(err, store.ErrConflict) || errors.Is(err, store.ErrTerminal)) && attempt < 5 {
				continue // the worker moved it: look again
			}
			return own{rec: rec, failure: "store_error", detail: err.Error()}
		}
		return k.signal(ctx, rec)
	}
}

func (k *killer) signal(ctx context.Context, rec store.Record) own {
	ident := procid.Identity{PID: rec.PID, StartTime: rec.StartTime}
	o := own{rec: rec, status: store.StatusCancelled, signals: []string{}}
	if rec.PID <= 0 || rec.PGID != rec.PID {
		o.failure, o.detail = "signal_failed", fmt.Sprintf("the record has no usable process identity (pid %d, pgid %d)", rec.PID, rec.PGID)
		return o
	}
	k.mu.Lock()
	gr, seen := k.signalled[ident]
	if !seen {
		gr = &groupResult{done: make(chan struct{})}
		k.signalled[ident] = gr
	}
	k.mu.Unlock()
	if !seen {
		gr.outcome, gr.err = kill.SignalGroup(ctx, kill.Group{PGID: rec.PGID, Leader: ident}, k.grace)
		close(gr.done)
	}
	<-gr.done
	out := gr.outcome
	if !seen {
		for _, s := range out.Sent {
			o.signals = append(o.signals, s.Signal)
		}
	}
	forced := false
	for _, s := range out.Sent {
		forced = forced || s.Signal == "SIGKILL"
	}
	switch out.Status {
	case kill.GroupStatusReaped:
		o.reason = ReasonManualKill
		if forced {
			o.reason = ReasonForceKill
		}
	case kill.GroupStatusAlreadyGone, kill.GroupStatusIdentityMismatch:
		// The process was gone before this kill touched it (an entity
		// sharing the group sees the same, cached outcome): record the
		// truth.
		o.status, o.reason = store.StatusFailed, ReasonProcessGone
	case kill.GroupStatusSurvivors:
		o.failure, o.detail, o.survivors = "process_survived_sigkill", out.Reason, out.Survivors
	case kill.GroupStatusLeaderGone:
		o.failure, o.detail, o.survivors = "leader_gone_members_remain", out.Reason, out.Survivors
	default:
		detail := out.Reason
		if gr.err != nil {
			detail = gr.err.Error()
		}
		o.failure, o.detail, o.survivors = "signal_failed", detail, out.Survivors
	}
	return o
}
