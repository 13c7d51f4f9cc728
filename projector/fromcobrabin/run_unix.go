//go:build unix

package fromcobrabin

import (
	"os/exec"
	"syscall"

	"github.com/verbsurface/verbsurface/internal/tied"
)

// setProcessGroup starts the program in a process group of its own, killed
// with this process where the platform allows (package internal/tied: a
// server killed outright takes its help and completion calls with it)
// and, when the call is stopped, kills the group: a pager or helper the
// program started for its help goes with it.
func setProcessGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = tied.Attr()
	cmd.Cancel = func() error {
		if cmd.Process == nil {
			return nil
		}
		return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	}
}

// startTied starts cmd so that its parent-death signal is tied to this
// process, not to the thread that forks it.
func startTied(cmd *exec.Cmd) error { return tied.Start(cmd) }
