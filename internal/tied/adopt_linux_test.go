package tied_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/verbsurface/verbsurface/internal/procid"
	"github.com/verbsurface/verbsurface/internal/tied"
)

// detach runs a command that leaves `sleep 600` detached (orphaned, in a
// session of its own) with env, and returns sleep's pid.
func detach(t *testing.T, env ...string) int {
	t.Helper()
	pidfile := filepath.Join(t.TempDir(), "pid")
	cmd := exec.Command("sh", "-c", `( setsid sh -c "echo \$\$ > $0.tmp && mv $0.tmp $0; exec sleep 600 >/dev/null 2>&1" & ); while [ ! -f $0 ]; do sleep 0.01; done`, pidfile)
	cmd.Env = append(os.Environ(), env...)
	cmd.SysProcAttr = tied.Attr()
	if err := tied.Start(cmd); err != nil {
		t.Fatal(err)
	}
	if err := cmd.Wait(); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(pidfile)
	if err != nil {
		t.Fatal(err)
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = syscall.Kill(pid, syscall.SIGKILL) })
	return pid
}

// KillAdopted ends the detached process that carries its command's tag,
// and only that one; the adopted process is this process's child, and it
// is reaped.
func TestKillAdopted(t *testing.T) {
	if err := tied.AdoptOrphans(); err != nil {
		t.Skipf("cannot adopt orphans here: %v", err)
	}
	tagged := detach(t, "VERBSURFACE_RUN=one")
	other := detach(t, "VERBSURFACE_RUN=two")
	for _, pid := range []int{tagged, other} {
		if st, err := procid.ReadStat(pid); err != nil || st.PPID != os.Getpid() {
			t.Fatalf("process %d: %+v, %v; want it adopted by this process", pid, st, err)
		}
	}
	found, left := tied.KillAdopted("VERBSURFACE_RUN=one", 5*time.Second)
	if !found || len(left) != 0 {
		t.Fatalf("KillAdopted = %v, %v; want found, none left", found, left)
	}
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(5 * time.Millisecond) {
		if _, err := os.Stat("/proc/" + strconv.Itoa(tagged)); os.IsNotExist(err) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the tagged process %d is still there (or unreaped)", tagged)
		}
	}
	if st, err := procid.ReadStat(other); err != nil || st.State == 'Z' {
		t.Fatalf("the process of another tag was ended: %+v, %v", st, err)
	}
	if found, _ := tied.KillAdopted("VERBSURFACE_RUN=three", time.Second); found {
		t.Error("a tag nobody carries found something")
	}
}

// TestAdoptionLeavesOtherChildrenAlone: a child another part of the
// process starts with os/exec (not Start) is that code's to wait for: the
// reaper, woken by every child's exit, never takes its exit status, and
// KillAdopted neither kills nor reaps it. Before, the reaper took any
// zombie child Start had not started, and os/exec's Wait failed with
// "waitid: no child processes".
func TestAdoptionLeavesOtherChildrenAlone(t *testing.T) {
	if err := tied.AdoptOrphans(); err != nil {
		t.Skipf("this kernel refuses a child subreaper: %v", err)
	}
	for i := range 40 {
		cmd := exec.Command("sh", "-c", "exit 3")
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		time.Sleep(20 * time.Millisecond) // the exit's SIGCHLD wakes the reaper first
		if i%2 == 0 {
			tied.KillAdopted("VERBSURFACE_RUN=nobody", 10*time.Millisecond)
		}
		err := cmd.Wait()
		if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 3 {
			t.Fatalf("round %d: os/exec's Wait: %v; want exit status 3 (the reaper took the child)", i, err)
		}
	}
}
