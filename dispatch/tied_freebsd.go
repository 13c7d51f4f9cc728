package dispatch

import (
	"os/exec"
	"syscall"
)

// tiedAttr is the process attributes of every command: a new process
// group, and SIGKILL when this process dies (Pdeathsig: FreeBSD's
// procctl(PROC_PDEATHSIG_CTL), tied to the parent process, not a thread),
// so a command never outlives the server that runs it.
func tiedAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
}

func startTied(cmd *exec.Cmd) error { return cmd.Start() }
