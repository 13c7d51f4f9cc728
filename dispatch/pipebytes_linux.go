package dispatch

import "golang.org/x/sys/unix"

// queuedBytes returns how many bytes wait unread in the pipe fd, or -1 if
// the kernel will not say. On Linux FIONREAD is spelled TIOCINQ (the same
// request number, and the one x/sys declares for every Linux architecture).
func queuedBytes(fd uintptr) int {
	n, err := unix.IoctlGetInt(int(fd), unix.TIOCINQ)
	if err != nil {
		return -1
	}
	return n
}
