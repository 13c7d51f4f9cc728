package kill

import (
	"errors"
	"os"
	"testing"

	"golang.org/x/sys/unix"
)

// pidfdGroupSupported reports whether this kernel signals groups through a
// pidfd (PIDFD_SIGNAL_PROCESS_GROUP, Linux 6.9).
func pidfdGroupSupported(t *testing.T) bool {
	fd, err := unix.PidfdOpen(os.Getpid(), 0)
	if err != nil {
		return false
	}
	defer unix.Close(fd)
	// This process leads no group, so a kernel that knows the flag finds
	// no group to probe (ESRCH); one that does not rejects it (EINVAL).
	err = unix.PidfdSendSignal(fd, 0, nil, pidfdSignalProcessGroup)
	return err == nil || errors.Is(err, unix.ESRCH)
}

// becomeSubreaper makes this process the reaper of the trees' orphans
// rather than PID 1 (which, in containers, may never reap them), so
// cleanup can reap them by pid.
func becomeSubreaper() error {
	return unix.Prctl(unix.PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)
}
