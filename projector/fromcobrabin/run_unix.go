//go:build unix

package fromcobrabin

import (
	"os/exec"

	"github.com/verbsurface/verbsurface/internal/tied"
)

// setProcessGroup starts the program in a process group of its own, killed
// with this process where the platform allows (package internal/tied: a
// server killed outright takes its help and completion calls with it)
// and, when the call is stopped, kills the group: a pager or helper the
// program started for its help goes with it.
func setProcessGroup(cmd *exec.Cmd) { tied.Group(cmd) }

// startTied starts cmd so that its parent-death signal is tied to this
// process, not to the thread that forks it.
func startTied(cmd *exec.Cmd) error { return tied.Start(cmd) }
