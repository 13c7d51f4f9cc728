//go:build unix

package server

import (
	"strings"
	"time"

	"github.com/verbsurface/verbsurface/dispatch"
	"github.com/verbsurface/verbsurface/kill"
	"github.com/verbsurface/verbsurface/verbsurface"
)

// statusCommand and killCommand are job.kill's two CLI commands: the
// record's durable identity (full id and kind) comes from `limcp job
// status --json -- ID`, the kill itself is `limcp kill --json
// [--grace=D] -- ID` (kill.ReferenceArgv).
var (
	statusCommand = []string{"job", "status", "--json"}
	killCommand   = []string{"kill", "--json"}
)

// jobKill is the job.kill handler: verbsurface.KillHandler over
// kill.CLI, the generic delegated kill that `verbsurface serve`'s
// kill: key uses too. Its args are those of the projected `kill` schema
// (id, grace). It reads the record's kind, lets kill.Decide choose, and
// delegates to `limcp kill`: the CLI reaps transitively (play → session →
// invocations) and records every end. A show is refused
// (show_kill_unsupported). A failed or partial delegated kill is reported
// as it is, with the CLI's code and details; there is no raw-signal
// fallback. job.kill is a control verb: exempt from the fingerprint, and
// run without the request's cancellation (contract C6), so a client that
// goes away cannot leave a half-done kill. limcp's extra is the kill's
// runner, whose timeout follows the grace (killRunner).
func (s *Server) jobKill() verbsurface.Handler {
	return verbsurface.KillHandler(kill.CLI{Status: statusCommand, Kill: killCommand, KillRunner: s.killRunner})
}

// killRunner is a runner whose timeout leaves the CLI's kill room for its
// graces (SIGTERM, grace, SIGKILL, per entity of a tree), so the dispatch
// timeout never stops a kill half-way. It runs with the environment the
// server built at start, as every other command does.
func (s *Server) killRunner(grace time.Duration) (kill.Runner, error) {
	if grace <= 0 {
		grace = kill.DefaultGrace
	}
	timeout := 2*time.Minute + 4*grace
	env := make([]string, 0, len(s.env))
	for _, kv := range s.env {
		if !strings.HasPrefix(kv, CommandTimeoutEnv+"=") {
			env = append(env, kv)
		}
	}
	// The kill's own timeout, which the CLI's deadline follows.
	env = append(env, CommandTimeoutEnv+"="+timeout.String())
	r, err := dispatch.NewRunner(s.exe, &dispatch.Options{Env: env, Timeout: timeout})
	if err != nil {
		return nil, s.scrub.err(err)
	}
	return s.scrub.runner(r), nil
}
