package kill

import (
	"errors"
	"fmt"

	"golang.org/x/sys/unix"
)

// pidfdSignalProcessGroup is PIDFD_SIGNAL_PROCESS_GROUP (linux/pidfd.h,
// Linux 6.9): signal the process group whose id is the pidfd's pid.
const pidfdSignalProcessGroup = 1 << 2

// pidfdGroup addresses the group through a pidfd of its leader. The kernel
// signals the group whose id is the pidfd's struct pid; that struct outlives
// the leader while the group has members, and a later process that receives
// the same number gets a new struct, so the pidfd can only ever reach the
// recorded group.
type pidfdGroup struct {
	fd   int
	pgid int
}

func openPidfdGroup(g Group) (groupHandle, *leaderLoss, error) {
	fd, err := unix.PidfdOpen(g.Leader.PID, 0)
	switch {
	case errors.Is(err, unix.ENOSYS):
		return nil, nil, errPidfdUnsupported
	case errors.Is(err, unix.ESRCH), errors.Is(err, unix.EINVAL):
		// No process holds the pid (EINVAL: the number is still in use,
		// as a group id or a thread id, but not by a process). /proc says
		// whether it was reused.
		loss, cerr := checkLeader(g)
		if cerr == nil && loss == nil {
			return nil, nil, fmt.Errorf("pidfd_open(%d): %v, yet /proc shows the recorded leader", g.Leader.PID, err)
		}
		return nil, loss, cerr
	case err != nil:
		return nil, nil, fmt.Errorf("pidfd_open(%d): %w", g.Leader.PID, err)
	}
	// The pidfd refers to whichever process held the pid when it was
	// opened. If /proc now shows the recorded start time, that process is
	// the leader: the leader started before the open and still holds the
	// pid, and a pid is held by one process at a time.
	loss, err := checkLeader(g)
	if err != nil || loss != nil {
		unix.Close(fd)
		return nil, loss, err
	}
	// Signal 0 sends nothing: it probes whether the kernel knows the flag.
	switch err := unix.PidfdSendSignal(fd, 0, nil, pidfdSignalProcessGroup); {
	case errors.Is(err, unix.EINVAL), errors.Is(err, unix.ENOSYS):
		unix.Close(fd)
		return nil, nil, errPidfdUnsupported
	}
	return &pidfdGroup{fd: fd, pgid: g.PGID}, nil, nil
}

func (p *pidfdGroup) method() string { return "pidfd" }

func (p *pidfdGroup) send(out *GroupOutcome, sig unix.Signal) error {
	members, _ := liveMembers(p.pgid)
	err := unix.PidfdSendSignal(p.fd, sig, nil, pidfdSignalProcessGroup)
	switch {
	case errors.Is(err, unix.ESRCH):
		return errGroupGone
	case err != nil:
		return fmt.Errorf("%s through the leader's pidfd: %w", signalName(sig), err)
	}
	out.Sent = append(out.Sent, SignalSent{Signal: signalName(sig), Members: members})
	return nil
}

func (p *pidfdGroup) members() (bool, []int, error) {
	members, err := liveMembers(p.pgid)
	if err != nil || len(members) == 0 {
		return err == nil, members, err
	}
	// Members under this number may belong to a later group that reused
	// it; the pidfd knows whether the recorded group still has anyone.
	if errors.Is(unix.PidfdSendSignal(p.fd, 0, nil, pidfdSignalProcessGroup), unix.ESRCH) {
		return true, []int{}, nil
	}
	return false, members, nil
}

func (p *pidfdGroup) close() { unix.Close(p.fd) }
