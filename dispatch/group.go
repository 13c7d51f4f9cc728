//go:build unix

package dispatch

import (
	"syscall"
	"time"

	"github.com/verbsurface/verbsurface/internal/procid"
)

// killWait bounds how long the runner waits for a group to vanish after
// SIGKILL. SIGKILL cannot be caught, so only a process stuck in the kernel
// (uninterruptible sleep) or one the runner may not signal outlasts it; such
// pids are reported in Result.Survivors instead of blocking forever.
const killWait = 5 * time.Second

// group is the process group of one command; its id is the leader's pid
// (the command is started with Setpgid).
type group struct {
	pgid   int
	exited <-chan struct{} // closed when the leader has exited (unreaped)
}

func (g group) signal(sig syscall.Signal) { _ = syscall.Kill(-g.pgid, sig) }

// stopLeader terminates the group while its leader is not yet reaped (so
// the pgid cannot have been reused): SIGTERM to the group, then SIGKILL to
// the group if the leader has not exited by the grace deadline. It returns
// once the leader has exited.
func (g group) stopLeader(deadline time.Time) {
	g.signal(syscall.SIGTERM)
	t := time.NewTimer(time.Until(deadline))
	defer t.Stop()
	select {
	case <-g.exited:
		return
	case <-t.C:
	}
	g.signal(syscall.SIGKILL)
	<-g.exited
}

// hasMembers reports whether a live (non-zombie) process is still in the
// group. Zombies do not count: they hold nothing, and one whose parent died
// may never be reaped (a container's init often does not reap), so waiting
// for it would cost killWait on every such command. procid.GroupMembers
// answers the common case, an empty group, with one system call. If the
// process table cannot be read the answer is yes: assuming a member is left
// costs a signal to a group that is still ours, assuming none could leave
// one running.
func (g group) hasMembers() bool {
	members, err := procid.GroupMembers(g.pgid)
	return err != nil || len(members) > 0
}

// waitGone polls until the group has no live member or the deadline passes.
func (g group) waitGone(deadline time.Time) bool {
	pause := 500 * time.Microsecond
	for {
		if !g.hasMembers() {
			return true
		}
		if !time.Now().Before(deadline) {
			return false
		}
		time.Sleep(min(pause, time.Until(deadline)))
		pause = min(2*pause, 20*time.Millisecond)
	}
}

// sweep runs after the leader has been reaped and makes sure no member of
// the group is left: a short-lived command's descendants die with it (detached
// work belongs in its own session and is not touched). If members remain
// they get SIGTERM (unless termSent: the runner already sent it, and the
// grace runs from then), then SIGKILL at the deadline. It reports whether
// any member had to be stopped, and the pids still alive after SIGKILL.
//
// Once the leader is reaped its pid could in principle be reused, but only
// after every member (zombies included) is gone; the group is signalled only
// after a member was just seen, so the window for hitting a stranger is the
// time between that check and the kill(2), with pid wrap-around in between.
func (g group) sweep(termSent bool, deadline time.Time, grace time.Duration) (stopped bool, survivors []int) {
	if !g.hasMembers() {
		return false, nil
	}
	if !termSent {
		g.signal(syscall.SIGTERM)
		deadline = time.Now().Add(grace)
	}
	if g.waitGone(deadline) {
		return true, nil
	}
	g.signal(syscall.SIGKILL)
	if g.waitGone(time.Now().Add(killWait)) {
		return true, nil
	}
	survivors, _ = procid.GroupMembers(g.pgid)
	return true, survivors
}
