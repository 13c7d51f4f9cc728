//go:build unix

package pywalk

import (
	"os"
	"os/exec"
	"syscall"
)

// ownProcessGroup starts cmd as the leader of a new process group and makes
// its cancellation (timeout or the caller's context) SIGKILL the whole
// group, so whatever the walked code started goes with it.
func ownProcessGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error {
		if err := syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL); err != syscall.ESRCH {
			return err
		}
		return os.ErrProcessDone // the group is already gone
	}
}
