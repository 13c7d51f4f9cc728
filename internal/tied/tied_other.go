//go:build unix && !linux && !freebsd

package tied

import (
	"os/exec"
	"syscall"
)

// Attr is the process attributes of every command: a new process
// group. This platform has no parent-death signal: a command whose server
// was killed outright runs on until it ends (a CLI can watch its parent;
// limcp's commands do).
func Attr() *syscall.SysProcAttr { return &syscall.SysProcAttr{Setpgid: true} }

func Start(cmd *exec.Cmd) error { return cmd.Start() }
