//go:build unix

package kill

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"
)

// Runner runs one command of the CLI as a subprocess (package dispatch
// implements it; this package declares the interface so it need not import
// dispatch). argv excludes the program. Success returns the data member of
// the command's ok machine result; every error has ErrorCode() string and
// ErrorDetails() map[string]any.
type Runner interface {
	Run(ctx context.Context, argv []string) (json.RawMessage, error)
}

// RunnerFunc adapts a function to [Runner].
type RunnerFunc func(ctx context.Context, argv []string) (json.RawMessage, error)

// Run calls f.
func (f RunnerFunc) Run(ctx context.Context, argv []string) (json.RawMessage, error) {
	return f(ctx, argv)
}

// codedError is how runner errors are matched, without importing dispatch.
type codedError interface {
	ErrorCode() string
	ErrorDetails() map[string]any
}

// ArgvFunc builds the argv (without the program) of the CLI's kill of one
// entity. grace is [Options].Grace; zero means the CLI's own default.
type ArgvFunc func(e Entity, grace time.Duration) []string

// ReferenceArgv is the kill argv of the reference CLI, limcp:
// kill --json [--grace=D] -- ID. The kind is not passed: the CLI resolves
// the id itself. "--" keeps an id that begins with a dash an id.
func ReferenceArgv(e Entity, grace time.Duration) []string {
	argv := []string{"kill", "--json"}
	if grace > 0 {
		argv = append(argv, "--grace="+grace.String())
	}
	return append(argv, "--", e.ID)
}

// Options configure a [Killer]. The zero value is right for the
// reference CLI.
type Options struct {
	// ArgvFunc builds the CLI's kill argv; nil means [ReferenceArgv].
	Argv ArgvFunc
	// Grace is the time between SIGTERM and SIGKILL. It is passed to the
	// CLI's kill when positive, and used when signalling a group
	// ([DefaultGrace] when zero or negative).
	Grace time.Duration
}

// Killer decides and carries out a kill: [Decide] chooses, then it
// delegates, signals or refuses. It holds no mutable state and is safe for
// concurrent use (as safe as its runner).
type Killer struct {
	runner Runner
	argv   ArgvFunc
	grace  time.Duration
}

// NewKiller returns a Killer that delegates through runner. opts may be
// nil. A nil runner is allowed for callers that never delegate; a
// delegation then fails with [CodeDelegationFailed].
func NewKiller(runner Runner, opts *Options) *Killer {
	e := &Killer{runner: runner, argv: ReferenceArgv}
	if opts != nil {
		if opts.Argv != nil {
			e.argv = opts.Argv
		}
		if opts.Grace > 0 {
			e.grace = opts.Grace
		}
	}
	return e
}

// Kill kills the run r describes, as [Decide] decides, and returns the
// job.kill [Result]. The Result is always filled in; the error is non-nil,
// an [*Error], whenever the target was not stopped: a refusal (its refusal
// code), a failed delegation (the runner's code and details, unchanged), or
// a group that was not fully signalled.
//
// A delegated kill that fails, times out or reaps partially returns that
// outcome and nothing else: Kill never falls back to signalling the
// record's process group, because that would stop processes while the
// CLI's lifecycle rows claim otherwise (still running, or killed for
// another reason), and the next reader of those rows would be misled.
//
// Kill honours ctx as the runner and [SignalGroup] do; a surface that must
// not half-kill on a client cancel passes a context without cancellation
// (context.WithoutCancel), bounded by the runner's own timeout.
func (e *Killer) Kill(ctx context.Context, r Record) (Result, error) {
	d := Decide(r)
	res := Result{Decision: d}
	switch d.Action {
	case ActionDelegate:
		del, err := e.delegate(ctx, *d.Entity)
		res.Delegated = &del
		return res, err
	case ActionSignalGroup:
		out, err := SignalGroup(ctx, *d.Group, e.grace)
		res.Signalled = &out
		return res, groupError(out, err)
	}
	return res, &Error{
		Code:    d.Refusal.Code,
		Message: "refused: " + d.Refusal.Message,
		Details: map[string]any{"rule": string(d.Rule)},
	}
}

// delegate runs the CLI's kill of ent. Whatever happens, it signals nothing:
// see Kill for why there is no fallback.
func (e *Killer) delegate(ctx context.Context, ent Entity) (Delegated, error) {
	argv := e.argv(ent, e.grace)
	del := Delegated{Argv: argv}
	fail := func(f Failure, what string, err error) (Delegated, error) {
		del.Error = &f
		kind := string(ent.Kind)
		if kind == "" {
			kind = "id" // delegated without a kind (RuleIDOnly)
		}
		msg := fmt.Sprintf("%s %q: %s: %s", kind, ent.ID, what, f.Message)
		return del, &Error{Code: f.Code, Message: msg, Details: f.Details, Err: err}
	}
	switch {
	case e.runner == nil:
		return fail(Failure{Code: CodeDelegationFailed, Message: "no runner configured to run the CLI's kill"}, "not delegated", nil)
	case len(argv) == 0:
		return fail(Failure{Code: CodeDelegationFailed, Message: "the kill argv builder returned no arguments"}, "not delegated", nil)
	}
	data, err := e.runner.Run(ctx, argv)
	if err != nil {
		var coded codedError
		if !errors.As(err, &coded) {
			return fail(Failure{Code: CodeDelegationFailed, Message: err.Error()}, "the CLI's kill failed with an uncoded error", err)
		}
		return fail(Failure{Code: coded.ErrorCode(), Message: err.Error(), Details: coded.ErrorDetails()}, "the CLI's kill failed", err)
	}
	del.OK, del.Data = true, data
	return del, nil
}
