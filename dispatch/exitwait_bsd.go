//go:build darwin || freebsd

package dispatch

import (
	"errors"
	"fmt"

	"golang.org/x/sys/unix"
)

// platformExitWaiter on macOS and FreeBSD is a kqueue EVFILT_PROC
// NOTE_EXIT event: the kernel wakes the caller when the child exits and
// leaves it unreaped (they have no waitid WNOWAIT that Go exposes). If
// kqueue itself fails, the portable poll takes over.
var platformExitWaiter exitWaiter = kqueueExit

func kqueueExit(pid int) error {
	kq, err := unix.Kqueue()
	if err != nil {
		return pollExit(pid)
	}
	defer unix.Close(kq)
	var change unix.Kevent_t
	unix.SetKevent(&change, pid, unix.EVFILT_PROC, unix.EV_ADD|unix.EV_ONESHOT)
	change.Fflags = unix.NOTE_EXIT
	events := make([]unix.Kevent_t, 1)
	for {
		n, err := unix.Kevent(kq, []unix.Kevent_t{change}, events, nil)
		switch {
		case errors.Is(err, unix.EINTR):
			continue
		case errors.Is(err, unix.ESRCH):
			// The child exited before the event was registered (macOS
			// refuses to watch a zombie). It is the runner's unreaped
			// child, so its pid still names it: it has exited.
			return nil
		case err != nil:
			return pollExit(pid)
		case n == 1 && events[0].Flags&unix.EV_ERROR != 0:
			if unix.Errno(events[0].Data) == unix.ESRCH {
				return nil
			}
			return fmt.Errorf("kevent NOTE_EXIT for pid %d: %w", pid, unix.Errno(events[0].Data))
		case n == 1:
			return nil
		}
	}
}
