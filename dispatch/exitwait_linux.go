package dispatch

import (
	"errors"
	"os"

	"golang.org/x/sys/unix"
)

// platformExitWaiter on Linux is a pidfd in the runtime's network poller:
// the goroutine waiting for a command's exit parks in the poller, as one
// waiting on a socket does, instead of holding an OS thread in a blocking
// system call for the command's whole run. (A thread parked in waitid
// made the runtime hand the goroutine's processor to another thread and
// back on every command, and sysmon and the scheduler spinning around it
// were about half of a stdio server's CPU per op.) Where the kernel has no
// pidfd (before 5.3) or refuses one (a seccomp filter), or the poller
// will not take it, waitid blocks instead. Either way the child is left
// unreaped.
var platformExitWaiter exitWaiter = pidfdExit

// pidfdExit waits for pid to exit with a pidfd: it becomes readable when
// the process exits, and waitid(P_PIDFD, WEXITED|WNOWAIT|WNOHANG) says so
// without reaping it.
func pidfdExit(pid int) error {
	f, err := openPidfd(pid)
	if err != nil {
		return waitidExit(pid)
	}
	defer f.Close()
	rc, err := f.SyscallConn()
	if err != nil {
		return waitidExit(pid)
	}
	var werr error
	err = rc.Read(func(fd uintptr) bool {
		var info unix.Siginfo
		werr = unix.Waitid(unix.P_PIDFD, int(fd), &info, unix.WEXITED|unix.WNOWAIT|unix.WNOHANG, nil)
		switch {
		case errors.Is(werr, unix.EINTR):
			werr = nil
			return false // the readiness wait below retries
		case werr != nil:
			return true
		}
		// With WNOHANG the kernel writes si_signo 0 when the child has
		// not exited, SIGCHLD when it has.
		return info.Signo != 0
	})
	if err != nil {
		// Not in the poller after all (os.NewFile found the descriptor
		// unpollable): the blocking wait is still exact.
		return waitidExit(pid)
	}
	return werr
}

// openPidfd opens a non-blocking pidfd for pid as an *os.File, which
// os.NewFile registers with the poller because the descriptor is
// non-blocking.
func openPidfd(pid int) (*os.File, error) {
	fd, err := unix.PidfdOpen(pid, unix.PIDFD_NONBLOCK)
	if errors.Is(err, unix.EINVAL) { // PIDFD_NONBLOCK came in 5.10
		if fd, err = unix.PidfdOpen(pid, 0); err == nil {
			if err = unix.SetNonblock(fd, true); err != nil {
				unix.Close(fd)
			}
		}
	}
	if err != nil {
		return nil, err
	}
	// A pidfd is close-on-exec from the start: no command inherits it.
	return os.NewFile(uintptr(fd), "pidfd"), nil
}

// waitidExit is waitid(P_PID, pid, WEXITED|WNOWAIT): the kernel wakes the
// caller when the child exits and leaves it unreaped. It blocks an OS
// thread while it waits; it is the fallback when no pidfd can be had.
func waitidExit(pid int) error {
	var info unix.Siginfo // not read: only the wake-up matters
	for {
		err := unix.Waitid(unix.P_PID, pid, &info, unix.WEXITED|unix.WNOWAIT, nil)
		if err != unix.EINTR {
			return err
		}
	}
}
