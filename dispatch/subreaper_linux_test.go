package dispatch

import (
	"testing"

	"golang.org/x/sys/unix"
)

// becomeSubreaper makes this process the reaper of its orphaned
// descendants for the rest of the test (PR_SET_CHILD_SUBREAPER), or skips.
func becomeSubreaper(t *testing.T) {
	t.Helper()
	if err := unix.Prctl(unix.PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0); err != nil {
		t.Skipf("PR_SET_CHILD_SUBREAPER: %v", err)
	}
	t.Cleanup(func() { _ = unix.Prctl(unix.PR_SET_CHILD_SUBREAPER, 0, 0, 0, 0) })
}
