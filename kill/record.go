//go:build unix

package kill

import (
	"errors"
	"fmt"

	"github.com/verbsurface/verbsurface/internal/procid"
)

// Identity names one process for its whole life: its pid and its start time
// (clock ticks since boot on Linux, microseconds since the epoch on macOS
// and FreeBSD; compared for equality only). A pid alone is not an identity,
// because the kernel reuses pids.
//
// Identity is an alias so that callers outside this module can build one.
type Identity = procid.Identity

// Kind is the kind of a durable entity the CLI's lifecycle store knows.
type Kind string

// Entity kinds. Play, session and invocation are killed by delegating to the
// CLI (a play reaps its sessions, a session its invocations). Show is a
// level above play; a show-level kill is not offered (see [Decide]).
const (
	KindPlay       Kind = "play"
	KindSession    Kind = "session"
	KindInvocation Kind = "invocation"
	KindShow       Kind = "show"
)

// delegable reports whether the CLI's kill handles entities of kind k.
func (k Kind) delegable() bool {
	return k == KindPlay || k == KindSession || k == KindInvocation
}

// Entity is a durable entity identity: what the CLI's own kill needs.
type Entity struct {
	Kind Kind   `json:"kind"`
	ID   string `json:"id"`
}

// Group is a process group the server itself created, with the identity its
// leader had when the server started it. PGID must equal Leader.PID: the
// group was created by its leader (setpgid(0, 0)), so its id is the leader's
// pid.
type Group struct {
	PGID   int      `json:"pgid"`
	Leader Identity `json:"leader"`
}

// validate reports what makes g unusable as a signal target, or nil.
func (g Group) validate() error {
	switch {
	case g.PGID <= 1:
		return fmt.Errorf("process group %d is not a valid group to signal", g.PGID)
	case g.Leader.PID != g.PGID:
		return fmt.Errorf("process group %d: recorded leader pid %d is not the group id (a group's id is its creator's pid)", g.PGID, g.Leader.PID)
	case g.Leader.StartTime == 0:
		return fmt.Errorf("process group %d: leader start time not recorded, so a reused pid could not be told apart", g.PGID)
	}
	return nil
}

// LeaderGroup records the process group led by pid, as it is now: call it
// right after starting a process with its own group (for os/exec,
// SysProcAttr.Setpgid), while the process is certainly the one you started.
// It fails if pid does not exist or does not lead its own group.
func LeaderGroup(pid int) (Group, error) {
	st, err := procid.ReadStat(pid)
	if err != nil {
		return Group{}, fmt.Errorf("kill: recording the group of pid %d: %w", pid, err)
	}
	if st.PGID != pid {
		return Group{}, fmt.Errorf("kill: recording the group of pid %d: %w (its group is %d)", pid, errNotLeader, st.PGID)
	}
	return Group{PGID: pid, Leader: Identity{PID: pid, StartTime: st.StartTime}}, nil
}

var errNotLeader = errors.New("process is not a process group leader")

// Record is what the server knows about one submitted run when a kill is
// asked for: the durable entity identity the CLI reported (if any), and the
// process group the server itself created (if any).
//
// Every spawn path should persist the entity identity: it is what makes a
// lifecycle-safe kill possible. Group is for runs that have no entity
// identity, such as a command the server started directly.
type Record struct {
	// Kind and ID name the durable entity, as the CLI reported it. Both
	// empty means the run has no entity identity.
	Kind Kind   `json:"kind,omitempty"`
	ID   string `json:"id,omitempty"`

	// Group is the process group of the run, if one was recorded.
	Group *Group `json:"group,omitempty"`
	// ServerCreatedGroup is true only when the server itself started the
	// group's leader in a new group and recorded its identity at that
	// moment (see [LeaderGroup]). A group learned any other way, for
	// example reported by the CLI, is never signalled: its processes belong
	// to the CLI's lifecycle, and only the CLI's kill may stop them.
	ServerCreatedGroup bool `json:"server_created_group,omitempty"`
}
