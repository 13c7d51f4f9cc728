//go:build unix

package pywalk

import (
	"os/exec"

	"github.com/verbsurface/verbsurface/internal/tied"
)

// ownProcessGroup starts cmd as the leader of a new process group and makes
// its cancellation (timeout or the caller's context) SIGKILL the whole
// group, so whatever the walked code started goes with it. Where the
// platform has a parent-death signal the walker is also killed when this
// process dies (package internal/tied).
func ownProcessGroup(cmd *exec.Cmd) { tied.Group(cmd) }

// startTied starts cmd so that its parent-death signal is tied to this
// process, not to the thread that forks it.
func startTied(cmd *exec.Cmd) error { return tied.Start(cmd) }
