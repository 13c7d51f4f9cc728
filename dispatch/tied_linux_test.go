package dispatch

import (
	"bufio"
	"encoding/json"
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

// TestStdinIsOneSharedDevNull: every command reads end of file from
// /dev/null, the very open file the runner holds for all of them (kcmp
// compares a running command's stdin with it), rather than one opened
// per command; and nothing is left open per command.
func TestStdinIsOneSharedDevNull(t *testing.T) {
	dir := t.TempDir()
	pidFile, goFile := dir+"/pid", dir+"/go"
	script := `readlink /proc/self/fd/0; echo $$ > "$0.tmp" && mv "$0.tmp" "$0"; while [ ! -e "$1" ]; do sleep 0.01; done; if read -r line; then echo read; else echo eof; fi`
	r, err := NewRunner("/bin/sh", &Options{Output: OutputText, LeadingArgs: []string{"-c", script, pidFile, goFile}, Timeout: 20 * time.Second, Grace: 300 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	fds := func() int {
		ents, err := os.ReadDir("/proc/self/fd")
		if err != nil {
			t.Fatal(err)
		}
		return len(ents)
	}
	for i := range 5 {
		os.Remove(pidFile)
		os.Remove(goFile)
		before := fds()
		type result struct {
			data json.RawMessage
			err  error
		}
		done := make(chan result, 1)
		go func() {
			data, err := r.Run(bg(), nil)
			done <- result{data, err}
		}()
		var pid int
		for deadline := time.Now().Add(10 * time.Second); pid == 0; time.Sleep(5 * time.Millisecond) {
			if b, err := os.ReadFile(pidFile); err == nil {
				fmt.Sscan(string(b), &pid)
			} else if time.Now().After(deadline) {
				t.Fatal("the command never wrote its pid")
			}
		}
		null := devNull()
		if null == nil {
			t.Fatal("no shared /dev/null")
		}
		same, _, errno := unix.Syscall6(unix.SYS_KCMP, uintptr(os.Getpid()), uintptr(pid), 0 /* KCMP_FILE */, null.Fd(), 0, 0)
		// The command is let go before anything is judged, so that no
		// failure or skip leaves it waiting for its timeout.
		if err := os.WriteFile(goFile, nil, 0o600); err != nil {
			t.Fatal(err)
		}
		res := <-done
		switch {
		case errno == unix.ENOSYS:
			t.Skip("kcmp is not in this kernel: nothing to compare the command's stdin with")
		case errno != 0:
			t.Fatalf("kcmp: %v", errno)
		case same != 0:
			t.Errorf("run %d: the command's stdin is not the runner's shared /dev/null", i)
		}
		if res.err != nil {
			t.Fatal(res.err)
		}
		var got OutputResult
		if err := json.Unmarshal(res.data, &got); err != nil {
			t.Fatal(err)
		}
		if want := `"/dev/null\neof\n"`; string(got.Output) != want {
			t.Fatalf("the command's stdin: %s, want %s", got.Output, want)
		}
		if after := fds(); i > 0 && after != before {
			t.Errorf("run %d: %d descriptors open before the command, %d after", i, before, after)
		}
	}
}
