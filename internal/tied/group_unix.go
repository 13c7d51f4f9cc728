//go:build unix

package tied

import (
	"os"
	"os/exec"
	"syscall"
)

// Group gives cmd the attributes of [Attr] and makes its cancellation (its
// context ending) SIGKILL its whole process group, so whatever it started
// in the group goes with it. Start it with [Start].
func Group(cmd *exec.Cmd) {
	cmd.SysProcAttr = Attr()
	cmd.Cancel = func() error {
		if cmd.Process == nil {
			return nil
		}
		if err := syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL); err != syscall.ESRCH {
			return err
		}
		return os.ErrProcessDone // the group is already gone
	}
}
