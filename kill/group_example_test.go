//go:build unix

package kill_test

import (
	"context"
	"fmt"
	"os/exec"
	"syscall"
	"time"

	"github.com/verbsurface/verbsurface/kill"
)

// A server that starts a process itself puts it in a new group and records
// the group with its leader's identity at once; later it can stop the whole
// group, safe from a reused pid.
func ExampleSignalGroup() {
	cmd := exec.Command("sleep", "60")
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		fmt.Println(err)
		return
	}
	defer cmd.Wait() // reaping stays the parent's job
	g, err := kill.LeaderGroup(cmd.Process.Pid)
	if err != nil {
		fmt.Println(err)
		return
	}

	out, err := kill.SignalGroup(context.Background(), g, 2*time.Second)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(out.Status)
	for _, s := range out.Sent {
		fmt.Println("sent", s.Signal)
	}
	fmt.Println("survivors:", out.Survivors)
	// Output:
	// reaped
	// sent SIGTERM
	// survivors: []
}
