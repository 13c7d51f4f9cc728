//go:build unix

package helprun

import (
	"os/exec"
	"syscall"
)

// setProcessGroup starts the program in a process group of its own and,
// when the call is stopped, kills the group: a pager or helper the program
// started for its help goes with it.
func setProcessGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error {
		if cmd.Process == nil {
			return nil
		}
		return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	}
}
