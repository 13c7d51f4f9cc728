package procid

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strconv"
	"strings"
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
		if errors.Is(err, fs.ErrNotExist) || errors.Is(err, errESRCH) {
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
	st.StartTime, _ = strconv.ParseUint(f[19], 10, 64)
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
// exited (zombies are left out: they hold no resources a signal could free).
func GroupMembers(pgid int) ([]int, error) {
	ents, err := os.ReadDir("/proc")
	if err != nil {
		return nil, fmt.Errorf("procid: listing /proc: %w", err)
	}
	var pids []int
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		st, err := ReadStat(pid)
		if err != nil {
			continue // exited while we listed
		}
		if st.PGID == pgid && st.State != 'Z' && st.State != 'X' {
			pids = append(pids, pid)
		}
	}
	return pids, nil
}
