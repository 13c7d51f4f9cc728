package procstat

import (
	"net"
	"os"
	"runtime"
	"testing"
	"time"
)

// Conns counts the connections this process accepted on its listener's
// port, and nothing else: not the listener, not the client side of the same
// connections, not a pipe; FDs counts every descriptor.
func TestConnsCountsAcceptedConnections(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("/proc/PID/net is Linux's")
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	port := ln.Addr().(*net.TCPAddr).Port
	r, w, _ := os.Pipe()
	defer r.Close()
	defer w.Close()
	pid := os.Getpid()
	before, err := FDs(pid)
	if err != nil {
		t.Fatal(err)
	}
	for i := range 3 {
		c, err := net.Dial("tcp", ln.Addr().String())
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		s, err := ln.Accept()
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		if n, err := Conns(pid, port); err != nil || n != i+1 {
			t.Fatalf("after %d accepted: Conns = %d, %v", i+1, n, err)
		}
	}
	if n, err := FDs(pid); err != nil || n < before+6 {
		t.Fatalf("FDs = %d, %v; want at least %d (six sockets more)", n, err, before+6)
	}
	if mb, err := StatusMB(pid, "VmRSS"); err != nil || mb <= 0 {
		t.Fatalf("VmRSS = %v, %v", mb, err)
	}
	if _, err := StatusMB(pid, "NoSuchField"); err == nil {
		t.Fatal("a field /proc does not have read without an error")
	}
}

// TestCPUTimeCountsThisProcess: spinning on the CPU shows in the sum, and
// the sum never goes back.
func TestCPUTimeCountsThisProcess(t *testing.T) {
	before, err := CPUTime(os.Getpid())
	if err != nil {
		t.Skipf("cannot read this process's CPU time here: %v", err)
	}
	deadline := time.Now().Add(20 * time.Second)
	x := 0
	for {
		for i := 0; i < 1_000_000; i++ {
			x += i
		}
		now, err := CPUTime(os.Getpid())
		if err != nil {
			t.Fatal(err)
		}
		if now < before {
			t.Fatalf("CPU time went back: %v after %v", now, before)
		}
		if now-before >= 20*time.Millisecond {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("20 s of spinning counted %v of CPU time (x=%d)", now-before, x)
		}
	}
	if _, err := CPUTime(-1); err == nil {
		t.Error("CPUTime(-1) answered without error")
	}
}
