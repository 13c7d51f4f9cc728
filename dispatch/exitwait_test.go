//go:build unix

package dispatch

import (
	"os"
	"os/exec"
	"testing"
	"time"

	"github.com/verbsurface/verbsurface/internal/procid"
)

// exitWaiters are the ways a runner can wait for its command's leader to
// exit without reaping it: the platform's own (a pidfd in the poller on
// Linux, kqueue NOTE_EXIT on macOS and FreeBSD), the platform's fallbacks
// (platformFallbackWaiters: blocking waitid on Linux), and the portable
// poll of the process table. All run on every Unix that has them, so the
// live group tests wrapped in eachExitWaiter prove each of them here, not
// just the one this kernel would pick.
var exitWaiters = append(append([]namedExitWaiter{{"platform", platformExitWaiter}}, platformFallbackWaiters...), namedExitWaiter{"poll", pollExit})

type namedExitWaiter struct {
	name string
	wait exitWaiter
}

// Each exit waiter returns once the child has exited and leaves it
// unreaped (a zombie still holding its pid), which is what keeps the group
// id from being reused while the runner signals it; and it does not return
// while the child runs.
func TestExitWaitersLeaveTheChildUnreaped(t *testing.T) {
	for _, ew := range exitWaiters {
		t.Run(ew.name, func(t *testing.T) {
			cmd := exec.Command("sleep", "30")
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
			pid := cmd.Process.Pid
			returned := make(chan error, 1)
			go func() { returned <- ew.wait(pid) }()
			select {
			case err := <-returned:
				t.Fatalf("waiter returned %v while the child runs", err)
			case <-time.After(100 * time.Millisecond):
			}
			cmd.Process.Kill()
			select {
			case err := <-returned:
				if err != nil {
					t.Fatalf("waiter: %v", err)
				}
			case <-time.After(5 * time.Second):
				t.Fatal("waiter did not return within 5s of the child's exit")
			}
			st, err := procid.ReadStat(pid)
			if err != nil || st.State != 'Z' {
				t.Fatalf("child after the wait: %+v, %v; want an unreaped zombie", st, err)
			}
			if err := cmd.Wait(); err == nil || cmd.ProcessState == nil {
				t.Fatalf("Wait after the waiter = %v; want the killed child's status (it was not reaped)", err)
			}
		})
	}
}

// queuedBytes is FIONREAD: it counts what waits unread in a pipe.
func TestQueuedBytesCountsUnreadPipeBytes(t *testing.T) {
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	defer w.Close()
	count := func() int {
		rc, err := r.SyscallConn()
		if err != nil {
			t.Fatal(err)
		}
		n := -2
		if err := rc.Control(func(fd uintptr) { n = queuedBytes(fd) }); err != nil {
			t.Fatal(err)
		}
		return n
	}
	if n := count(); n != 0 {
		t.Fatalf("empty pipe: queuedBytes = %d, want 0", n)
	}
	w.Write([]byte("hello"))
	if n := count(); n != 5 {
		t.Fatalf("after 5 bytes: queuedBytes = %d, want 5", n)
	}
	r.Read(make([]byte, 2))
	if n := count(); n != 3 {
		t.Fatalf("after reading 2: queuedBytes = %d, want 3", n)
	}
}
