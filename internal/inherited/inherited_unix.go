//go:build unix

package inherited

import "golang.org/x/sys/unix"

// markFD sets close-on-exec on fd if it is open and lacks it.
func markFD(fd int) {
	flags, err := unix.FcntlInt(uintptr(fd), unix.F_GETFD, 0)
	if err != nil || flags&unix.FD_CLOEXEC != 0 {
		return
	}
	_, _ = unix.FcntlInt(uintptr(fd), unix.F_SETFD, flags|unix.FD_CLOEXEC)
}
