package tied

import (
	"os/exec"
	"runtime"
	"sync"
	"syscall"
)

// Attr is the process attributes of every command: a new process
// group, and SIGKILL when this process dies (Pdeathsig), so a command
// never outlives the server that runs it, however the server ends.
func Attr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
}

// spawner starts the commands: Linux sends the parent-death signal when
// the thread that forked the child exits, not the process, and Go ends a
// thread whenever a goroutine exits while locked to it (anything in the
// program may do that). So every command is forked by one goroutine,
// locked to its thread and never returning: that thread lives exactly as
// long as the process.
var spawner struct {
	once sync.Once
	reqs chan spawnReq
}

type spawnReq struct {
	cmd  *exec.Cmd
	done chan error
}

// Start starts cmd from the spawner's thread.
func Start(cmd *exec.Cmd) error {
	spawner.once.Do(func() {
		spawner.reqs = make(chan spawnReq)
		go func() {
			runtime.LockOSThread() // never unlocked: see spawner
			for r := range spawner.reqs {
				// Recorded under the lock the orphan scans hold, so that
				// no scan takes a new child for an adopted one.
				adopt.mu.Lock()
				err := r.cmd.Start()
				if err == nil {
					record(r.cmd.Process.Pid)
				}
				adopt.mu.Unlock()
				r.done <- err
			}
		}()
	})
	done := make(chan error, 1)
	spawner.reqs <- spawnReq{cmd: cmd, done: done}
	return <-done
}
