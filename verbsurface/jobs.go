package verbsurface

import (
	"context"
	"fmt"
	"sync/atomic"
	"time"

	"github.com/verbsurface/verbsurface/wait"
)

// WaitHandlerOptions configure [WaitHandler]. A nil *WaitHandlerOptions
// is the zero value; every field but Observe has a working default.
type WaitHandlerOptions struct {
	// Observe is the CLI's observe command before "--" and the ids,
	// machine-mode arguments included (["job", "observe", "--json"]); its
	// data must be {"observations": [...]} (wait.CLIObserver). It has no
	// default: with none, every call fails with internal_error naming it.
	Observe []string
	// Outcomes maps the CLI's terminal statuses to outcomes; nil means
	// wait.DefaultOutcomes.
	Outcomes wait.OutcomeTable
	// Runner runs the observe command when the Call carries no Runner
	// (Call.Runner is normally the surface's own).
	Runner Runner
	// Observer, when set, observes the runs itself instead of running
	// Observe through a runner: a server that keeps its runs' lifecycle
	// (`verbsurface serve`'s background runs) rather than a CLI's.
	Observer wait.Observer
	// Progress, when set, replaces the default progress rule (a
	// notification on the first poll and whenever more ids are terminal):
	// it is called after every poll and returns the notification to send,
	// if any. progress must increase from one notification to the next.
	Progress func(p wait.Progress) (progress, total float64, message string, send bool)
	// Wake, when set, gives each call a wake channel (wait.Options.Wake)
	// that lives as long as ctx: a store or notification signal that makes
	// the wait observe at once. Polling stays the correctness path.
	Wake func(ctx context.Context) <-chan struct{}
	// MaxIDs caps the distinct ids of one call ([DefaultMaxWaitIDs] when
	// zero; negative: no cap). The projected schema may carry no maxItems
	// (an argparse nargs="+"), and every id is one argument of every
	// observe command of the wait: without a cap a caller could make each
	// poll an argv the kernel refuses, or a huge observation. More is
	// invalid_args on "ids", before anything runs.
	MaxIDs int
	// MaxRequestWait bounds the time the wait ops of one request spend
	// waiting, together ([DefaultMaxRequestWait] when zero; negative: no
	// bound beyond each op's own, wait.MaxWaitLimit). Each op's window is
	// what the request has left, at most: sixteen ops of 300 s each made a
	// request of 80 minutes. A window cut short is echoed as the op's
	// max_wait_seconds; an op with nothing left observes once.
	MaxRequestWait time.Duration
}

// DefaultMaxRequestWait is WaitHandler's bound on a request's total wait:
// one op's own limit, wait.MaxWaitLimit.
const DefaultMaxRequestWait = wait.MaxWaitLimit

// requestWaitKey marks a request's context with the time its wait ops
// have spent so far (*atomic.Int64, nanoseconds); Surface.Handle sets it.
type requestWaitKey struct{}

func withRequestWait(ctx context.Context) context.Context {
	return context.WithValue(ctx, requestWaitKey{}, new(atomic.Int64))
}

// DefaultMaxWaitIDs is WaitHandler's cap on the distinct ids of one call,
// the limit limcp's own job wait states in its schema.
const DefaultMaxWaitIDs = 256

// waitArgError refuses an argument the schema admitted: the surface reports
// it as invalid_args on that parameter, with the schema and help call.
type waitArgError struct {
	param, msg string
}

func (e *waitArgError) Error() string { return e.msg }
func (e *waitArgError) Param() string { return e.param }

// WaitHandler is a job.wait [Handler] over package wait: a bounded
// observation through the CLI's observe command that always ends in the
// four-way partition (wait.Result). Register it on a verb whose Path is
// the CLI's wait command, so the schema is that command's projection: its
// args are "ids", "max_wait_seconds" and "poll_interval_seconds"
// (wait.ParseArgs). When the client sent a progress token, the first poll
// and every poll that finds more ids terminal notify progress (terminal
// ids of distinct ids). The wait never writes: a client that cancels or
// goes away ends the observation, not the runs.
//
// The options are read when WaitHandler is called: changing *o afterwards
// does not change the handler.
//
// The glue lives here, not in package wait, so that wait stays free of
// MCP and of this package.
func WaitHandler(opts *WaitHandlerOptions) Handler {
	var o WaitHandlerOptions
	if opts != nil {
		o = *opts
	}
	observe := append([]string(nil), o.Observe...)
	maxIDs := o.MaxIDs
	if maxIDs == 0 {
		maxIDs = DefaultMaxWaitIDs
	}
	budget := o.MaxRequestWait
	if budget == 0 {
		budget = DefaultMaxRequestWait
	}
	return func(ctx context.Context, call *Call) (any, error) {
		req, err := wait.ParseArgs(call.Args)
		if err != nil {
			// The schema admitted these args, so this is the embedder's
			// bug (a verb whose Path is not a wait command), not the caller's.
			return nil, &jobError{code: CodeInternalError, msg: fmt.Sprintf("verbsurface: verb %q: %v", call.Verb, err)}
		}
		if len(observe) == 0 && o.Observer == nil {
			// Without a command the observation would run the bare ids
			// after "--": the embedder's bug, said as such.
			return nil, &jobError{code: CodeInternalError, msg: fmt.Sprintf("verbsurface: verb %q: WaitHandlerOptions.Observe is empty: no observe command to run", call.Verb)}
		}
		if maxIDs > 0 {
			distinct := make(map[string]bool, len(req.IDs))
			for _, id := range req.IDs {
				distinct[id] = true
				if len(distinct) > maxIDs {
					return nil, &waitArgError{param: "ids", msg: fmt.Sprintf(
						"more than %d distinct ids in one call; wait for them in calls of at most %d", maxIDs, maxIDs)}
				}
			}
		}
		exec := call.Runner
		if exec == nil {
			exec = o.Runner
		}
		var observer wait.Observer = wait.CLIObserver{Runner: exec, Command: observe}
		if o.Observer != nil {
			observer = o.Observer
		} else if exec == nil {
			return nil, &jobError{code: CodeInternalError, msg: fmt.Sprintf("verbsurface: verb %q: no runner to run the observe command", call.Verb)}
		}
		wctx, stop := context.WithCancel(ctx)
		defer stop()
		opts := req.Opts
		opts.Outcomes = o.Outcomes
		if o.Wake != nil {
			opts.Wake = o.Wake(wctx)
		}
		progress := call.Progress
		if progress == nil {
			progress = noProgress
		}
		opts.OnPoll = wait.Increasing(func(terminal, total int, msg string) {
			progress(ctx, float64(terminal), float64(total), msg)
		})
		if o.Progress != nil {
			opts.OnPoll = func(p wait.Progress) {
				if n, total, msg, send := o.Progress(p); send {
					progress(ctx, n, total, msg)
				}
			}
		}
		spent, _ := ctx.Value(requestWaitKey{}).(*atomic.Int64)
		if spent != nil && budget > 0 {
			window := wait.DefaultMaxWait
			if opts.MaxWait != nil {
				window = max(0, min(wait.MaxWaitLimit, *opts.MaxWait))
			}
			if left := max(0, budget-time.Duration(spent.Load())); window > left {
				opts.MaxWait = &left
			}
			start := time.Now()
			defer func() { spent.Add(int64(time.Since(start))) }()
		}
		res, err := wait.Wait(ctx, observer, req.IDs, &opts)
		if err != nil {
			// A *wait.DecodeError inside carries invalid_result; the
			// runner's errors their own codes.
			return nil, err
		}
		return res, nil
	}
}

// jobError is a job handler's failure with a code of the surface's set.
type jobError struct {
	code string
	msg  string
}

func (e *jobError) Error() string     { return e.msg }
func (e *jobError) ErrorCode() string { return e.code }
