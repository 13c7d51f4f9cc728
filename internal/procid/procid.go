//go:build unix

package procid

import (
	"errors"
	"fmt"
	"syscall"
)

// Identity names one process for its whole life.
type Identity struct {
	PID int `json:"pid"`
	// StartTime is when the process started, in the platform's own unit:
	// clock ticks since boot on Linux (/proc/PID/stat field 22),
	// microseconds since the epoch on macOS and FreeBSD (kinfo_proc's start
	// timeval). It is compared for equality only, and only on the machine
	// that recorded it; zero means "not recorded".
	StartTime uint64 `json:"start_time"`
}

// Stat is what this module reads about one process.
type Stat struct {
	PID int
	// State is the scheduler state as a letter in /proc's alphabet: R, S, D,
	// T, Z (exited, not yet reaped), X, I, ... The BSD process states are
	// mapped onto it (see fromKinfo); only 'Z' and 'X' carry meaning here.
	State     byte
	PPID      int
	PGID      int
	SID       int    // from ReadStat; 0 in Live's listing on macOS (kinfo_proc has none)
	StartTime uint64 // see Identity.StartTime
}

// ErrGone reports that no process with the pid exists.
var ErrGone = errors.New("process does not exist")

// processTable is the platform seam of this package: how one process's
// Stat is read and how every process is listed. procfs (Linux) and
// sysctlTable (macOS, FreeBSD) implement it, one file each; everything
// above it (the identity rule, group membership) is shared.
type processTable interface {
	// stat reads one process; an error wrapping ErrGone when pid does not
	// exist.
	stat(pid int) (Stat, error)
	// each calls fn for every process, zombies included; a process that
	// exits while the table is being listed may be skipped.
	each(fn func(Stat)) error
}

// ReadStat reads the process pid. It returns an error wrapping [ErrGone]
// when the process does not exist.
func ReadStat(pid int) (Stat, error) {
	if pid <= 0 {
		return Stat{}, fmt.Errorf("procid: invalid pid %d", pid)
	}
	return system.stat(pid)
}

// Of returns the identity of the running process pid.
func Of(pid int) (Identity, error) {
	st, err := ReadStat(pid)
	if err != nil {
		return Identity{}, err
	}
	return Identity{PID: pid, StartTime: st.StartTime}, nil
}

// Evidence is what the process table says about a recorded identity.
type Evidence string

const (
	// Alive: a process with this pid and this start time exists and is not a zombie.
	Alive Evidence = "alive"
	// Gone: conclusively not running: no such pid, a different process
	// holds the pid (start time differs), or it is a zombie (it has exited
	// and only awaits reaping).
	Gone Evidence = "gone"
	// Unknown: the process table could not be read for a reason other than
	// absence, or the identity is incomplete. Never treat Unknown as Gone.
	Unknown Evidence = "unknown"
)

// Check reports whether id still names a live process.
func Check(id Identity) Evidence {
	if id.PID <= 0 || id.StartTime == 0 {
		return Unknown
	}
	st, err := ReadStat(id.PID)
	return judge(id, st, err)
}

// judge is the identity rule, apart from how the process was read: only
// the same pid with the same start time, not yet exited, is the recorded
// process; absence is proof of gone, any other read failure proves nothing.
func judge(id Identity, st Stat, err error) Evidence {
	switch {
	case errors.Is(err, ErrGone):
		return Gone
	case err != nil:
		return Unknown
	case st.StartTime != id.StartTime:
		return Gone
	case exited(st):
		return Gone
	}
	return Alive
}

// exited reports a process that has ended and only awaits reaping.
func exited(st Stat) bool { return st.State == 'Z' || st.State == 'X' }

// GroupMembers lists the pids whose process group is pgid and that have not
// exited (zombies are left out: they hold no resources a signal could free,
// and one whose parent is gone may never be reaped, since a container's
// init often does not reap). An empty group gives no pids and no error.
//
// The common question "has the group emptied?" costs one system call:
// kill(-pgid, 0) sends nothing, and its ESRCH means no process, not even a
// zombie, is in the group. Only otherwise is the process table read. To ask
// about many groups at once, use [GroupSizes].
func GroupMembers(pgid int) ([]int, error) {
	if pgid <= 0 {
		return nil, fmt.Errorf("procid: invalid process group %d", pgid)
	}
	// pgid 1 is skipped: kill(-1, 0) means every process, not group 1.
	if pgid > 1 && errors.Is(syscall.Kill(-pgid, 0), syscall.ESRCH) {
		return nil, nil
	}
	var pids []int
	err := eachLive(func(st Stat) {
		if st.PGID == pgid {
			pids = append(pids, st.PID)
		}
	})
	return pids, err
}

// GroupSizes maps every process group to its number of live (non-zombie)
// members, from one pass over the process table. A caller checking many
// recorded groups at once asks this once rather than [GroupMembers] per
// group.
func GroupSizes() (map[int]int, error) {
	sizes := map[int]int{}
	err := eachLive(func(st Stat) { sizes[st.PGID]++ })
	if err != nil {
		return nil, err
	}
	return sizes, nil
}

// Live lists every process that has not exited, from one pass over the
// process table (for tests that must find every process they started).
func Live() ([]Stat, error) {
	var out []Stat
	err := eachLive(func(st Stat) { out = append(out, st) })
	return out, err
}

// eachLive calls fn with the stat of every process that has not exited.
func eachLive(fn func(Stat)) error {
	return system.each(func(st Stat) {
		if !exited(st) {
			fn(st)
		}
	})
}
