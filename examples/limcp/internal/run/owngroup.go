//go:build unix

package run

import (
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/verbsurface/verbsurface/internal/procid"
)

// stopOwnGroupOthers stops every other live member of the worker's own
// process group: the provider on a timeout, or whatever a provider left
// running behind it. It sends SIGTERM to the group while ignoring SIGTERM
// itself, waits up to grace for the others to go, then SIGKILLs each
// remaining member by pid. exited, when not nil, is the provider's Wait
// result, drained before returning so the provider is reaped.
//
// Why not kill.SignalGroup: that stops a whole group from outside and by
// design refuses the caller's own group; here the worker must survive to
// record the end. Every pid it signals is read from the process table as a member of
// this very group (which exists while the worker, its leader, lives), so no
// stranger can be hit.
func stopOwnGroupOthers(grace time.Duration, exited <-chan error) {
	pgid, me := syscall.Getpgrp(), os.Getpid()
	others := func() []int {
		members, _ := procid.GroupMembers(pgid)
		out := members[:0]
		for _, pid := range members {
			if pid != me {
				out = append(out, pid)
			}
		}
		return out
	}
	if pgid != me {
		// Not a group leader (not started as a worker): the group is not ours.
		if exited != nil {
			<-exited
		}
		return
	}
	if len(others()) > 0 {
		signal.Ignore(syscall.SIGTERM)
		_ = syscall.Kill(-pgid, syscall.SIGTERM)
		deadline := time.Now().Add(grace)
		for len(others()) > 0 && time.Now().Before(deadline) {
			time.Sleep(20 * time.Millisecond)
		}
		for _, pid := range others() {
			_ = syscall.Kill(pid, syscall.SIGKILL)
		}
		signal.Reset(syscall.SIGTERM)
	}
	if exited != nil {
		<-exited
	}
}
