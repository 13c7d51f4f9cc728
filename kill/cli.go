//go:build unix

package kill

import (
	"context"
	"encoding/json"
	"fmt"
	"time"
)

// RuleIDOnly is the rule of a [CLI] without a status command: the id
// is delegated to the CLI's kill as the caller gave it, and the CLI
// resolves it and refuses what it cannot kill. It is not one of
// [Decide]'s rules (Decide needs a kind, which only a status command can
// tell); like them it never signals anything.
const RuleIDOnly Rule = "id_only"

// CodeInvalidResult is the code of a status command whose data does not
// name exactly one record (verbsurface's invalid_result; a test holds them
// equal).
const CodeInvalidResult = "invalid_result"

// ArgError is a job.kill argument the schema admits but the kill cannot
// use (a grace that is not a positive duration). Param names it, so a
// surface reports invalid_args on that parameter.
type ArgError struct {
	param string
	msg   string
}

func (e *ArgError) Error() string { return e.msg }

// Param is the argument's name.
func (e *ArgError) Param() string { return e.param }

// MaxGrace is the longest grace ParseGrace accepts. The grace is how long
// the CLI's kill waits between SIGTERM and SIGKILL, per entity, and the
// kill runs to its end whatever the caller does (a control op is not
// cancelled with its request): an unbounded grace from a caller would let
// a few kills of runs that ignore SIGTERM hold the server's command slots
// for as long as the caller liked.
const MaxGrace = 5 * time.Minute

// ParseGrace reads the optional "grace" argument of a kill command (a Go
// duration string such as "5s", positive and at most [MaxGrace]); zero
// when absent.
func ParseGrace(args map[string]any) (time.Duration, error) {
	v, present := args["grace"]
	if !present || v == nil {
		return 0, nil
	}
	g, ok := v.(string)
	d, err := time.ParseDuration(g)
	if !ok || err != nil || d <= 0 {
		return 0, &ArgError{param: "grace", msg: fmt.Sprintf("grace %v must be a positive duration: it is the time between SIGTERM and SIGKILL", v)}
	}
	if d > MaxGrace {
		return 0, &ArgError{param: "grace", msg: fmt.Sprintf("grace %v is longer than %v, the longest a caller may make a kill wait between SIGTERM and SIGKILL", v, MaxGrace)}
	}
	return d, nil
}

// PathArgv is the [ArgvFunc] of a CLI whose kill command is prefix
// (its path with the machine-mode arguments where the CLI takes them):
// prefix [--grace=D] -- ID. [ReferenceArgv] is PathArgv of
// ["kill", "--json"].
func PathArgv(prefix []string) ArgvFunc {
	prefix = append([]string(nil), prefix...)
	return func(e Entity, grace time.Duration) []string {
		argv := append([]string(nil), prefix...)
		if grace > 0 {
			argv = append(argv, "--grace="+grace.String())
		}
		return append(argv, "--", e.ID)
	}
}

// statusError is a status command whose data is not one record.
type statusError struct{ msg string }

func (e *statusError) Error() string     { return e.msg }
func (e *statusError) ErrorCode() string { return CodeInvalidResult }

// LookupRecord asks the CLI for the durable identity of id by running
// `status... -- ID`. The command's data must be {"records": [{"id",
// "kind"}]} with exactly one record and a non-empty id (limcp's `job
// status --json`, for instance; other members are ignored); the record's full id
// and kind are the [Record]. An unknown or ambiguous id is the CLI's
// error, returned as it came.
func LookupRecord(ctx context.Context, runner Runner, status []string, id string) (Record, error) {
	argv := append(append(append([]string(nil), status...), "--"), id)
	data, err := runner.Run(ctx, argv)
	if err != nil {
		return Record{}, err
	}
	var d struct {
		Records []struct {
			ID   string `json:"id"`
			Kind string `json:"kind"`
		} `json:"records"`
	}
	if err := json.Unmarshal(data, &d); err != nil || len(d.Records) != 1 || d.Records[0].ID == "" {
		return Record{}, &statusError{msg: fmt.Sprintf("kill: status command %q for %s: expected one record with an id, got %s", status, id, clip(data, 200))}
	}
	r := d.Records[0]
	return Record{Kind: Kind(r.Kind), ID: r.ID}, nil
}

func clip(b []byte, n int) string {
	if len(b) > n {
		return string(b[:n]) + "…"
	}
	return string(b)
}

// CLI is job.kill for a CLI that kills its own runs: the generic
// delegated kill. With a Status command it looks the record up
// ([LookupRecord]) and lets [Decide] choose (a show is refused, a play,
// session or invocation is delegated, any other kind is refused as
// undelegable; Kinds maps a CLI's own kinds first); without one it
// delegates the id as given ([RuleIDOnly]).
// A delegation runs `Kill... [--grace=D] -- ID` ([PathArgv]) and
// returns the CLI's outcome unchanged. It never signals a process: a
// record learned from the CLI carries no server-created group, and a
// failed or partial kill is reported as it is, with no raw-signal
// fallback (see the package documentation).
type CLI struct {
	// Runner runs the status command, and the kill when KillRunner is nil.
	Runner Runner
	// Status is the status command's argv before "--" (machine arguments
	// included), or nil for none.
	Status []string
	// Kill is the kill command's argv before the options (machine
	// arguments included), e.g. ["kill", "--json"].
	Kill []string
	// Kinds maps the status command's kinds to kill's ({"job":
	// "invocation"}), for a CLI whose words differ from this package's
	// [Kind] values; a kind not listed is decided on as it is.
	Kinds map[string]Kind
	// KillRunner, when set, gives the runner of the kill itself for a
	// grace: one whose timeout leaves the CLI room for its graces (SIGTERM,
	// grace, SIGKILL, per entity of a tree), so a dispatch timeout never
	// stops a kill half-way.
	KillRunner func(grace time.Duration) (Runner, error)
}

// Run kills id with grace (zero: the CLI's default) and returns the
// job.kill [Result]; the error is non-nil whenever the target was not
// stopped ([Killer.Kill]), or when the lookup failed (the CLI's error,
// or a status result that names no single record).
func (k CLI) Run(ctx context.Context, id string, grace time.Duration) (Result, error) {
	if id == "" {
		return Result{}, &ArgError{param: "id", msg: "kill: the id is empty"}
	}
	if len(k.Status) == 0 {
		e, err := k.killer(grace)
		if err != nil {
			return Result{}, err
		}
		ent := Entity{ID: id}
		res := Result{Decision: Decision{Action: ActionDelegate, Rule: RuleIDOnly,
			Reason: fmt.Sprintf("%q: no status command is configured; the CLI's kill resolves the id and records why", id),
			Entity: &ent}}
		del, err := e.delegate(ctx, ent)
		res.Delegated = &del
		return res, err
	}
	rec, err := LookupRecord(ctx, k.Runner, k.Status, id)
	if err != nil {
		return Result{}, err
	}
	if mapped, ok := k.Kinds[string(rec.Kind)]; ok {
		rec.Kind = mapped
	}
	e, err := k.killer(grace)
	if err != nil {
		return Result{}, err
	}
	return e.Kill(ctx, rec)
}

// killer is the Killer of one kill, built once the id is known to need
// one: its runner is KillRunner's for the grace, else Runner.
func (k CLI) killer(grace time.Duration) (*Killer, error) {
	runner := k.Runner
	if k.KillRunner != nil {
		r, err := k.KillRunner(grace)
		if err != nil {
			return nil, err
		}
		runner = r
	}
	return NewKiller(runner, &Options{Argv: PathArgv(k.Kill), Grace: grace}), nil
}
