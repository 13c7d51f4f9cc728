package verbsurface

import (
	"context"
	"encoding/json"

	"github.com/verbsurface/verbsurface/projector"
)

// Class says what an op does to the world. It decides whether a fingerprint
// is required (spawn only), how cancellation reaches it (observe only), and
// what a [Policy] such as [ReadOnly] admits. Every op result names it.
type Class string

const (
	ClassSpawn   Class = "spawn"   // starts work: agent.submit, flow.submit, play.submit
	ClassObserve Class = "observe" // reads: job.status, job.list, job.wait
	ClassControl Class = "control" // changes existing state: job.kill, schedule.add
)

// classNone is the class an op result names when the op resolved to no
// verb (unknown, fenced, retired synonym): there is nothing to classify, yet
// audit layers keyed on "class" still find the key.
const classNone Class = "none"

func (c Class) valid() bool {
	return c == ClassSpawn || c == ClassObserve || c == ClassControl
}

// Verb is one registered operation. Its argument schema is never written by
// hand: it is projected, live, from the CLI command at Path, even when a
// Handler (Go logic such as job.wait) runs instead of the command.
type Verb struct {
	// Name is the namespaced verb: lowercase segments joined by dots
	// ("agent.submit").
	Name string
	// Class is spawn, observe or control.
	Class Class
	// Path is the CLI command path the verb runs or mirrors (["job","wait"]).
	// Empty is the program's root command: a single-command program (a
	// linter, a formatter) is one verb. Registration refuses a fenced path.
	Path []string
	// Summary is the one line the catalog and help show. Empty means the
	// command's own one-line help from the parser (projector.Command.Summary:
	// cobra's Short, argparse's help= of the subparser), read live like
	// the schema; the catalog clips either to 60 runes.
	Summary string
	// Synonyms are the verb's v1 names ("submit_agent"). They are accepted
	// until Options.SynonymSunset, resolved before dispatch, and never
	// advertised or taught.
	Synonyms []string
	// Handler, when set, runs instead of dispatching the rendered command.
	Handler Handler
	// Prepare, when set, runs after validation and before rendering.
	Prepare Preparer
	// Dynamic, when set, names the parameter whose value injects more
	// parameters (a playbook) and the CLI's own injection.
	Dynamic *Dynamic
	// PathParams names the parameters (schema names) whose values are
	// files or directories the CLI opens, and how it uses each. They are
	// added to what the projected command marks (projector.Param.Path,
	// set by adapters: fromcobra reads the "verbsurface:path" flag
	// annotation), and override it; PathUseNone unmarks a parameter. Every
	// such argument is confined to Options.Roots before anything runs.
	PathParams map[string]projector.PathUse
	// RequireFingerprint makes an op of this verb carry the fingerprint of
	// the schema it was written against, whatever its class: a destructive
	// control verb (note.rm) or a synchronous one that writes (note.add)
	// can demand agreement without calling itself spawn. False leaves it
	// to the class: spawn verbs always require one.
	RequireFingerprint bool

	// Machine, when set, is this verb's machine mode instead of
	// Options.Machine, for a CLI whose commands differ (-o json on the
	// ten commands that have it). A Machine without Args means none for
	// this verb (a program that prints its output as it is, run through a
	// Runner that reads it so: dispatch's output modes).
	Machine *Machine
	// Args are fixed arguments the surface renders after the command path
	// (and a leaf machine mode) and before the caller's: options of the
	// command, each followed by its value when it takes one, read and
	// checked like the machine arguments (an option of the command, a
	// value it admits), except that a path is allowed. No caller sees
	// them: every option they set is withdrawn from the schema, so none
	// can be given again to override it.
	Args []string
	// Exclude names parameters of this verb's command no caller may set,
	// by schema name or option string (projector.ExcludeFromCommand,
	// which also settles a conflict that lies only in the parameters). A
	// name the command lacks makes the verb unavailable.
	Exclude []string
	// Positionals, when set, state the command's positionals in place
	// of those the adapter read (projector.StatePositionals): what a
	// reader cannot know, such as a cobra Args validator that departs
	// from the Use line, the operator says. A command unavailable only
	// because its positionals could not be determined is offered.
	Positionals []*projector.Param
	// Fixed gives parameters values no caller sees or sets, by schema
	// name or option string, positionals included
	// (projector.FixParams): each leaves the schema and is rendered with
	// the caller's arguments by the same rules. A value the parameter
	// does not admit makes the verb unavailable, saying why.
	Fixed map[string]any
	// Constraints narrow the values a caller may give, per parameter
	// (projector.Constrain): a pattern, an enum, no leading dash. They
	// are in the schema an agent reads and enforced by validation. A
	// program that hands a value on to another program (a linter to git
	// log, a wrapper to ssh) needs one: the parser reads any word, and
	// the next program may read it as an option.
	Constraints []projector.Constraint
	// Runner, when set, runs this verb's command instead of
	// Options.Runner (another output mode, working directory or timeout),
	// under the same Options.MaxInFlight slots; a Handler gets it as
	// Call.Runner.
	Runner Runner
	// StoredCommand, when set, guards a parameter that holds a command
	// line the CLI stores and runs later (a schedule's): see
	// [StoredCommand].
	StoredCommand *StoredCommand
	// Spawns marks a verb whose ops start runs although its class is not
	// spawn: a scheduler's tick, which starts whatever is due. Its ops
	// count against Options.SpawnsPerMinute, in the same bucket of the
	// same client as spawn ops, so no route around the limit is left
	// open. How much an op costs:
	//
	//   - without a Handler, one token, taken before the command runs
	//     (none left: rate_limited, nothing runs), however many runs the
	//     command then starts; a command that may start several per op
	//     is better given a budget by a Handler;
	//   - with a Handler, nothing up front: the handler takes one token
	//     per run it is about to start through [Call].Spawns and gives
	//     back what it did not use, so an op costs exactly what it starts.
	//
	// A spawn verb needs no mark (it always counts, one token per op). The
	// mark does not require a fingerprint (RequireFingerprint does).
	Spawns bool
}

// needsFingerprint reports whether an op of v must carry the fingerprint.
func (v *Verb) needsFingerprint() bool { return v.Class == ClassSpawn || v.RequireFingerprint }

// Dynamic describes a verb's dynamic parameter.
type Dynamic struct {
	// Param is the schema name of the parameter whose value selects what is
	// injected ("playbook").
	Param string
	// Inject performs the CLI's own injection for a value.
	Inject projector.Injector
}

// Preparer is a verb's argument-preparation hook (dispatch.PromptSnapshots
// is a ready one). It receives the validated args and returns the args to
// render, information merged into the op's result object, and a cleanup run
// after the command exits (nil for none). An error implementing Param() string becomes an invalid_args
// problem on that parameter; any other error is invalid_args with param "".
type Preparer func(ctx context.Context, args map[string]any) (prepared map[string]any, info map[string]any, cleanup func(), err error)

// Handler runs a verb backed by Go logic instead of its command. Its result
// must marshal to JSON; it becomes the op's "result". An error implementing
// Param() string is the handler refusing an argument the schema could not
// rule out (job.kill's grace of zero): it becomes an invalid_args problem on
// that parameter, with the schema, fingerprint and help call every argument
// error carries. An error implementing ErrorCode() string whose code is one
// of the surface's codes (for example a dispatch failure or cli_error) keeps
// that code; any other error is reported as handler_error with the
// handler's own code in details. The error's message is its
// ErrorMessage() string when it has that method (a sentence for the
// caller, without the Go package prefix its Error text carries), else its
// Error text.
type Handler func(ctx context.Context, call *Call) (any, error)

// Call is what a Handler receives.
type Call struct {
	Verb  string         // the registered verb name
	Class Class          // its class
	Args  map[string]any // validated (and prepared) args, numbers normalised
	// Runner runs CLI commands (argv without the program) through the
	// surface's [Options].Runner, for handlers that call the CLI themselves.
	Runner Runner
	// Progress reports progress to the client when it asked for it (an MCP
	// progress token); otherwise it does nothing. Never nil.
	Progress ProgressFunc
	// Spawns is the op's access to its client's spawn bucket, for the
	// handler of a verb marked [Verb].Spawns: the handler takes a token
	// for each run it starts. Nil for every other verb.
	Spawns *SpawnTokens
}

// ProgressFunc reports progress on a long-running op. progress should
// increase on every call; total is 0 when unknown.
type ProgressFunc func(ctx context.Context, progress, total float64, message string)

func noProgress(context.Context, float64, float64, string) {}

// Runner runs one CLI command and returns the data member of its ok machine
// result. argv excludes the program. Every error should
// implement ErrorCode() string (and optionally ErrorDetails()
// map[string]any); dispatch.Runner satisfies it.
type Runner interface {
	Run(ctx context.Context, argv []string) (json.RawMessage, error)
}

// RunnerFunc adapts a function to [Runner].
type RunnerFunc func(ctx context.Context, argv []string) (json.RawMessage, error)

// Run calls f.
func (f RunnerFunc) Run(ctx context.Context, argv []string) (json.RawMessage, error) {
	return f(ctx, argv)
}

// paramError is an error about one argument: a preparer's or a handler's
// refusal of a value the schema admitted.
type paramError interface {
	error
	Param() string
}

// ChainPreparers runs ps in order as one [Preparer]: each gets the args the
// previous one prepared, their info is merged (a later key wins), and every
// cleanup of those that ran is run, last first, by the returned cleanup.
// The first error stops the chain; the cleanups of those that ran are then
// run at once. A verb with both a prompt and a spec file chains
// dispatch.PromptSnapshots and dispatch.FileSnapshots this way.
func ChainPreparers(ps ...Preparer) Preparer {
	return func(ctx context.Context, args map[string]any) (map[string]any, map[string]any, func(), error) {
		info := map[string]any{}
		var cleanups []func()
		cleanup := func() {
			for i := len(cleanups) - 1; i >= 0; i-- {
				cleanups[i]()
			}
		}
		for _, p := range ps {
			prepared, in, c, err := p(ctx, args)
			if c != nil {
				cleanups = append(cleanups, c)
			}
			if err != nil {
				cleanup()
				return nil, nil, func() {}, err
			}
			if prepared != nil {
				args = prepared
			}
			for k, v := range in {
				info[k] = v
			}
		}
		return args, info, cleanup, nil
	}
}
