//go:build unix

package kill

import (
	"context"
	"errors"
	"fmt"
	"time"

	"golang.org/x/sys/unix"

	"github.com/verbsurface/verbsurface/internal/procid"
)

// DefaultGrace is how long [SignalGroup] waits between SIGTERM and SIGKILL
// when the caller passes no grace.
const DefaultGrace = 5 * time.Second

// killSettle bounds the wait for the group to empty after SIGKILL. A process
// outlives SIGKILL only while it is stuck in the kernel (uninterruptible
// sleep); past this bound it is reported as a survivor rather than waited for.
const killSettle = 2 * time.Second

// pollEvery is how often the group's membership is read from the process
// table while waiting for it to empty.
const pollEvery = 20 * time.Millisecond

// GroupStatus is how a [SignalGroup] call ended.
type GroupStatus string

const (
	// GroupStatusReaped: the leader was verified, signals were sent, and the group
	// has no live member left.
	GroupStatusReaped GroupStatus = "reaped"
	// GroupStatusAlreadyGone: the leader has exited and the group has no live
	// member; nothing was signalled because nothing was left.
	GroupStatusAlreadyGone GroupStatus = "already_gone"
	// GroupStatusSurvivors: signals were sent (SIGKILL last, unless the group
	// could no longer be proven to be the recorded one) and some members
	// are still alive; they are listed in Survivors.
	GroupStatusSurvivors GroupStatus = "survivors"
	// GroupStatusIdentityMismatch: the leader's pid now belongs to a different
	// process (its start time differs): the pid was reused. Nothing was
	// signalled.
	GroupStatusIdentityMismatch GroupStatus = "identity_mismatch"
	// GroupStatusLeaderGone: the leader has exited but the group still has live
	// members. Nothing was signalled, because nothing proves those members
	// are the ones the server started (see [SignalGroup]); they are listed
	// in Survivors.
	GroupStatusLeaderGone GroupStatus = "leader_gone"
	// GroupStatusError: the call failed (invalid group, process table unreadable, a
	// signal refused by the kernel, cancelled before any signal); the error
	// is returned too, and Sent lists what had been sent by then.
	GroupStatusError GroupStatus = "error"
)

// SignalSent is one signal delivered to the group.
type SignalSent struct {
	Signal string `json:"signal"` // "SIGTERM" or "SIGKILL"
	// Members are the group's live members read from the process table just
	// before the signal was sent. A process forked in that instant is
	// signalled too (the signal goes to the group) but may be missing from
	// this list.
	Members []int `json:"members"`
}

// GroupOutcome reports what [SignalGroup] did. It is also the "signalled"
// member of a job.kill [Result].
type GroupOutcome struct {
	PGID   int         `json:"pgid"`
	Leader Identity    `json:"leader"`
	Status GroupStatus `json:"status"`
	Reason string      `json:"reason"` // one sentence: what happened and why
	// Method is how the group was addressed: "pidfd" (a pidfd of the
	// verified leader, signalled with PIDFD_SIGNAL_PROCESS_GROUP, Linux 6.9
	// and later) or "pgid" (kill(-pgid), re-proven before each signal).
	// Empty when nothing was addressed.
	Method string `json:"method,omitempty"`
	// Sent lists the signals delivered, in order; empty when nothing was
	// signalled.
	Sent []SignalSent `json:"sent"`
	// GraceCut is true when the caller's context ended during the grace, so
	// SIGKILL was sent early rather than leaving a half-killed group.
	GraceCut bool `json:"grace_cut,omitempty"`
	// Survivors are the group's live members at the end.
	Survivors []int `json:"survivors"`
}

// Signalled reports whether any signal was delivered.
func (o GroupOutcome) Signalled() bool { return len(o.Sent) > 0 }

// SignalGroup stops the process group g: it proves the group's leader is
// still the recorded process, sends SIGTERM to the group, waits up to grace
// (DefaultGrace when grace <= 0) for the group to empty, then sends SIGKILL,
// and reports what was signalled and what survived.
//
// The steps, in the order they are checked:
//
//  1. g must be well formed (PGID > 1, Leader.PID == PGID, a recorded start
//     time) and must not be the caller's own process group; otherwise an
//     error, nothing signalled.
//  2. If ctx is already done, an error, nothing signalled.
//  3. The leader is looked up by pid. A process with that pid but another
//     start time is a reused pid: [GroupStatusIdentityMismatch], nothing
//     signalled. A leader that has exited but not yet been reaped (a
//     zombie) still proves the group: its pid cannot be reused until it is
//     reaped.
//  4. If the leader has exited and been reaped, the group is
//     [GroupStatusAlreadyGone] when it has no live member, else
//     [GroupStatusLeaderGone]: nothing is signalled, and the members are
//     reported as survivors. The reason: a group id is the leader's pid, and
//     once the group empties that number can be handed to an unrelated
//     process that makes its own group (pid_max is often only 32768). With
//     the leader gone, no recorded identity ties the members now in the
//     group to the group the server created, so signalling them could hit
//     strangers, which is the one mistake this package must never make.
//     Orphans left behind are visible in the outcome instead.
//  5. SIGTERM is sent to the group. If the leader exits during the grace the
//     kill still completes: the group is addressed through a pidfd of the
//     verified leader, which names that very group even after the leader is
//     reaped and never a later group with a recycled id. On kernels without
//     PIDFD_SIGNAL_PROCESS_GROUP the group is addressed by number and
//     re-proven before SIGKILL by a witness: the leader, or a member seen in
//     the group while the leader was proven, still alive with the same start
//     time and still in the group.
//  6. After the grace, SIGKILL to whatever remains; then a short wait
//     (a few seconds at most) for the group to empty. Members still alive
//     are reported as [GroupStatusSurvivors].
//
// A context that ends during the grace shortens it: SIGKILL is sent at once
// (GraceCut), because stopping half-way would leave a group that ignored
// SIGTERM running. SignalGroup never signals anything but the group, and
// it does not reap: zombies are left to their parents.
func SignalGroup(ctx context.Context, g Group, grace time.Duration) (GroupOutcome, error) {
	return signalGroup(ctx, g, grace, addressByPidfd)
}

// addressing is how the group is named when signalling it.
type addressing int

const (
	addressByPidfd addressing = iota // pidfd of the leader, falling back to addressByPGID when unsupported
	addressByPGID                    // kill(-pgid), with witnesses
)

func signalGroup(ctx context.Context, g Group, grace time.Duration, how addressing) (GroupOutcome, error) {
	out := GroupOutcome{PGID: g.PGID, Leader: g.Leader, Sent: []SignalSent{}, Survivors: []int{}}
	fail := func(err error) (GroupOutcome, error) {
		out.Status, out.Reason = GroupStatusError, err.Error()
		return out, fmt.Errorf("kill: signalling process group %d: %w", g.PGID, err)
	}
	if grace <= 0 {
		grace = DefaultGrace
	}
	if err := g.validate(); err != nil {
		return fail(err)
	}
	if g.PGID == unix.Getpgrp() {
		return fail(fmt.Errorf("it is the caller's own process group"))
	}
	if err := ctx.Err(); err != nil {
		return fail(fmt.Errorf("nothing signalled: %w", err))
	}

	h, loss, err := openGroup(g, how)
	if err != nil {
		return fail(err)
	}
	if loss != nil {
		return leaderLost(out, g, loss)
	}
	defer h.close()
	out.Method = h.method()
	if err := ctx.Err(); err != nil {
		return fail(fmt.Errorf("nothing signalled: %w", err))
	}

	switch err := h.send(&out, unix.SIGTERM); {
	case errors.Is(err, errGroupGone):
		out.Status = GroupStatusAlreadyGone
		out.Reason = fmt.Sprintf("leader pid %d was verified but group %d had no member left to signal", g.Leader.PID, g.PGID)
		return out, nil
	case err != nil:
		return fail(err)
	}

	empty, _, err := waitEmpty(ctx, h, grace)
	if err != nil {
		return fail(err)
	}
	if empty {
		out.Status = GroupStatusReaped
		out.Reason = fmt.Sprintf("group %d emptied after SIGTERM", g.PGID)
		return out, nil
	}
	out.GraceCut = ctx.Err() != nil
	if testHookBeforeKill != nil {
		testHookBeforeKill()
	}

	switch err := h.send(&out, unix.SIGKILL); {
	case errors.Is(err, errGroupGone):
		out.Status = GroupStatusReaped
		out.Reason = fmt.Sprintf("group %d emptied after SIGTERM, as SIGKILL was due", g.PGID)
		return out, nil
	case errors.Is(err, errUnproven):
		_, members, err := h.members()
		if err != nil {
			return fail(err)
		}
		out.Status = GroupStatusSurvivors
		out.Survivors = members
		out.Reason = fmt.Sprintf("after SIGTERM, %d processes remain in group %d but none of the processes seen in the recorded group is alive to prove these are its members; SIGKILL not sent", len(members), g.PGID)
		return out, nil
	case err != nil:
		return fail(err)
	}

	empty, members, err := waitEmpty(context.Background(), h, killSettle)
	if err != nil {
		return fail(err)
	}
	if empty {
		out.Status = GroupStatusReaped
		out.Reason = fmt.Sprintf("group %d emptied after SIGKILL", g.PGID)
		return out, nil
	}
	out.Status = GroupStatusSurvivors
	out.Survivors = members
	out.Reason = fmt.Sprintf("%d processes in group %d are still alive %s after SIGKILL (stuck in the kernel?)", len(members), g.PGID, killSettle)
	return out, nil
}

// testHookBeforeKill, when set by a test, runs after the grace and before
// SIGKILL, so a test can make the leader's exit certain at that point.
var testHookBeforeKill func()

// leaderLoss describes a leader that can no longer be proven.
type leaderLoss struct {
	reused    bool   // a different process holds the pid
	startTime uint64 // that process's start time, when reused
}

// leaderLost completes the outcome of a call whose leader could not be
// proven: nothing is signalled.
func leaderLost(out GroupOutcome, g Group, loss *leaderLoss) (GroupOutcome, error) {
	if loss.reused {
		out.Status = GroupStatusIdentityMismatch
		out.Reason = fmt.Sprintf("pid %d now belongs to another process (start time %d, recorded %d): the leader exited and its pid was reused; nothing signalled", g.Leader.PID, loss.startTime, g.Leader.StartTime)
		return out, nil
	}
	members, err := liveMembers(g.PGID)
	if err != nil {
		out.Status, out.Reason = GroupStatusError, err.Error()
		return out, fmt.Errorf("kill: signalling process group %d: %w", g.PGID, err)
	}
	if len(members) == 0 {
		out.Status = GroupStatusAlreadyGone
		out.Reason = fmt.Sprintf("leader pid %d has exited and group %d has no live member; nothing to signal", g.Leader.PID, g.PGID)
		return out, nil
	}
	out.Status = GroupStatusLeaderGone
	out.Survivors = members
	out.Reason = fmt.Sprintf("leader pid %d has exited and %d processes remain in group %d; with the leader gone nothing proves they belong to the recorded group (a group id is reused once its group empties), so nothing was signalled", g.Leader.PID, len(members), g.PGID)
	return out, nil
}

// waitEmpty polls until the group has no live member, ctx ends, or limit
// passes. It returns the members seen last.
func waitEmpty(ctx context.Context, h groupHandle, limit time.Duration) (bool, []int, error) {
	deadline := time.NewTimer(limit)
	defer deadline.Stop()
	tick := time.NewTicker(pollEvery)
	defer tick.Stop()
	for {
		empty, members, err := h.members()
		if err != nil || empty {
			return empty, members, err
		}
		select {
		case <-tick.C:
		case <-deadline.C:
			return false, members, nil
		case <-ctx.Done():
			return false, members, nil
		}
	}
}

var (
	// errGroupGone: the group has no member left to receive a signal.
	errGroupGone = errors.New("process group has no member left")
	// errUnproven: the group can no longer be proven to be the recorded one.
	errUnproven = errors.New("process group can no longer be proven to be the recorded one")
	// errPidfdUnsupported: the kernel cannot signal a group through a pidfd.
	errPidfdUnsupported = errors.New("pidfd group signalling unsupported")
)

// groupHandle is a proven way to signal one recorded process group.
type groupHandle interface {
	method() string
	// send delivers sig to the group and records it in out. It returns
	// errGroupGone when no member is left, errUnproven when the group can
	// no longer be proven to be the recorded one.
	send(out *GroupOutcome, sig unix.Signal) error
	// members reports whether the recorded group is empty, and its live
	// members otherwise.
	members() (bool, []int, error)
	close()
}

// liveMembers lists the group's live members for an outcome: never nil, so
// an empty list marshals as [] rather than null.
func liveMembers(pgid int) ([]int, error) {
	members, err := procid.GroupMembers(pgid)
	if members == nil {
		members = []int{}
	}
	return members, err
}

func signalName(sig unix.Signal) string {
	switch sig {
	case unix.SIGTERM:
		return "SIGTERM"
	case unix.SIGKILL:
		return "SIGKILL"
	}
	return fmt.Sprintf("signal %d", int(sig))
}

// openGroup proves g's leader is the recorded process and returns a handle
// for signalling its group, or a leaderLoss saying why it cannot be proven.
func openGroup(g Group, how addressing) (groupHandle, *leaderLoss, error) {
	if how == addressByPidfd {
		h, loss, err := openPidfdGroup(g)
		if !errors.Is(err, errPidfdUnsupported) {
			return h, loss, err
		}
	}
	return openPGIDGroup(g)
}

// checkLeader reads the leader's stat: a nil loss and nil error mean the pid
// is held by the recorded process (alive or a zombie).
func checkLeader(g Group) (*leaderLoss, error) {
	st, err := procid.ReadStat(g.Leader.PID)
	switch {
	case errors.Is(err, procid.ErrGone):
		return &leaderLoss{}, nil
	case err != nil:
		return nil, err
	case st.StartTime != g.Leader.StartTime:
		return &leaderLoss{reused: true, startTime: st.StartTime}, nil
	}
	return nil, nil
}

// pgidGroup addresses the group by number, kill(-pgid, sig). A number can be
// reused once its group empties, so before every signal the group is
// re-proven by a witness: the leader holding its pid, or a process seen in
// the group while the leader was proven, still alive (or a zombie) with the
// same start time and still in the group. A living member keeps the group
// from emptying, so the number still names the recorded group.
//
// This is how every group is signalled on macOS and FreeBSD (no pidfd), and
// on Linux before 6.9. It leaves one window, which the pidfd path does not:
// between the proof and the kill(2) (microseconds: one read of the process
// table), every witness could exit, the group empty, the pid counter wrap
// around, and an unrelated process become leader of a new group with the
// same number, which the signal would then reach. Each step needs the one
// before it to happen inside that window, and the pid counter to pass
// through its whole range (at least pid_max, 99,998 on macOS) there as well;
// nothing short of a kernel-held reference (a pidfd) closes it entirely.
type pgidGroup struct {
	g         Group
	witnesses []Identity // members seen while the leader was proven
}

func openPGIDGroup(g Group) (groupHandle, *leaderLoss, error) {
	if loss, err := checkLeader(g); err != nil || loss != nil {
		return nil, loss, err
	}
	pids, err := procid.GroupMembers(g.PGID)
	if err != nil {
		return nil, nil, err
	}
	h := &pgidGroup{g: g}
	for _, pid := range pids {
		if st, err := procid.ReadStat(pid); err == nil && st.PGID == g.PGID {
			h.witnesses = append(h.witnesses, Identity{PID: pid, StartTime: st.StartTime})
		}
	}
	// The members were listed between two proofs of the leader, so they
	// were in the recorded group.
	if loss, err := checkLeader(g); err != nil || loss != nil {
		return nil, loss, err
	}
	return h, nil, nil
}

func (p *pgidGroup) method() string { return "pgid" }

func (p *pgidGroup) proven() bool {
	if loss, err := checkLeader(p.g); err == nil && loss == nil {
		return true
	}
	for _, w := range p.witnesses {
		if st, err := procid.ReadStat(w.PID); err == nil && st.StartTime == w.StartTime && st.PGID == p.g.PGID {
			return true
		}
	}
	return false
}

func (p *pgidGroup) send(out *GroupOutcome, sig unix.Signal) error {
	if !p.proven() {
		return errUnproven
	}
	members, _ := liveMembers(p.g.PGID)
	switch err := unix.Kill(-p.g.PGID, sig); {
	case errors.Is(err, unix.ESRCH):
		return errGroupGone
	case err != nil:
		return fmt.Errorf("kill(-%d, %s): %w", p.g.PGID, signalName(sig), err)
	}
	out.Sent = append(out.Sent, SignalSent{Signal: signalName(sig), Members: members})
	return nil
}

func (p *pgidGroup) members() (bool, []int, error) {
	members, err := liveMembers(p.g.PGID)
	return err == nil && len(members) == 0, members, err
}

func (p *pgidGroup) close() {}
