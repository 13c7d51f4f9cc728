//go:build unix && !linux && !freebsd

package dispatch

import (
	"os/exec"
	"syscall"
)

// tiedAttr is the process attributes of every command: a new process
// group. This platform has no parent-death signal: a command whose server
// was killed outright runs on until it ends (a CLI can watch its parent;
// limcp's commands do).
func tiedAttr() *syscall.SysProcAttr { return &syscall.SysProcAttr{Setpgid: true} }

func startTied(cmd *exec.Cmd) error { return cmd.Start() }
