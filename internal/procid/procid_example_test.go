//go:build unix

package procid_test

import (
	"fmt"
	"os"
	"os/exec"
	"syscall"

	"github.com/verbsurface/verbsurface/internal/procid"
)

// A recorded identity is checked, never a bare pid: the same pid with
// another start time is a different process.
func ExampleCheck() {
	self, err := procid.Of(os.Getpid())
	if err != nil {
		panic(err)
	}
	fmt.Println(procid.Check(self))
	reused := self
	reused.StartTime++ // what a recycled pid looks like
	fmt.Println(procid.Check(reused))
	// Output:
	// alive
	// gone
}

// A group's members are its live processes: a command started with Setpgid
// leads a group of one, and once it has exited the group is empty.
func ExampleGroupMembers() {
	cmd := exec.Command("sleep", "60")
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true} // leads a new group
	if err := cmd.Start(); err != nil {
		panic(err)
	}
	pgid := cmd.Process.Pid
	members, _ := procid.GroupMembers(pgid)
	fmt.Println(len(members), members[0] == pgid)

	cmd.Process.Kill()
	cmd.Wait()
	members, _ = procid.GroupMembers(pgid)
	fmt.Println(len(members))
	// Output:
	// 1 true
	// 0
}

// Live lists every running process, this one included.
func ExampleLive() {
	all, err := procid.Live()
	if err != nil {
		panic(err)
	}
	found := false
	for _, st := range all {
		found = found || st.PID == os.Getpid()
	}
	fmt.Println(found)
	// Output:
	// true
}
