package dispatch

import "golang.org/x/sys/unix"

// platformExitWaiter on Linux is waitid(P_PID, pid, WEXITED|WNOWAIT): the
// kernel wakes the caller when the child exits and leaves it unreaped.
var platformExitWaiter exitWaiter = waitidExit

func waitidExit(pid int) error {
	var info unix.Siginfo // not read: only the wake-up matters
	for {
		err := unix.Waitid(unix.P_PID, pid, &info, unix.WEXITED|unix.WNOWAIT, nil)
		if err != unix.EINTR {
			return err
		}
	}
}
