//go:build unix

package pywalk

import (
	"os"
	"os/exec"
	"syscall"

	"github.com/verbsurface/verbsurface/internal/tied"
)

// ownProcessGroup starts cmd as the leader of a new process group and makes
// its cancellation (timeout or the caller's context) SIGKILL the whole
// group, so whatever the walked code started goes with it. Where the
// platform has a parent-death signal the walker is also killed when this
// process dies (package internal/tied).
func ownProcessGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = tied.Attr()
	cmd.Cancel = func() error {
		if err := syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL); err != syscall.ESRCH {
			return err
		}
		return os.ErrProcessDone // the group is already gone
	}
}

// startTied starts cmd so that its parent-death signal is tied to this
// process, not to the thread that forks it.
func startTied(cmd *exec.Cmd) error { return tied.Start(cmd) }
