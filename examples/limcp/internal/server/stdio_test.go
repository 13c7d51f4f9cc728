//go:build unix

package server

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// A piped stdin is read through the poller: pollable hands back a file
// that takes a read deadline (only a polled descriptor can), in
// non-blocking mode until restore; a regular file is left as it is.
func TestPollableStdinOnlyForPipes(t *testing.T) {
	p := make([]int, 2)
	if err := unix.Pipe(p); err != nil {
		t.Fatal(err)
	}
	defer unix.Close(p[1])
	f, restore := pollable(p[0], "pipe")
	if f == nil {
		t.Fatal("a pipe was not made pollable")
	}
	defer f.Close()
	if err := f.SetReadDeadline(time.Now().Add(time.Hour)); err != nil {
		t.Fatalf("the pipe is not in the poller: %v", err)
	}
	if fl, _ := unix.FcntlInt(uintptr(p[0]), unix.F_GETFL, 0); fl&unix.O_NONBLOCK == 0 {
		t.Fatal("the pipe is not non-blocking")
	}
	if _, err := unix.Write(p[1], []byte("{}\n")); err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 8)
	if n, err := f.Read(buf); err != nil || string(buf[:n]) != "{}\n" {
		t.Fatalf("read %q, %v", buf[:n], err)
	}
	restore()
	if fl, _ := unix.FcntlInt(uintptr(p[0]), unix.F_GETFL, 0); fl&unix.O_NONBLOCK != 0 {
		t.Fatal("restore left the pipe non-blocking")
	}

	reg, err := os.Create(filepath.Join(t.TempDir(), "requests"))
	if err != nil {
		t.Fatal(err)
	}
	defer reg.Close()
	if f, _ := pollable(int(reg.Fd()), "file"); f != nil {
		t.Fatal("a regular file was made non-blocking")
	}
	if fl, _ := unix.FcntlInt(reg.Fd(), unix.F_GETFL, 0); fl&unix.O_NONBLOCK != 0 {
		t.Fatal("a regular file's flags changed")
	}
}
