//go:build unix

package run

import (
	"context"
	"fmt"

	"github.com/verbsurface/verbsurface/examples/limcp/internal/quota"
	"github.com/verbsurface/verbsurface/examples/limcp/internal/store"
)

// Runtime is what every operation of this package needs: the open store,
// the state home, and the limcp executable to re-execute as a worker.
type Runtime struct {
	Store *store.Store
	Home  string
	Exe   string // absolute path of the limcp binary
	// Limits are the home's bounds on what a submit writes (package
	// quota); nil means quota.Defaults.
	Limits *quota.Limits
	// Secrets are the providers' variables a worker was given on its
	// descriptor (ReadSecrets); nil in a command that submits, which
	// takes them from its own environment.
	Secrets map[string]string
}

// limits are the bounds in force.
func (rt *Runtime) limits() quota.Limits {
	if rt.Limits == nil {
		return quota.Defaults
	}
	return *rt.Limits
}

// Reason codes this package writes (domain.status.cause).
const (
	ReasonStarted          = "run.running.started"
	ReasonExit0            = "run.completed.exit_0"
	ReasonExitNonzero      = "run.failed.exit_nonzero"
	ReasonLaunchError      = "run.failed.launch_error"
	ReasonSpawnError       = "run.failed.spawn_error"
	ReasonProcessGone      = "run.failed.process_gone"
	ReasonDeadline         = "run.timed_out.deadline"
	ReasonManualKill       = "run.cancelled.manual_kill"
	ReasonForceKill        = "run.cancelled.force_kill"
	ReasonAllSteps         = "run.completed.all_steps"
	ReasonStepFailed       = "run.failed.step_failed"
	ReasonDependencyFailed = "run.aborted.dependency_failed"
	ReasonWorkerError      = "run.failed.worker_error"
	// ReasonAgentError: the agent program exited 0 but its machine output
	// reported an error (the run's error text).
	ReasonAgentError = "run.failed.agent_error"
)

// Actors recorded in the audit.
const (
	ActorCLI         = "cli"
	ActorWorker      = "worker"
	ActorCoordinator = "coordinator"
	ActorObserver    = "observer"
	ActorKill        = "kill"
)

// TeamHook posts a line on the record's team board when a record with a
// team ends. It is registered on the store as a terminal hook.
func TeamHook(st *store.Store) store.TerminalHook {
	return func(ctx context.Context, r store.Record) {
		if r.Team == "" {
			return
		}
		body := fmt.Sprintf("%s %s (%s) ended %s: %s", r.Kind, r.ID, r.Label, r.Status, r.ReasonCode)
		_, _ = st.Post(ctx, store.Message{Team: r.Team, Author: "limcp", Body: body, RecordID: r.ID})
	}
}

// ShowHook settles a play's show when the play ends.
func ShowHook(st *store.Store) store.TerminalHook {
	return func(ctx context.Context, r store.Record) {
		if r.Kind != store.KindPlay || r.Parent == "" {
			return
		}
		_, _, _ = st.SettleShow(ctx, r.Parent, ActorCLI)
	}
}
