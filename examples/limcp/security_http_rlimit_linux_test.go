package main

import (
	"testing"

	"golang.org/x/sys/unix"
)

// lowerDescriptorLimit sets the descriptor limit (soft and hard) of the
// process pid to n, as an operator's ulimit -n would.
func lowerDescriptorLimit(t testing.TB, pid, n int) {
	t.Helper()
	lim := unix.Rlimit{Cur: uint64(n), Max: uint64(n)}
	if err := unix.Prlimit(pid, unix.RLIMIT_NOFILE, &lim, nil); err != nil {
		t.Skipf("cannot lower the server's descriptor limit: %v", err)
	}
}
