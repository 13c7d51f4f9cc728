package dispatch

import (
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"
)

var platformFallbackWaiters = []namedExitWaiter{{"waitid", waitidExit}}

// threads is this process's OS thread count. The runtime keeps the
// threads it made, so after a burst it says how many were needed at once.
func threads(t *testing.T) int {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "Threads:"); ok {
			n, err := strconv.Atoi(strings.TrimSpace(v))
			if err != nil {
				t.Fatal(err)
			}
			return n
		}
	}
	t.Fatal("no Threads line in /proc/self/status")
	return 0
}

// TestPidfdWaitParksNoThread: waiting for many commands at once with the
// Linux waiter costs no OS thread per command. 64 children that run until
// their stdin closes are waited for by 64 goroutines; the children end
// only once every waiter has been started and yielded, and the process
// needs no more threads than a handful for all of it. (A waiter blocking
// in waitid holds a thread each: up to 64 more.)
func TestPidfdWaitParksNoThread(t *testing.T) {
	if _, err := openPidfd(os.Getpid()); err != nil {
		t.Skipf("no pidfd here (%v): the waiter falls back to waitid, which blocks a thread", err)
	}
	const n = 64
	before := threads(t)
	var cmds []*exec.Cmd
	var stdins []interface{ Close() error }
	for range n {
		c := exec.Command("cat")
		in, err := c.StdinPipe()
		if err != nil {
			t.Fatal(err)
		}
		if err := c.Start(); err != nil {
			t.Fatal(err)
		}
		cmds, stdins = append(cmds, c), append(stdins, in)
	}
	t.Cleanup(func() {
		for _, c := range cmds {
			c.Process.Kill()
			c.Wait()
		}
	})
	var started, done sync.WaitGroup
	errs := make(chan error, n)
	for _, c := range cmds {
		started.Add(1)
		done.Go(func() {
			started.Done()
			errs <- pidfdExit(c.Process.Pid)
		})
	}
	started.Wait()
	for range 8 * n {
		runtime.Gosched() // let every waiter reach its wait
	}
	for _, in := range stdins {
		in.Close()
	}
	done.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	if grown := threads(t) - before; grown > n/4 {
		t.Fatalf("waiting for %d commands at once took %d more OS threads; a waiter in the poller needs none", n, grown)
	}
}
