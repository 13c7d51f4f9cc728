//go:build unix && !linux

package dispatch

import (
	"runtime"
	"testing"
)

// becomeSubreaper skips: only Linux lets a process adopt its orphaned
// descendants without privileges, which is what the test needs to keep one
// unreaped.
func becomeSubreaper(t *testing.T) {
	t.Helper()
	t.Skipf("no child subreaper on %s", runtime.GOOS)
}
