//go:build unix

package cli

import (
	"fmt"
	"os"
	"strconv"
	"time"

	"github.com/spf13/cobra"
	"github.com/verbsurface/verbsurface/examples/limcp/internal/notify"
	"github.com/verbsurface/verbsurface/examples/limcp/internal/run"
)

// CommandTimeoutEnv is set by a server (limcp mcp) in the environment of
// every command it runs, to its per-command timeout (a Go duration). Such
// a command dies with the server where the platform has no parent-death
// signal for it (macOS; Linux and FreeBSD also get one from package
// dispatch): it exits as soon as its parent is gone (it was reparented),
// and in any case once the timeout and ServedGrace have passed, since
// the server would have stopped it by then. The hidden commands that
// outlive their starter by design (a run's worker, a delivery) and the
// server itself ignore it.
const CommandTimeoutEnv = "LIMCP_COMMAND_TIMEOUT"

// ParentPIDEnv names, beside CommandTimeoutEnv, the pid of the process
// that started the command (the server; a tick for the commands it
// starts), so the command knows its parent even if that parent died
// before the command could look.
const ParentPIDEnv = "LIMCP_PARENT_PID"

// ServedGrace is how long past its timeout a served command waits for the
// server to stop it before it stops itself.
const ServedGrace = 2 * time.Second

// servedExit is the exit status of a served command that stopped itself.
const servedExit = 125

// parentPoll is how often a served command looks for its parent.
const parentPoll = 100 * time.Millisecond

// watchServer arms the rules of CommandTimeoutEnv for cmd.
func (a *app) watchServer(cmd *cobra.Command) {
	v := a.opts.Getenv(CommandTimeoutEnv)
	if v == "" {
		return
	}
	switch cmd.Name() {
	case run.WorkerCommand, notify.DeliverCommand, "mcp":
		return
	}
	timeout, err := time.ParseDuration(v)
	if err != nil || timeout <= 0 {
		return
	}
	// The parent that started the command says who it is: read here, the
	// parent pid could already be the reaper's, had the parent died
	// between the fork and now.
	parent, err := strconv.Atoi(a.opts.Getenv(ParentPIDEnv))
	if err != nil {
		parent = os.Getppid()
	}
	deadline := time.Now().Add(timeout + ServedGrace)
	go func() {
		for {
			if os.Getppid() != parent {
				fmt.Fprintf(a.opts.Stderr, "limcp: %s: the server that ran this command is gone; stopping\n", cmd.CommandPath())
				os.Exit(servedExit)
			}
			if time.Now().After(deadline) {
				fmt.Fprintf(a.opts.Stderr, "limcp: %s: past its %s timeout; stopping\n", cmd.CommandPath(), timeout)
				os.Exit(servedExit)
			}
			time.Sleep(parentPoll)
		}
	}()
}
