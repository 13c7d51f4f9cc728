//go:build unix && !linux

package inherited

import "golang.org/x/sys/unix"

// maxScan bounds the descriptors tried when the limit is larger (or
// unlimited): a server is not started with descriptors above it.
const maxScan = 1 << 16

// CloseOnExec marks every open descriptor above 2 close-on-exec: one fcntl
// per descriptor number up to the soft RLIMIT_NOFILE (at most 65,536), as
// /dev/fd lists descriptors above 2 only where fdescfs is mounted
// (FreeBSD).
func CloseOnExec() error {
	var lim unix.Rlimit
	n := int64(maxScan)
	// Cur is int64 on FreeBSD, uint64 on macOS (where unlimited reads -1 here).
	if err := unix.Getrlimit(unix.RLIMIT_NOFILE, &lim); err == nil && int64(lim.Cur) >= 0 && int64(lim.Cur) < n {
		n = int64(lim.Cur)
	}
	for fd := 3; fd < int(n); fd++ {
		markFD(fd)
	}
	return nil
}
