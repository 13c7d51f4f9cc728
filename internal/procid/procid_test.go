//go:build unix

package procid

import (
	"os"
	"os/exec"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

func TestSelfIsAlive(t *testing.T) {
	id, err := Of(os.Getpid())
	if err != nil {
		t.Fatal(err)
	}
	if got := Check(id); got != Alive {
		t.Fatalf("Check(self) = %s, want alive", got)
	}
	wrong := id
	wrong.StartTime++
	if got := Check(wrong); got != Gone {
		t.Fatalf("Check(self with wrong start time) = %s, want gone", got)
	}
	if got := Check(Identity{PID: id.PID}); got != Unknown {
		t.Fatalf("Check(no start time) = %s, want unknown", got)
	}
}

// startGroup starts `sleep 30` leading a new process group.
func startGroup(t *testing.T) *exec.Cmd {
	t.Helper()
	cmd := exec.Command("sleep", "30")
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	return cmd
}

// awaitZombie waits until pid has exited but is not yet reaped.
func awaitZombie(t *testing.T, pid int) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(time.Millisecond) {
		if st, err := ReadStat(pid); err == nil && st.State == 'Z' {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("pid %d did not become a zombie within 10s", pid)
		}
	}
}

// A zombie (exited, not yet reaped) is gone for Check and no member for
// GroupMembers and GroupSizes; once reaped, the same holds.
func TestExitedProcessIsGone(t *testing.T) {
	cmd := startGroup(t)
	pid := cmd.Process.Pid
	id, err := Of(pid)
	if err != nil {
		t.Fatal(err)
	}
	if got := Check(id); got != Alive {
		t.Fatalf("Check(running) = %s, want alive", got)
	}
	members, err := GroupMembers(pid)
	if err != nil || len(members) != 1 || members[0] != pid {
		t.Fatalf("GroupMembers = %v, %v; want [%d]", members, err, pid)
	}
	if sizes, err := GroupSizes(); err != nil || sizes[pid] != 1 {
		t.Fatalf("GroupSizes()[%d] = %d, %v; want 1", pid, sizes[pid], err)
	}

	cmd.Process.Kill()
	awaitZombie(t, pid) // not waited for yet: a zombie
	if got := Check(id); got != Gone {
		t.Errorf("Check(zombie) = %s, want gone", got)
	}
	if members, err := GroupMembers(pid); err != nil || len(members) != 0 {
		t.Errorf("GroupMembers with only a zombie = %v, %v; want none", members, err)
	}
	if sizes, err := GroupSizes(); err != nil || sizes[pid] != 0 {
		t.Errorf("GroupSizes()[%d] with only a zombie = %d, %v; want 0", pid, sizes[pid], err)
	}

	cmd.Wait()
	if got := Check(id); got != Gone {
		t.Errorf("Check(reaped) = %s, want gone", got)
	}
	if members, err := GroupMembers(pid); err != nil || len(members) != 0 {
		t.Errorf("GroupMembers after exit = %v, %v; want none", members, err)
	}
}

// GroupSizes agrees with GroupMembers for the groups it reports.
func TestGroupSizesCountsEveryMember(t *testing.T) {
	cmd := startGroup(t)
	pgid := cmd.Process.Pid
	second := exec.Command("sleep", "30")
	second.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pgid: pgid}
	if err := second.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { second.Process.Kill(); second.Wait() })
	sizes, err := GroupSizes()
	if err != nil {
		t.Fatal(err)
	}
	members, err := GroupMembers(pgid)
	if err != nil {
		t.Fatal(err)
	}
	if sizes[pgid] != 2 || len(members) != 2 {
		t.Fatalf("group %d: GroupSizes says %d, GroupMembers %v; want 2 members", pgid, sizes[pgid], members)
	}
}

func TestGroupMembersRefusesInvalidGroups(t *testing.T) {
	for _, pgid := range []int{0, -1} {
		if m, err := GroupMembers(pgid); err == nil {
			t.Errorf("GroupMembers(%d) = %v, nil; want an error", pgid, m)
		}
	}
}

// BenchmarkGroupMembers compares the two answers GroupMembers gives: an
// empty group (the question every dispatched command ends with: one
// kill(2)) and a live one (a read of every /proc entry).
//
//	go test ./internal/procid -run '^$' -bench GroupMembers -benchtime 200ms
func BenchmarkGroupMembers(b *testing.B) {
	cmd := exec.Command("sleep", "30")
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	defer func() { cmd.Process.Kill(); cmd.Wait() }()
	done := exec.Command("true")
	done.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := done.Run(); err != nil {
		b.Fatal(err)
	}
	for _, bc := range []struct {
		name string
		pgid int
		want int
	}{{"empty group", done.Process.Pid, 0}, {"live group", cmd.Process.Pid, 1}} {
		b.Run(bc.name, func(b *testing.B) {
			for b.Loop() {
				if m, err := GroupMembers(bc.pgid); err != nil || len(m) != bc.want {
					b.Fatalf("GroupMembers(%d) = %v, %v; want %d members", bc.pgid, m, err, bc.want)
				}
			}
		})
	}
}

// Live lists a running process and leaves out a zombie.
func TestLive(t *testing.T) {
	cmd := startGroup(t)
	pid := cmd.Process.Pid
	has := func() bool {
		all, err := Live()
		if err != nil {
			t.Fatal(err)
		}
		for _, st := range all {
			if st.PID == pid {
				return true
			}
		}
		return false
	}
	if !has() {
		t.Fatalf("Live() misses running pid %d", pid)
	}
	cmd.Process.Kill()
	awaitZombie(t, pid)
	if has() {
		t.Fatalf("Live() lists zombie pid %d", pid)
	}
}

// The table's answer about this process agrees with what the process asks
// the kernel directly: on a Mac or FreeBSD host this pins the kinfo_proc
// field mapping, on Linux the /proc parser.
func TestReadStatSelfAgreesWithTheKernel(t *testing.T) {
	st, err := ReadStat(os.Getpid())
	if err != nil {
		t.Fatal(err)
	}
	sid, err := unix.Getsid(0)
	if err != nil {
		t.Fatal(err)
	}
	if st.PID != os.Getpid() || st.PPID != os.Getppid() || st.PGID != syscall.Getpgrp() || st.SID != sid || st.State == 'Z' || st.StartTime == 0 {
		t.Fatalf("ReadStat(self) = %+v; want pid %d ppid %d pgid %d sid %d, running, a start time", st, os.Getpid(), os.Getppid(), syscall.Getpgrp(), sid)
	}
	if _, err := ReadStat(0); err == nil {
		t.Error("ReadStat(0) = nil error; want invalid pid")
	}
}
