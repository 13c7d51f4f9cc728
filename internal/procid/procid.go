package procid

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strconv"
	"strings"
	"syscall"
)

// Identity names one process for its whole life.
type Identity struct {
	PID       int    `json:"pid"`
	StartTime uint64 `json:"start_time"` // clock ticks since boot, /proc/PID/stat field 22
}

// Stat is the part of /proc/PID/stat this module uses.
type Stat struct {
	PID       int
	State     byte // R, S, D, Z, T, ...
	PPID      int
	PGID      int
	SID       int
	StartTime uint64
}

// ErrGone reports that no process with the pid exists.
var ErrGone = errors.New("process does not exist")

// ReadStat reads /proc/PID/stat. It returns an error wrapping [ErrGone] when
// the process does not exist.
func ReadStat(pid int) (Stat, error) {
	if pid <= 0 {
		return Stat{}, fmt.Errorf("procid: invalid pid %d", pid)
	}
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		// ESRCH: the process exited between open and read.
		if errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ESRCH) {
			return Stat{}, fmt.Errorf("procid: pid %d: %w", pid, ErrGone)
		}
		return Stat{}, fmt.Errorf("procid: pid %d: %w", pid, err)
	}
	return parseStat(pid, b)
}

// parseStat parses the stat line. The command name (field 2) is in
// parentheses and may itself contain spaces and parentheses, so fields are
// counted from the last ')'.
func parseStat(pid int, b []byte) (Stat, error) {
	end := bytes.LastIndexByte(b, ')')
	if end < 0 || end+2 > len(b) {
		return Stat{}, fmt.Errorf("procid: pid %d: malformed stat line", pid)
	}
	f := strings.Fields(string(b[end+2:]))
	// f[0] is field 3 (state); field N is f[N-3].
	if len(f) < 20 {
		return Stat{}, fmt.Errorf("procid: pid %d: stat line has %d fields after the name, want at least 20", pid, len(f))
	}
	st := Stat{PID: pid, State: f[0][0]}
	var err error
	num := func(s string) int {
		n, e := strconv.Atoi(s)
		if e != nil && err == nil {
			err = e
		}
		return n
	}
	st.PPID = num(f[1])
	st.PGID = num(f[2])
	st.SID = num(f[3])
	// A start time that does not parse is an error, never zero: Check would
	// read zero as a different process ("gone"), and a caller may reap a
	// run on that.
	start, serr := strconv.ParseUint(f[19], 10, 64)
	if err == nil {
		err = serr
	}
	st.StartTime = start
	if err != nil {
		return Stat{}, fmt.Errorf("procid: pid %d: malformed stat line: %v", pid, err)
	}
	return st, nil
}

// Of returns the identity of the running process pid.
func Of(pid int) (Identity, error) {
	st, err := ReadStat(pid)
	if err != nil {
		return Identity{}, err
	}
	return Identity{PID: pid, StartTime: st.StartTime}, nil
}

// Evidence is what /proc says about a recorded identity.
type Evidence string

const (
	// Alive: a process with this pid and this start time exists and is not a zombie.
	Alive Evidence = "alive"
	// Gone: conclusively not running: no such pid, a different process
	// holds the pid (start time differs), or it is a zombie (it has exited
	// and only awaits reaping).
	Gone Evidence = "gone"
	// Unknown: /proc could not be read for a reason other than absence,
	// or the identity is incomplete. Never treat Unknown as Gone.
	Unknown Evidence = "unknown"
)

// Check reports whether id still names a live process.
func Check(id Identity) Evidence {
	if id.PID <= 0 || id.StartTime == 0 {
		return Unknown
	}
	st, err := ReadStat(id.PID)
	switch {
	case errors.Is(err, ErrGone):
		return Gone
	case err != nil:
		return Unknown
	case st.StartTime != id.StartTime:
		return Gone
	case st.State == 'Z' || st.State == 'X':
		return Gone
	}
	return Alive
}

// GroupMembers lists the pids whose process group is pgid and that have not
// exited (zombies are left out: they hold no resources a signal could free,
// and one whose parent is gone may never be reaped, since a container's
// init often does not reap). An empty group gives no pids and no error.
//
// The common question "has the group emptied?" costs one system call:
// kill(-pgid, 0) sends nothing, and its ESRCH means no process, not even a
// zombie, is in the group. Only otherwise is every /proc entry read. To ask
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
// members, from one pass over /proc. A caller checking many recorded groups
// at once asks this once rather than [GroupMembers] per group.
func GroupSizes() (map[int]int, error) {
	sizes := map[int]int{}
	err := eachLive(func(st Stat) { sizes[st.PGID]++ })
	if err != nil {
		return nil, err
	}
	return sizes, nil
}

// eachLive calls fn with the stat of every process in /proc that has not
// exited. A process that exits while /proc is being listed is skipped.
func eachLive(fn func(Stat)) error {
	ents, err := os.ReadDir("/proc")
	if err != nil {
		return fmt.Errorf("procid: listing /proc: %w", err)
	}
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue // not a process: /proc/self, /proc/meminfo, ...
		}
		st, err := ReadStat(pid)
		if err != nil || st.State == 'Z' || st.State == 'X' {
			continue
		}
		fn(st)
	}
	return nil
}
