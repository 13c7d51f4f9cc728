//go:build unix && !linux

package kill

import "testing"

// pidfdGroupSupported: pidfds are Linux's; the pidfd subtests skip here
// and the pgid ones run.
func pidfdGroupSupported(*testing.T) bool { return false }

// becomeSubreaper does nothing here: macOS and FreeBSD reparent orphans to
// init (launchd), which reaps them.
func becomeSubreaper() error { return nil }
