package wait

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
)

// Runner runs one command of the CLI and returns the data member of its
// ok machine result: the Run(ctx, argv) method that verbsurface.Runner and
// kill.Runner declare too and dispatch.Runner implements. It is declared
// here so that this package imports none of them. argv excludes
// the program. An error should carry ErrorCode() string, as dispatch's do;
// [Wait] passes it through wrapped in an [*ObserveError].
type Runner interface {
	Run(ctx context.Context, argv []string) (json.RawMessage, error)
}

// CodeInvalidResult is the code of a [DecodeError]: the observe command's
// data is not an observation list. It is verbsurface's invalid_result (a
// test holds them equal), so a surface reports it as the CLI's fault.
const CodeInvalidResult = "invalid_result"

// DecodeError is an observe command whose data could not be read as
// {"observations": [...]}. It carries [CodeInvalidResult].
type DecodeError struct {
	Command []string // the observe command, without the ids
	Msg     string
}

func (e *DecodeError) Error() string {
	return fmt.Sprintf("wait: observe command %q: %s", e.Command, e.Msg)
}

// ErrorCode is [CodeInvalidResult].
func (e *DecodeError) ErrorCode() string { return CodeInvalidResult }

// CLIObserver is an [Observer] over a CLI's observe command: one
// subprocess per poll for every id at once, `COMMAND... -- ID...`, whose
// machine result's data is {"observations": [Observation...]} (limcp's
// `job observe --json`, for instance; see [Observation] for the members).
// Command is the whole argv before the ids, machine-mode arguments
// included (["job", "observe", "--json"]); "--" is added so an id that
// begins with a dash stays an id. The CLI reads its lifecycle store (and
// performs any fenced reap itself); the observer only decodes.
type CLIObserver struct {
	Runner  Runner
	Command []string
}

// Argv is the command one poll of ids runs.
func (o CLIObserver) Argv(ids []string) []string {
	argv := make([]string, 0, len(o.Command)+1+len(ids))
	argv = append(argv, o.Command...)
	argv = append(argv, "--")
	return append(argv, ids...)
}

// Observe runs the observe command once for every id.
func (o CLIObserver) Observe(ctx context.Context, ids []string) ([]Observation, error) {
	if o.Runner == nil {
		return nil, fmt.Errorf("wait: observe command %q: no runner", o.Command)
	}
	data, err := o.Runner.Run(ctx, o.Argv(ids))
	if err != nil {
		return nil, err
	}
	obs, err := DecodeObservations(data)
	if err != nil {
		err.(*DecodeError).Command = o.Command
		return nil, err
	}
	return obs, nil
}

// DecodeObservations reads an observe command's data: an object whose
// "observations" member is the list, one [Observation] per id. A missing
// member is an error, not an empty list: an observer must answer for
// every id. The error is a [*DecodeError].
func DecodeObservations(data json.RawMessage) ([]Observation, error) {
	var d struct {
		Observations *[]Observation `json:"observations"`
	}
	if err := json.Unmarshal(data, &d); err != nil {
		return nil, &DecodeError{Msg: fmt.Sprintf("the data is not an observation list: %v", err)}
	}
	if d.Observations == nil {
		return nil, &DecodeError{Msg: "the data has no observations member"}
	}
	return *d.Observations, nil
}

// ArgsError is a job.wait argument of the wrong type. The projected
// schema makes it impossible through a surface; it names the argument for
// a caller that builds args by hand.
type ArgsError struct {
	Param string
	Msg   string
}

func (e *ArgsError) Error() string { return "wait: argument " + e.Param + ": " + e.Msg }

// Request is a job.wait call read from its arguments, as the projected
// schema of a CLI's wait command names them: "ids" (a list of strings,
// required), "max_wait_seconds" and "poll_interval_seconds" (numbers,
// optional). Other arguments are ignored: the handler's bounds are these.
type Request struct {
	IDs  []string
	Opts Options // MaxWait and PollInterval set when given
}

// ParseArgs reads a [Request] from validated arguments (JSON numbers as
// float64, lists as []any).
func ParseArgs(args map[string]any) (Request, error) {
	var r Request
	items, ok := args["ids"].([]any)
	if !ok {
		return r, &ArgsError{Param: "ids", Msg: fmt.Sprintf("is %T, not a list of ids", args["ids"])}
	}
	r.IDs = make([]string, len(items))
	for i, it := range items {
		s, ok := it.(string)
		if !ok {
			return r, &ArgsError{Param: "ids", Msg: fmt.Sprintf("item %d is %T, not a string", i, it)}
		}
		r.IDs[i] = s
	}
	if v, present := args["max_wait_seconds"]; present {
		f, ok := number(v)
		if !ok {
			return r, &ArgsError{Param: "max_wait_seconds", Msg: fmt.Sprintf("is %T, not a number", v)}
		}
		r.Opts.MaxWait = Seconds(f)
	}
	if v, present := args["poll_interval_seconds"]; present {
		f, ok := number(v)
		if !ok {
			return r, &ArgsError{Param: "poll_interval_seconds", Msg: fmt.Sprintf("is %T, not a number", v)}
		}
		r.Opts.PollInterval = Seconds(f)
	}
	return r, nil
}

func number(v any) (float64, bool) {
	switch n := v.(type) {
	case float64:
		return n, !math.IsInf(n, 0)
	case int:
		return float64(n), true
	case int64:
		return float64(n), true
	case json.Number:
		f, err := n.Float64()
		return f, err == nil
	}
	return 0, false
}

// Increasing adapts a progress reporter to [Options].OnPoll so that it is
// called only when the count of terminal ids grows (and on the first
// poll): MCP requires every progress notification to increase, so a poll
// that learned nothing new reports nothing. report gets the terminal
// count, the total of distinct ids and a one-line message.
func Increasing(report func(terminal, total int, message string)) func(Progress) {
	reported := -1
	return func(p Progress) {
		if p.Terminal <= reported {
			return
		}
		reported = p.Terminal
		report(p.Terminal, p.Total, fmt.Sprintf("%d of %d terminal after %d polls", p.Terminal, p.Total, p.Poll))
	}
}
