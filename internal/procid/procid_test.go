package procid

import (
	"os"
	"os/exec"
	"syscall"
	"testing"
)

func TestParseStatNameWithParens(t *testing.T) {
	line := []byte("4242 (a (weird) name) S 1 4242 4242 0 -1 4194560 100 0 0 0 0 0 0 0 20 0 1 0 987654 1000 100 18446744073709551615\n")
	st, err := parseStat(4242, line)
	if err != nil {
		t.Fatal(err)
	}
	if st.State != 'S' || st.PPID != 1 || st.PGID != 4242 || st.SID != 4242 || st.StartTime != 987654 {
		t.Fatalf("parseStat = %+v", st)
	}
}

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

func TestExitedProcessIsGone(t *testing.T) {
	cmd := exec.Command("sleep", "30")
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	id, err := Of(cmd.Process.Pid)
	if err != nil {
		t.Fatal(err)
	}
	members, err := GroupMembers(cmd.Process.Pid)
	if err != nil || len(members) != 1 || members[0] != cmd.Process.Pid {
		t.Fatalf("GroupMembers = %v, %v; want [%d]", members, err, cmd.Process.Pid)
	}
	cmd.Process.Kill()
	// Before Wait the child is a zombie: already gone for our purposes.
	for Check(id) != Gone {
	}
	cmd.Wait()
	if got := Check(id); got != Gone {
		t.Fatalf("Check(reaped) = %s, want gone", got)
	}
	if members, _ := GroupMembers(cmd.Process.Pid); len(members) != 0 {
		t.Fatalf("GroupMembers after exit = %v, want none", members)
	}
}
