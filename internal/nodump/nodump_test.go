//go:build linux

package nodump

import (
	"os"
	"os/exec"
	"testing"
)

// childVar marks the fresh process TestProtect runs its checks in.
const childVar = "NODUMP_TEST_CHILD"

// TestProtect: after Protect a process is undumpable and still reads its
// own /proc entries (a process is never denied itself). Protect cannot be
// undone, so the checks run in a fresh copy of this test binary each time
// (with -count=N the second run would otherwise start protected).
func TestProtect(t *testing.T) {
	if os.Getenv(childVar) == "" {
		cmd := exec.Command(os.Args[0], "-test.run=^TestProtect$", "-test.count=1", "-test.v")
		cmd.Env = append(os.Environ(), childVar+"=1")
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("the checks in a fresh process failed (%v):\n%s", err, out)
		}
		return
	}
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
