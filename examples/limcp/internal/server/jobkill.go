//go:build unix

package server

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/verbsurface/verbsurface/dispatch"
	"github.com/verbsurface/verbsurface/kill"
	"github.com/verbsurface/verbsurface/verbsurface"
)

// jobKill is the job.kill handler (package kill). Its args are those of the
// projected `kill` schema (id, grace). It reads the record's kind with
// `limcp job status --json -- ID`, lets kill.Decide choose, and delegates
// to `limcp kill` (kill.ReferenceKillArgv): the CLI reaps transitively
// (play → session → invocations) and records every end. A show is refused
// (show_kill_unsupported). A failed or partial delegated kill is reported
// as it is, with the CLI's code and details; there is no raw-signal
// fallback. job.kill is a control verb: exempt from the fingerprint, and
// run without the request's cancellation (contract C6), so a client that
// goes away cannot leave a half-done kill.
func (s *Server) jobKill(ctx context.Context, call *verbsurface.Call) (any, error) {
	id, _ := call.Args["id"].(string)
	var grace time.Duration
	if g, ok := call.Args["grace"].(string); ok {
		d, err := time.ParseDuration(g)
		if err != nil || d <= 0 {
			return nil, &argError{param: "grace", msg: fmt.Sprintf("grace %q must be a positive duration: it is the time between SIGTERM and SIGKILL", g)}
		}
		grace = d
	}
	exec := call.Exec
	if exec == nil {
		exec = s.runner
	}
	rec, err := lookupRecord(ctx, exec, id)
	if err != nil {
		return nil, err
	}
	runner, err := s.killRunner(grace)
	if err != nil {
		return nil, err
	}
	res, err := kill.NewExecutor(runner, &kill.Options{Grace: grace}).Kill(ctx, rec)
	if err != nil {
		return nil, err
	}
	return res, nil
}

// killRunner is a runner whose timeout leaves the CLI's kill room for its
// graces (SIGTERM, grace, SIGKILL, per entity of a tree), so the dispatch
// timeout never stops a kill half-way.
func (s *Server) killRunner(grace time.Duration) (kill.Runner, error) {
	if grace <= 0 {
		grace = kill.DefaultGrace
	}
	r, err := dispatch.NewRunner(s.exe, dispatch.Options{Env: s.commandEnv(), Timeout: 2*time.Minute + 4*grace})
	if err != nil {
		return nil, err
	}
	return r, nil
}

// lookupRecord asks the CLI for the record's durable identity: its full id
// and kind. An unknown or ambiguous id comes back as the CLI's error.
func lookupRecord(ctx context.Context, exec verbsurface.Executor, id string) (kill.Record, error) {
	data, err := exec.Run(ctx, []string{"job", "status", "--json", "--", id})
	if err != nil {
		return kill.Record{}, err
	}
	var d struct {
		Records []struct {
			ID   string `json:"id"`
			Kind string `json:"kind"`
		} `json:"records"`
	}
	if err := json.Unmarshal(data, &d); err != nil || len(d.Records) != 1 || d.Records[0].ID == "" {
		return kill.Record{}, &codedError{code: verbsurface.CodeInvalidResult,
			msg: fmt.Sprintf("limcp job status %s: expected one record with an id, got %s", id, clip(data, 200))}
	}
	r := d.Records[0]
	return kill.Record{Kind: kill.EntityKind(r.Kind), ID: r.ID}, nil
}

func clip(b []byte, n int) string {
	if len(b) > n {
		return string(b[:n]) + "…"
	}
	return string(b)
}
