package nodump

import "golang.org/x/sys/unix"

// Protect makes this process undumpable: prctl(PR_SET_DUMPABLE, 0).
func Protect() error { return unix.Prctl(unix.PR_SET_DUMPABLE, 0, 0, 0, 0) }

// Protected reports whether this process is undumpable.
func Protected() bool {
	v, err := unix.PrctlRetInt(unix.PR_GET_DUMPABLE, 0, 0, 0, 0)
	return err == nil && v == 0
}
