//go:build unix

package run

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"time"

	"github.com/verbsurface/verbsurface/examples/limcp/internal/provider"
	"github.com/verbsurface/verbsurface/examples/limcp/internal/store"
	"github.com/verbsurface/verbsurface/internal/procid"
)

// TimeoutGrace is how long a timed-out provider gets between SIGTERM and
// SIGKILL.
const TimeoutGrace = 2 * time.Second

// Work runs record id in this process: the body of `limcp __worker ID`.
// It returns nil when the record was already terminal (killed before it
// started): there is nothing to do.
func (rt *Runtime) Work(ctx context.Context, id string) error {
	rec, err := rt.Store.Get(ctx, id)
	if err != nil {
		return err
	}
	rec, started, err := rt.start(ctx, rec)
	if err != nil || !started {
		return err
	}
	switch rec.Kind {
	case store.KindInvocation:
		return rt.runInvocation(ctx, rec)
	case store.KindSession:
		st, reason := rt.runSession(ctx, rec)
		_, err := rt.end(ctx, rec, st, reason, nil, ActorCoordinator)
		return err
	case store.KindPlay:
		return rt.runPlay(ctx, rec)
	}
	return fmt.Errorf("worker: record %s has kind %q, which has no worker", id, rec.Kind)
}

// start records this process as the run's process: preparing → running
// with pid, pgid and start time, in one compare-and-set. started is false
// when the record is already terminal.
func (rt *Runtime) start(ctx context.Context, rec store.Record) (store.Record, bool, error) {
	if rec.Terminal() {
		return rec, false, nil
	}
	if rec.Status != store.StatusPreparing {
		return rec, false, fmt.Errorf("worker: record %s is %s, not preparing: another worker has it", rec.ID, rec.Status)
	}
	proc, err := self()
	if err != nil {
		return rec, false, err
	}
	next, err := rt.Store.Transition(ctx, store.Change{ID: rec.ID, Version: rec.Version, To: store.StatusRunning,
		Reason: ReasonStarted, Actor: ActorWorker, Process: proc})
	if errors.Is(err, store.ErrTerminal) {
		return rec, false, nil
	}
	if err != nil {
		return rec, false, err
	}
	return next, true, nil
}

func self() (*store.Process, error) {
	id, err := procid.Of(os.Getpid())
	if err != nil {
		return nil, fmt.Errorf("worker: reading own identity: %w", err)
	}
	return &store.Process{PID: id.PID, PGID: syscall.Getpgrp(), StartTime: id.StartTime}, nil
}

// end records a terminal status. A refusal because the record is already
// terminal (a kill or a reap got there first) is not an error: the first
// writer wins.
func (rt *Runtime) end(ctx context.Context, rec store.Record, to store.Status, reason string, exit *int, actor string) (store.Record, error) {
	ctx = context.WithoutCancel(ctx)
	next, err := rt.Store.Transition(ctx, store.Change{ID: rec.ID, Version: rec.Version, To: to, Reason: reason, Actor: actor, ExitCode: exit})
	if errors.Is(err, store.ErrTerminal) || errors.Is(err, store.ErrConflict) {
		cur, gerr := rt.Store.Get(ctx, rec.ID)
		if gerr != nil {
			return rec, gerr
		}
		return cur, nil
	}
	return next, err
}

// providerResult is how a provider run ended.
type providerResult struct {
	status   store.Status
	reason   string
	exit     *int
	external bool // killed by a signal this worker did not send: leave the record to the killer
}

func (rt *Runtime) runInvocation(ctx context.Context, rec store.Record) error {
	var spec InvocationSpec
	if err := json.Unmarshal(rec.Spec, &spec); err != nil {
		_, _ = rt.end(ctx, rec, store.StatusFailed, ReasonWorkerError, nil, ActorWorker)
		return fmt.Errorf("worker: record %s: bad spec: %w", rec.ID, err)
	}
	dir := Dir(rt.Home, rec.ID)
	// 0600, not os.Create's 0666: a run's output is its user's alone,
	// whatever the umask.
	stdout, err := os.OpenFile(filepath.Join(dir, StdoutFile), os.O_RDWR|os.O_CREATE|os.O_TRUNC, 0o600)
	if err != nil {
		_, _ = rt.end(ctx, rec, store.StatusFailed, ReasonWorkerError, nil, ActorWorker)
		return err
	}
	defer stdout.Close()
	stderr, err := os.OpenFile(filepath.Join(dir, StderrFile), os.O_RDWR|os.O_CREATE|os.O_TRUNC, 0o600)
	if err != nil {
		_, _ = rt.end(ctx, rec, store.StatusFailed, ReasonWorkerError, nil, ActorWorker)
		return err
	}
	defer stderr.Close()
	runCtx := ctx
	if spec.Timeout > 0 {
		var cancel context.CancelFunc
		runCtx, cancel = context.WithTimeout(ctx, time.Duration(spec.Timeout))
		defer cancel()
	}
	var res providerResult
	if spec.Provider.Echo != nil {
		res = runEcho(runCtx, spec, filepath.Join(dir, PromptFile), stdout, stderr)
	} else {
		res = runCommand(runCtx, rec.ID, spec, dir, rt.Secrets, stdout, stderr)
	}
	if res.external {
		return nil
	}
	_, err = rt.end(ctx, rec, res.status, res.reason, res.exit, ActorWorker)
	return err
}

func exited(code int) providerResult {
	if code == 0 {
		return providerResult{status: store.StatusCompleted, reason: ReasonExit0, exit: &code}
	}
	return providerResult{status: store.StatusFailed, reason: ReasonExitNonzero, exit: &code}
}

func runEcho(ctx context.Context, spec InvocationSpec, promptPath string, stdout, stderr *os.File) providerResult {
	e := spec.Provider.Echo
	prompt, err := os.ReadFile(promptPath)
	if err != nil {
		fmt.Fprintf(stderr, "echo: reading the prompt: %v\n", err)
		return providerResult{status: store.StatusFailed, reason: ReasonLaunchError}
	}
	if e.Delay > 0 {
		t := time.NewTimer(e.Delay)
		select {
		case <-t.C:
		case <-ctx.Done():
			t.Stop()
			return providerResult{status: store.StatusTimedOut, reason: ReasonDeadline}
		}
	}
	if ctx.Err() != nil {
		return providerResult{status: store.StatusTimedOut, reason: ReasonDeadline}
	}
	stdout.Write(prompt)
	if e.Stderr != "" {
		fmt.Fprintln(stderr, e.Stderr)
	}
	return exited(e.Exit)
}

func runCommand(ctx context.Context, id string, spec InvocationSpec, dir string, secrets map[string]string, stdout, stderr *os.File) providerResult {
	argv, err := spec.Provider.Expand(provider.Vars{ID: id, Cwd: spec.Cwd, RunDir: dir})
	if err != nil {
		fmt.Fprintf(stderr, "limcp: provider %s: %v\n", spec.Provider.Provider, err)
		return providerResult{status: store.StatusFailed, reason: ReasonLaunchError}
	}
	stdin, err := os.Open(filepath.Join(dir, PromptFile))
	if err != nil {
		fmt.Fprintf(stderr, "limcp: reading the prompt: %v\n", err)
		return providerResult{status: store.StatusFailed, reason: ReasonLaunchError}
	}
	defer stdin.Close()
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr, cmd.Dir = stdin, stdout, stderr, spec.Cwd
	var raw *os.File
	if f := spec.Provider.Output; f != "" && f != provider.OutputText {
		// The program's machine output is kept as written; the run's
		// stdout gets the answer extracted from it when the program ends.
		if raw, err = os.Create(filepath.Join(dir, AgentOutputFile)); err != nil {
			fmt.Fprintf(stderr, "limcp: %v\n", err)
			return providerResult{status: store.StatusFailed, reason: ReasonLaunchError}
		}
		defer raw.Close()
		cmd.Stdout = raw
	}
	// The provider sees the environment rule (package runenv) and what its
	// providers.yaml entry names: never the secrets of whoever submitted.
	// Its own variables come from what the worker was given on its
	// descriptor (never the worker's environment: startWorker).
	base := os.Environ()
	for _, name := range spec.Provider.Env {
		if v, ok := secrets[name]; ok {
			base = append(base, name+"="+v)
		}
	}
	cmd.Env = spec.Provider.Environ(base)
	if err := cmd.Start(); err != nil {
		fmt.Fprintf(stderr, "limcp: provider %s: cannot start %q: %v\n", spec.Provider.Provider, argv[0], err)
		return providerResult{status: store.StatusFailed, reason: ReasonLaunchError}
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		// Whatever the provider left behind in the run's group goes with it.
		stopOwnGroupOthers(TimeoutGrace, nil)
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			if ws, ok := ee.Sys().(syscall.WaitStatus); ok && ws.Signaled() && (ws.Signal() == syscall.SIGTERM || ws.Signal() == syscall.SIGKILL) {
				return providerResult{external: true}
			}
			res := exited(ee.ExitCode())
			if raw != nil {
				extractOutput(spec.Provider, dir, stdout, stderr)
			}
			return res
		}
		if err != nil {
			fmt.Fprintf(stderr, "limcp: provider %s: %v\n", spec.Provider.Provider, err)
			return providerResult{status: store.StatusFailed, reason: ReasonLaunchError}
		}
		if raw != nil && extractOutput(spec.Provider, dir, stdout, stderr) {
			// Exit status 0 with an error in the program's own report: the
			// run did not do what it was asked.
			code := 0
			return providerResult{status: store.StatusFailed, reason: ReasonAgentError, exit: &code}
		}
		return exited(0)
	case <-ctx.Done():
		stopOwnGroupOthers(TimeoutGrace, done)
		if raw != nil {
			extractOutput(spec.Provider, dir, stdout, stderr)
		}
		return providerResult{status: store.StatusTimedOut, reason: ReasonDeadline}
	}
}

// extractOutput turns the machine output an agent program wrote (the run
// directory's AgentOutputFile) into the run's output: the final answer
// to stdout, and the error the program reported to ErrorFile and, as the
// last line, to stderr (so the stderr tail of a failed run names it). Output
// that is not the configured format is copied to stdout as it is: nothing
// the program wrote is lost. It reports whether the program reported an
// error.
func extractOutput(p provider.Resolved, dir string, stdout, stderr *os.File) bool {
	out, err := readCapped(filepath.Join(dir, AgentOutputFile), MaxAgentOutput)
	if err != nil {
		fmt.Fprintf(stderr, "limcp: reading %s's output: %v\n", p.Provider, err)
		return false
	}
	errOut, _ := readCapped(filepath.Join(dir, StderrFile), MaxAgentOutput)
	x := provider.Extract(p.Output, out, errOut)
	if !x.Parsed {
		stdout.Write(out)
		if len(out) > 0 {
			fmt.Fprintf(stderr, "limcp: %s's output is not the %s it is configured for; kept as written\n", p.Provider, p.Output)
		}
		return false
	}
	stdout.WriteString(x.Answer)
	if x.Error == "" {
		return false
	}
	_ = os.WriteFile(filepath.Join(dir, ErrorFile), []byte(x.Error), 0o600)
	fmt.Fprintf(stderr, "%s: %s\n", p.Provider, x.Error)
	return true
}

// readCapped reads at most max bytes of a file: an agent's output is read
// whole to be parsed, and a runaway one must not take the worker down.
func readCapped(path string, max int64) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return io.ReadAll(io.LimitReader(f, max))
}
