//go:build unix

package main

import (
	"os"
	"os/exec"
	"syscall"
	"time"

	"github.com/verbsurface/verbsurface/internal/tied"
)

// tiedGroup makes cmd, a process the server starts for itself (a tree
// command), the leader of a process group of its own that dies with the
// server (package internal/tied) and is killed whole when its context
// ends. Start it with tied.Start.
func tiedGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = tied.Attr()
	cmd.Cancel = func() error {
		if err := syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL); err != syscall.ESRCH {
			return err
		}
		return os.ErrProcessDone
	}
	cmd.WaitDelay = time.Second
}
