//go:build linux

package nodump

import (
	"os"
	"testing"
)

// TestProtect: after Protect this process is undumpable and still reads
// its own /proc entries (a process is never denied itself).
func TestProtect(t *testing.T) {
	if Protected() {
		t.Fatal("undumpable before Protect: the test proves nothing")
	}
	if err := Protect(); err != nil {
		t.Fatal(err)
	}
	if !Protected() {
		t.Fatal("still dumpable after Protect")
	}
	if _, err := os.ReadFile("/proc/self/environ"); err != nil {
		t.Fatalf("reading its own environ after Protect: %v", err)
	}
}
