package nodump

import (
	"sync/atomic"

	"golang.org/x/sys/unix"
)

var denied atomic.Bool

// Protect refuses debuggers this process: ptrace(PT_DENY_ATTACH). Its
// environment stays readable by its user's other processes (see the
// package documentation).
func Protect() error {
	if err := unix.PtraceDenyAttach(); err != nil {
		return err
	}
	denied.Store(true)
	return nil
}

// Protected reports whether Protect succeeded in this process (macOS has
// no call that reads the flag back).
func Protected() bool { return denied.Load() }
