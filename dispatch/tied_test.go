//go:build linux || freebsd

package dispatch

import (
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// TestCommandDiesWithItsServer is issue 25's twelfth finding: a stdio
// server killed with SIGKILL while a CLI child ran left the child running
// past its timeout, reparented, and its prompt snapshot on disk. Now the
// child gets SIGKILL when the server dies (Pdeathsig), and the snapshot,
// which the child holds as a descriptor, never had a name to leave.
func TestCommandDiesWithItsServer(t *testing.T) {
	dir := t.TempDir()
	snapDir := filepath.Join(dir, "snapshots")
	if err := os.Mkdir(snapDir, 0o700); err != nil {
		t.Fatal(err)
	}
	pidfile := filepath.Join(dir, "pid")
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	srv := exec.Command(exe, pidfile)
	srv.Env = append(os.Environ(), serverHelperEnv+"="+fakeCLI, "DISPATCH_TEST_SNAPDIR="+snapDir)
	if err := srv.Start(); err != nil {
		t.Fatal(err)
	}
	child := readPidfile(t, pidfile, 10*time.Second)
	killNow(t, child)
	if ents, _ := os.ReadDir(snapDir); len(ents) != 0 {
		t.Fatalf("the snapshot has a name while its command runs: %v", ents)
	}
	if err := srv.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	_ = srv.Wait()
	for deadline := time.Now().Add(10 * time.Second); alive(child); time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("the command %d outlived its server by 10 s", child)
		}
	}
	if ents, _ := os.ReadDir(snapDir); len(ents) != 0 {
		t.Fatalf("the killed server left snapshots behind: %v", ents)
	}
}
