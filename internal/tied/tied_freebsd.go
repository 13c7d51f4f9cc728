package tied

import (
	"os/exec"
	"syscall"
)

// Attr is the process attributes of every command: a new process
// group, and SIGKILL when this process dies (Pdeathsig: FreeBSD's
// procctl(PROC_PDEATHSIG_CTL), tied to the parent process, not a thread),
// so a command never outlives the server that runs it.
func Attr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
}

func Start(cmd *exec.Cmd) error { return cmd.Start() }
