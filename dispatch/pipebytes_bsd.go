//go:build darwin || freebsd

package dispatch

import "golang.org/x/sys/unix"

// fionread is FIONREAD, _IOR('f', 127, int), from sys/filio.h: the same
// number on macOS and FreeBSD. golang.org/x/sys/unix does not declare it
// for either.
const fionread = 0x4004667f

// queuedBytes returns how many bytes wait unread in the pipe fd, or -1 if
// the kernel will not say.
func queuedBytes(fd uintptr) int {
	n, err := unix.IoctlGetInt(int(fd), fionread)
	if err != nil {
		return -1
	}
	return n
}
