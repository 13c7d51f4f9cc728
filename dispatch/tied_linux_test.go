package dispatch

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// TestCommandOutlivesTheThreadThatAskedForIt: Linux sends the
// parent-death signal when the thread that forked the child exits, and Go
// ends a thread when a goroutine locked to it exits. A command started
// from such a goroutine must still run once the goroutine and its thread
// are gone: only the process's death ends it. (Started with cmd.Start on
// that thread, cat below is killed as its thread exits, and the ping gets
// no answer.)
func TestCommandOutlivesTheThreadThatAskedForIt(t *testing.T) {
	cmd := exec.Command("cat")
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.SysProcAttr = tiedAttr()
	tids, errs := make(chan int, 1), make(chan error, 1)
	var start func()
	start = func() {
		runtime.LockOSThread()
		if unix.Gettid() == os.Getpid() {
			// The main thread is never ended (a locked goroutine
			// exiting on it wedges it): try again on another.
			runtime.UnlockOSThread()
			go start()
			return
		}
		// Not unlocked: the thread ends with this goroutine.
		tids <- unix.Gettid()
		errs <- startTied(cmd)
	}
	go start()
	tid := <-tids
	if err := <-errs; err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	task := fmt.Sprintf("/proc/self/task/%d", tid)
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(time.Millisecond) {
		if _, err := os.Stat(task); os.IsNotExist(err) {
			break // the thread is gone: a parent-death signal tied to it was sent
		}
		if time.Now().After(deadline) {
			t.Fatalf("thread %d did not exit after its locked goroutine did", tid)
		}
	}
	if _, err := fmt.Fprintln(stdin, "ping"); err != nil {
		t.Fatalf("the command is gone with the thread that asked for it: %v", err)
	}
	line, err := bufio.NewReader(stdout).ReadString('\n')
	if err != nil || line != "ping\n" {
		t.Fatalf("the command did not answer (%q, %v): it died with the thread that asked for it", line, err)
	}
}
