package verbsurface

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"time"

	"github.com/verbsurface/verbsurface/projector"
)

// DryRun is the result of an op sent with "dry_run": true once it passed
// every gate a real op passes, in the same order and with the same
// answers: the allowlist and the fence, closed validation, the roots (path
// arguments resolved to the real paths that would be opened), the policy
// (its decision and rule, without asking anyone), the fingerprint, and the
// spawn limit (counted, not taken). An op a gate refuses fails exactly as
// the real op would, with "dry_run": true beside its error. Nothing runs:
// no command, no handler, no preparer, and nothing is written.
type DryRun struct {
	// DryRun is always true: this op was judged, not run.
	DryRun bool `json:"dry_run"`
	// Runs is "command" (the program is run with Command and Argv),
	// "background" (the same, started detached: the op would answer at
	// once with a run id) or "handler" (library logic of the server's,
	// such as job.wait, which calls the program itself).
	Runs string `json:"runs"`
	// Command is the command path the program would get (after the
	// machine arguments, when those go on the root parser).
	Command []string `json:"command,omitempty"`
	// Argv is every argument after the command path: machine mode, the
	// verb's fixed arguments, then the caller's, rendered.
	Argv []string `json:"argv,omitempty"`
	// Args are the args as the op would run with them: validated, and each
	// path argument the real path inside a root it resolved to.
	Args map[string]any `json:"args"`
	// Cwd, Env and Output are the runner's: its working directory, the
	// names of the environment variables a run gets (never their values),
	// and how its output is read.
	Cwd    string   `json:"cwd,omitempty"`
	Env    []string `json:"env,omitempty"`
	Output string   `json:"output,omitempty"`
	// Decision is the policy's: "allow", or "ask" (a real op would ask the
	// person first); Rule the rule that decided.
	Decision string `json:"decision"`
	Rule     string `json:"rule,omitempty"`
	// SpawnTokens is how many spawns the caller could start now, for a
	// verb that spawns ("" otherwise): this op would take one.
	SpawnTokens *int `json:"spawn_tokens,omitempty"`
	// Note says what a dry run cannot show.
	Note string `json:"note,omitempty"`
}

// planner is a runner that can say what it would give a command without
// running one (dispatch.Runner is one).
type planner interface {
	Plan() (dir string, envNames []string, output string)
}

// backgrounder is a runner that starts its commands in the background
// and answers at once (`verbsurface serve`'s background verbs).
type backgrounder interface {
	Background() bool
}

// Background forwards to the limited runner's own, when it has one.
func (l *limitedExec) Background() bool {
	b, ok := l.inner.(backgrounder)
	return ok && b.Background()
}

// Plan forwards to the limited runner's own, when it has one.
func (l *limitedExec) Plan() (string, []string, string) {
	if p, ok := l.inner.(planner); ok {
		return p.Plan()
	}
	return "", nil, ""
}

// dryDecide asks the Decider as a real op would, without asking the person:
// an ask is reported as the decision, every other answer is judged by
// decide exactly as for the real op.
func (s *Surface) dryDecide(ctx context.Context, index int, v *Verb, args map[string]any, rec *OpRecord, plan *DryRun) *ErrorObject {
	decision, rule, _ := s.decideOp(ctx, v.Name, args)
	if decision == DecisionAsk {
		rec.Decision, rec.Rule = decision, rule
		plan.Decision, plan.Rule = DecisionAsk, rule
		return nil
	}
	if eo := s.decide(ctx, index, v, args, rec); eo != nil {
		return eo
	}
	plan.Decision, plan.Rule = DecisionAllow, rule
	return nil
}

// dryRunResult is what a dry-run op that passed every gate answers.
func (s *Surface) dryRunResult(v *Verb, p *projection, args map[string]any, plan *DryRun) (json.RawMessage, *ErrorObject) {
	plan.DryRun, plan.Args = true, args
	if plan.Decision == "" {
		plan.Decision = DecisionAllow
	}
	if v.Handler != nil {
		plan.Runs = "handler"
		plan.Note = fmt.Sprintf("%s runs the server's own logic, which calls the program itself; its commands are not shown", v.Name)
	} else {
		plan.Runs = "command"
		tail, err := projector.RenderArgv(p.dialect, p.cmd, args)
		if err != nil {
			return nil, &ErrorObject{Code: CodeInternalError,
				Message: fmt.Sprintf("verbsurface: verb %q: args validated but did not render: %v", v.Name, err)}
		}
		m := s.opts.Machine
		if v.Machine != nil {
			m = *v.Machine
		}
		if m.At == MachineAtRoot {
			plan.Command = append(plan.Command, m.Args...)
		}
		plan.Command = append(plan.Command, p.cmd.Path...)
		if m.At != MachineAtRoot {
			plan.Argv = append(plan.Argv, m.Args...)
		}
		plan.Argv = append(plan.Argv, v.Args...)
		plan.Argv = append(plan.Argv, tail...)
		if pl, ok := s.runnerOf(v).(planner); ok {
			plan.Cwd, plan.Env, plan.Output = pl.Plan()
		}
		if b, ok := s.runnerOf(v).(backgrounder); ok && b.Background() {
			plan.Runs = "background"
		}
	}
	if v.Prepare != nil {
		if plan.Note != "" {
			plan.Note += "; "
		}
		plan.Note += "the verb's preparer (a snapshot of a named file, say) does not run in a dry run; the real op may replace such arguments with what it prepared"
	}
	data, err := json.Marshal(plan)
	if err != nil {
		return nil, &ErrorObject{Code: CodeInternalError, Message: fmt.Sprintf("verbsurface: verb %q: encoding the dry run: %v", v.Name, err)}
	}
	return data, nil
}

// peek reports whether key's bucket holds a token now, and how many whole
// tokens it holds, taking none: a dry run's count.
func (l *spawnLimiter) peek(key string) (tokens int, retryAfter time.Duration) {
	l.mu.Lock()
	defer l.mu.Unlock()
	b, rate := l.refill(key)
	tokens = int(math.Floor(b.tokens))
	if tokens < 1 {
		retryAfter = time.Duration((1 - b.tokens) / rate)
	}
	return tokens, retryAfter
}
