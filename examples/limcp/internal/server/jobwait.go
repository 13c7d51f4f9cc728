//go:build unix

package server

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/verbsurface/verbsurface/verbsurface"
	"github.com/verbsurface/verbsurface/wait"
)

// cliObserver is job.wait's lifecycle authority: one `limcp job observe
// --json -- IDS...` per poll, for every id at once, through the runner. The
// CLI reads the store (and performs the fenced reap); the server only reads
// the machine result.
type cliObserver struct {
	exec verbsurface.Executor
}

// observeArgv is the command one poll runs.
func observeArgv(ids []string) []string {
	return append([]string{"job", "observe", "--json", "--"}, ids...)
}

func (o cliObserver) Observe(ctx context.Context, ids []string) ([]wait.Observation, error) {
	data, err := o.exec.Run(ctx, observeArgv(ids))
	if err != nil {
		return nil, err
	}
	return decodeObservations(data)
}

// decodeObservations reads the data of `job observe`.
func decodeObservations(data json.RawMessage) ([]wait.Observation, error) {
	var d struct {
		Observations *[]wait.Observation `json:"observations"`
	}
	if err := json.Unmarshal(data, &d); err != nil {
		return nil, &codedError{code: verbsurface.CodeInvalidResult,
			msg: fmt.Sprintf("limcp job observe: the data is not an observation list: %v", err)}
	}
	if d.Observations == nil {
		return nil, &codedError{code: verbsurface.CodeInvalidResult,
			msg: "limcp job observe: the data has no observations member"}
	}
	return *d.Observations, nil
}

// jobWait is the job.wait handler: package wait over the CLI's observation,
// woken early by the store signal and by terminal notifications of the runs
// this server submitted. Its args are those of the projected `job wait`
// schema (ids, max_wait_seconds, poll_interval_seconds).
//
// Progress: when the client sent a progress token, the first poll and every
// poll that finds more ids terminal send a notification whose progress is
// the number of terminal ids and whose total is the number of distinct ids.
// MCP requires progress to increase with every notification, so a poll
// that learned nothing new sends none.
//
// The wait never writes and never touches a run: a client that disconnects
// or cancels ends the observation (the observe subprocess is stopped), and
// the run goes on.
func (s *Server) jobWait(ctx context.Context, call *verbsurface.Call) (any, error) {
	ids, err := stringList(call.Args["ids"])
	if err != nil {
		return nil, err
	}
	var opts wait.Options
	if v, ok := call.Args["max_wait_seconds"].(float64); ok {
		opts.MaxWait = wait.Seconds(v)
	}
	if v, ok := call.Args["poll_interval_seconds"].(float64); ok {
		opts.PollInterval = wait.Seconds(v)
	}
	wctx, stop := context.WithCancel(ctx)
	defer stop()
	if !s.opts.NoStoreSignal || s.notify != nil {
		opts.Wake = s.hub.subscribe(wctx, WakeGap)
	}
	reported := -1
	opts.OnPoll = func(p wait.Progress) {
		if p.Terminal <= reported {
			return
		}
		reported = p.Terminal
		call.Progress(ctx, float64(p.Terminal), float64(p.Total),
			fmt.Sprintf("%d of %d terminal after %d polls", p.Terminal, p.Total, p.Poll))
	}
	exec := call.Exec
	if exec == nil {
		exec = s.runner
	}
	res, err := wait.Wait(ctx, cliObserver{exec: exec}, ids, opts)
	if err != nil {
		return nil, err
	}
	return res, nil
}

// stringList reads a validated array-of-strings argument.
func stringList(v any) ([]string, error) {
	items, ok := v.([]any)
	if !ok {
		return nil, &codedError{code: verbsurface.CodeInternalError, msg: fmt.Sprintf("job.wait: ids is %T, not a list", v)}
	}
	out := make([]string, len(items))
	for i, it := range items {
		s, ok := it.(string)
		if !ok {
			return nil, &codedError{code: verbsurface.CodeInternalError, msg: fmt.Sprintf("job.wait: ids[%d] is %T, not a string", i, it)}
		}
		out[i] = s
	}
	return out, nil
}

// codedError is a handler failure with a code of the surface's set (or
// the handler's own, reported under handler_error).
type codedError struct {
	code    string
	msg     string
	details map[string]any
}

func (e *codedError) Error() string                { return e.msg }
func (e *codedError) ErrorCode() string            { return e.code }
func (e *codedError) ErrorDetails() map[string]any { return e.details }

// argError is a handler refusing one argument the projected schema admits;
// the surface reports it as invalid_args on that parameter, with the schema
// and the help call (verbsurface.Handler).
type argError struct {
	param string
	msg   string
}

func (e *argError) Error() string { return e.msg }
func (e *argError) Param() string { return e.param }
