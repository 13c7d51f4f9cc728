//go:build unix

package dispatch

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/verbsurface/verbsurface/internal/ctxenv"
	"github.com/verbsurface/verbsurface/internal/tied"
)

// Defaults of [Options]: each applies when its field is zero.
const (
	DefaultStdoutCap = 1 << 20          // 1 MiB of stdout, the whole result
	DefaultStderrCap = 64 << 10         // 64 KiB of stderr, its tail kept
	DefaultTimeout   = 30 * time.Second // per command
	DefaultGrace     = 2 * time.Second  // between SIGTERM and SIGKILL
)

// Options configure a [Runner]. The zero value is ready to use: every zero
// field takes its documented default. Negative sizes or durations are
// refused by [NewRunner].
type Options struct {
	// LeadingArgs are put before every command's argv, e.g. a global flag
	// the CLI needs on every call. Nil means none.
	LeadingArgs []string

	// Env is the command's whole environment, exactly as given. Nil means
	// a snapshot of this process's environment taken by NewRunner (so later
	// os.Setenv calls do not leak into commands); a non-nil empty slice
	// means an empty environment.
	Env []string

	// Dir is the command's working directory. "" means the current
	// directory as NewRunner finds it; either way it is made absolute once.
	Dir string

	// StdoutCap is how many bytes of stdout a command may write
	// (DefaultStdoutCap). One byte more and its group is terminated with
	// output_overflow.
	StdoutCap int64

	// StderrCap is how many bytes of stderr a command may write; the tail
	// is kept for error reports (DefaultStderrCap). Past it the group is
	// terminated with output_overflow, as for stdout.
	StderrCap int64

	// Timeout bounds each command from start to exit (DefaultTimeout).
	Timeout time.Duration

	// Grace is how long a terminated group has between SIGTERM and SIGKILL
	// (DefaultGrace).
	Grace time.Duration

	// Output is how the command answers on stdout: "" or OutputEnvelope
	// (the machine-result contract), OutputJSON, OutputJSONL or
	// OutputText. Under the last three the output is data, never control;
	// see [Output].
	Output Output
	// OKExit lists the exit statuses that mean success under OutputJSON,
	// OutputJSONL and OutputText (nil: only 0): a linter whose findings
	// exit 1 takes [0, 1]. Refused under the envelope, whose contract
	// needs exit status 0 for an ok result.
	OKExit []int

	// EndDetached ends, with the command, what it detached into sessions
	// of its own (a daemon's double fork and setsid), which stopping its
	// process group does not reach: on Linux the runner makes this process
	// the reaper of its orphaned descendants (PR_SET_CHILD_SUBREAPER,
	// process-wide, once), starts each command with a tag in its
	// environment (VERBSURFACE_RUN=…), and once the command's group is
	// gone kills every adopted process that carries its tag, and their
	// descendants. A process that clears its environment, or makes it
	// unreadable (undumpable, set-id), is not found. Elsewhere it does
	// nothing. Off (the zero value), detached work is the CLI's decision
	// and is left alone: limcp's runs detach by design.
	EndDetached bool
	// OutputStream is the stream the output modes read: stdout (""
	// or StreamStdout) or StreamStderr, for a program that writes its
	// report on stderr. Refused under the envelope.
	OutputStream Stream
}

// Runner runs one CLI under the machine-result contract. It holds the
// program's absolute path, resolved once by [NewRunner], and the fixed
// environment, directory, caps and timeouts; it never consults PATH again
// and never uses a shell. A Runner is immutable and safe for concurrent use.
type Runner struct {
	path      string
	leading   []string
	env       []string
	dir       string
	stdoutCap int64
	stderrCap int64
	timeout   time.Duration
	grace     time.Duration
	output    Output     // "" for the envelope
	okExit    []int      // for the other outputs
	endDetach bool       // Options.EndDetached, where this process adopts orphans
	stream    Stream     // where the other outputs are read: "" for stdout
	awaitExit exitWaiter // platformExitWaiter; tests swap in pollExit
}

// NewRunner resolves program once and returns a runner for it. A program
// without a slash is looked up in PATH; the result is made absolute. The
// error, an [*Error] of kind [KindLaunchFailed], says whether the program is
// missing, a directory or not executable, or which option is invalid.
func NewRunner(program string, opts *Options) (*Runner, error) {
	if opts == nil {
		opts = &Options{}
	}
	bad := func(problem string, err error) error {
		// No Program: the problem names the path itself, as resolved so far.
		return &Error{Kind: KindLaunchFailed, Problem: problem, ExitCode: -1, Err: err}
	}
	for _, o := range []struct {
		name string
		v    int64
	}{{"StdoutCap", opts.StdoutCap}, {"StderrCap", opts.StderrCap}, {"Timeout", int64(opts.Timeout)}, {"Grace", int64(opts.Grace)}} {
		if o.v < 0 {
			return nil, bad(fmt.Sprintf("runner for %q: option %s is negative (%d); zero means the default", program, o.name, o.v), nil)
		}
	}
	if program == "" {
		return nil, bad("no program given", nil)
	}
	if err := checkOutputOptions(opts.Output, opts.OKExit); err != nil {
		return nil, bad(fmt.Sprintf("runner for %q: %v", program, err), nil)
	}
	if err := checkStream(opts.OutputStream, opts.Output); err != nil {
		return nil, bad(fmt.Sprintf("runner for %q: %v", program, err), nil)
	}
	path := program
	if filepath.Base(program) == program {
		p, err := exec.LookPath(program)
		if err != nil {
			return nil, bad(fmt.Sprintf("program %q not found in PATH", program), err)
		}
		path = p
	}
	path, err := filepath.Abs(path)
	if err != nil {
		return nil, bad(fmt.Sprintf("cannot make the program path %q absolute: %v", path, err), err)
	}
	st, err := os.Stat(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil, bad(fmt.Sprintf("program %s does not exist", path), err)
	case err != nil:
		return nil, bad(fmt.Sprintf("cannot stat program %s: %v", path, unwrapPath(err)), err)
	case st.IsDir():
		return nil, bad(fmt.Sprintf("program %s is a directory", path), nil)
	case !st.Mode().IsRegular():
		return nil, bad(fmt.Sprintf("program %s is not a regular file (%s)", path, st.Mode().Type()), nil)
	}
	if err := syscall.Access(path, 1 /* X_OK */); err != nil || st.Mode().Perm()&0o111 == 0 {
		return nil, bad(fmt.Sprintf("program %s is not executable (mode %s)", path, st.Mode().Perm()), err)
	}
	dir := opts.Dir
	if dir == "" {
		if dir, err = os.Getwd(); err != nil {
			return nil, bad(fmt.Sprintf("runner for %s: cannot determine the working directory: %v", path, err), err)
		}
	}
	if dir, err = filepath.Abs(dir); err != nil {
		return nil, bad(fmt.Sprintf("cannot make the working directory %q absolute: %v", opts.Dir, err), err)
	}
	if dst, err := os.Stat(dir); err != nil || !dst.IsDir() {
		return nil, bad(fmt.Sprintf("runner for %s: working directory %s is not a directory", path, dir), err)
	}
	env := slices.Clone(opts.Env)
	if opts.Env == nil {
		env = os.Environ()
	} else if env == nil {
		env = []string{}
	}
	r := &Runner{
		path:      path,
		leading:   slices.Clone(opts.LeadingArgs),
		env:       env,
		dir:       dir,
		stdoutCap: orDefault(opts.StdoutCap, DefaultStdoutCap),
		stderrCap: orDefault(opts.StderrCap, DefaultStderrCap),
		timeout:   orDefault(opts.Timeout, DefaultTimeout),
		grace:     orDefault(opts.Grace, DefaultGrace),
		awaitExit: platformExitWaiter,
		endDetach: opts.EndDetached && tied.AdoptOrphans() == nil,
	}
	if opts.OutputStream == StreamStderr {
		r.stream = StreamStderr
	}
	if opts.Output != "" && opts.Output != OutputEnvelope {
		r.output, r.okExit = opts.Output, []int{0}
		if len(opts.OKExit) > 0 {
			r.okExit = slices.Clone(opts.OKExit)
		}
	}
	return r, nil
}

func orDefault[T int64 | time.Duration](v, def T) T {
	if v == 0 {
		return def
	}
	return v
}

// Path returns the program's absolute path as resolved by NewRunner.
func (r *Runner) Path() string { return r.path }

// Result is everything known about one command run, success or not.
type Result struct {
	// Data is the "data" member of an ok machine result; under another
	// output mode (Options.Output), the [OutputResult] as JSON; nil on
	// failure.
	Data json.RawMessage
	// ExitCode is the exit status, or -1 if the command did not exit on its
	// own (not started, killed by a signal, terminated by the runner).
	ExitCode int
	// PID is the command's pid, also its process-group id; 0 if it never
	// started.
	PID int
	// Stdout is what the command printed, up to the stdout cap.
	Stdout []byte
	// Stderr is the retained tail of stderr, up to the stderr cap.
	Stderr []byte
	// Duration runs from just before start until every member of the group
	// is gone and both streams are read.
	Duration time.Duration
	// GroupStopped reports that members of the process group were still
	// running when the command's leader exited, and were terminated.
	GroupStopped bool
	// DetachedStopped reports that processes the command detached into
	// sessions of their own were still running when it ended, and were
	// killed (Options.EndDetached).
	DetachedStopped bool
	// Survivors lists pids of the group still alive 5 s after SIGKILL (a
	// process stuck in the kernel, which no signal can end); normally
	// empty. Run cannot report them: a caller that must know uses Execute.
	Survivors []int
}

// Run runs the command with argv (after the runner's leading args) and
// returns the data of its ok machine result. It satisfies the Runner
// interface that verbsurface, wait and kill each declare: every error
// implements ErrorCode() string and ErrorDetails() map[string]any, and is
// either an [*Error] or a [*CLIError].
// See [Runner.Execute] for everything else.
func (r *Runner) Run(ctx context.Context, argv []string) (json.RawMessage, error) {
	res, err := r.Execute(ctx, argv)
	if err != nil {
		return nil, err
	}
	return res.Data, nil
}

// Execute runs the command with argv (after the runner's leading args) in a
// new process group and checks its output against the machine-result
// contract. It always returns a non-nil Result; the error is nil only for an
// ok result from a command that exited 0.
//
// The command ends in one of these ways, checked in this order:
//
//  1. It cannot start: [KindLaunchFailed]. If ctx is already done, nothing
//     is started: [KindCancelled].
//  2. The runner stops it, whichever comes first: ctx ends ([KindCancelled];
//     the error wraps ctx.Err(), so a caller's deadline also reads as
//     cancelled, not timeout), the runner's timeout elapses ([KindTimeout]),
//     or stdout or stderr passes its cap ([KindOutputOverflow], also when
//     the overflow is noticed only after exit).
//  3. It exits non-zero (or dies of a signal it was not sent by the runner):
//     a valid error object on stdout gives [*CLIError]; anything else,
//     an ok result included, gives [KindNonzeroExit] with the exit code, the
//     stderr tail and what was wrong with stdout.
//  4. It exits 0: stdout is checked by [ParseMachineResult] (absent,
//     invalid, multiple, unsupported version, invalid shape); a valid error
//     object gives [*CLIError]; an ok result is success.
//
// Under an output mode other than the envelope (Options.Output), 3 and 4
// are replaced by the mode's own reading, which never looks for a machine
// result and never gives a [*CLIError]: an exit status outside
// Options.OKExit is [KindNonzeroExit] with the output as read; stdout that
// is not what the mode says is [KindInvalidResult] with an excerpt;
// anything else is success, Result.Data holding an [OutputResult].
//
// Whatever the ending, Execute returns only after no live member of the
// group is left (or, for a process stuck in the kernel, 5 s after SIGKILL:
// Result.Survivors): on stop, the group gets SIGTERM and, after the grace, SIGKILL; on a
// normal exit, members still running get the same treatment (Result.GroupStopped).
// Work the CLI detached into a session of its own is not in the group and
// is left alone, unless Options.EndDetached asks to end it too
// (Result.DetachedStopped). Execute never waits for EOF on a stream that
// a process outside the group keeps open.
func (r *Runner) Execute(ctx context.Context, argv []string) (*Result, error) {
	start := time.Now()
	args := make([]string, 0, len(r.leading)+len(argv))
	args = append(append(args, r.leading...), argv...)
	res := &Result{ExitCode: -1}
	fail := func(e *Error) (*Result, error) {
		e.Program, e.Args, e.Leading = r.path, args, len(r.leading)
		res.Duration = time.Since(start)
		return res, e
	}
	if err := ctx.Err(); err != nil {
		return fail(&Error{Kind: KindCancelled, ExitCode: -1, Err: err,
			Problem: fmt.Sprintf("not started: the caller's context was already done (%v)", err)})
	}

	outR, outW, err := os.Pipe()
	if err != nil {
		return fail(&Error{Kind: KindLaunchFailed, ExitCode: -1, Err: err, Problem: fmt.Sprintf("could not create the stdout pipe: %v", err)})
	}
	errR, errW, err := os.Pipe()
	if err != nil {
		outR.Close()
		outW.Close()
		return fail(&Error{Kind: KindLaunchFailed, ExitCode: -1, Err: err, Problem: fmt.Sprintf("could not create the stderr pipe: %v", err)})
	}
	cmd := &exec.Cmd{
		Path:        r.path,
		Args:        append([]string{r.path}, args...),
		Env:         r.env,
		Dir:         r.dir,
		Stdout:      outW, // *os.File: handed to the child as is, no copying goroutine
		Stderr:      errW,
		SysProcAttr: tiedAttr(), // its own group, killed with this process (Linux, FreeBSD)
	}
	if null := devNull(); null != nil {
		cmd.Stdin = null // otherwise exec opens /dev/null itself, and says why it cannot
	}
	cmd.Args, cmd.ExtraFiles = inheritSnapshots(cmd.Args) // prompt and file snapshots by descriptor
	// Every command is tagged once this process adopts orphans, so that
	// what it detaches is known as a command's and reaped when it exits;
	// only a runner that ends detached work kills it with the op.
	if more := ctxenv.From(ctx); len(more) > 0 {
		// A caller's declared identity (verbsurface.RunIdentity): added
		// to this command only, after the runner's own, so it wins.
		cmd.Env = append(slices.Clip(r.env), more...)
	}
	tag := ""
	if r.endDetach || tied.Adopting() {
		tag = runTag()
		cmd.Env = append(slices.Clip(cmd.Env), tag)
	}
	err = startTied(cmd)
	outW.Close()
	errW.Close()
	if err != nil {
		outR.Close()
		errR.Close()
		return fail(&Error{Kind: KindLaunchFailed, ExitCode: -1, Err: err, Problem: fmt.Sprintf("could not start: %v", err)})
	}
	pid := cmd.Process.Pid
	res.PID = pid

	overflow := make(chan string, 2)
	// The machine stream keeps its head (the result starts there) within
	// the stdout cap; the other keeps its tail within the stderr cap.
	machineName, otherName := r.machineStreams()
	machineR, otherR := outR, errR
	if r.stream == StreamStderr {
		machineR, otherR = errR, outR
	}
	machine := newCapture(machineR, machineName, r.stdoutCap, false, overflow)
	other := newCapture(otherR, otherName, r.stderrCap, true, overflow)
	go machine.run()
	go other.run()
	exited := make(chan struct{})
	go func() {
		// An error here (ECHILD) cannot happen for our own unreaped child;
		// if it did, treating the leader as exited lets Wait report it.
		_ = r.awaitExit(pid)
		close(exited)
	}()
	g := group{pgid: pid, exited: exited}

	timer := time.NewTimer(r.timeout)
	var stopKind Kind
	var stopStream string
	select {
	case <-exited:
	case <-timer.C:
		stopKind = KindTimeout
	case <-ctx.Done():
		stopKind = KindCancelled
	case stopStream = <-overflow:
		stopKind = KindOutputOverflow
	}
	timer.Stop()
	var deadline time.Time
	if stopKind != "" {
		deadline = time.Now().Add(r.grace)
		g.stopLeader(deadline)
	}
	_ = cmd.Wait() // reaps the leader; its status is read from ProcessState
	res.GroupStopped, res.Survivors = g.sweep(stopKind != "", deadline, r.grace)
	if r.endDetach {
		var left []int
		res.DetachedStopped, left = tied.KillAdopted(tag, killWait)
		res.Survivors = append(res.Survivors, left...)
	}
	machine.stop()
	other.stop()
	outR.Close()
	errR.Close()
	res.Stdout, res.Stderr = machine.bytes(), other.bytes()
	if r.stream == StreamStderr {
		res.Stdout, res.Stderr = res.Stderr, res.Stdout
	}
	res.Duration = time.Since(start)

	state := cmd.ProcessState
	res.ExitCode = state.ExitCode()
	signal := ""
	if ws, ok := state.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		signal = ws.Signal().String()
	}
	e := &Error{Kind: stopKind, ExitCode: res.ExitCode, Stderr: string(res.Stderr)}
	if r.stream == StreamStderr {
		// stderr is the machine output, returned as output; the tail
		// worth quoting in a failure is stdout's.
		e.Stderr, e.Stdout = "", string(res.Stdout)
	}
	if stopKind == "" && (machine.overflowed.Load() || other.overflowed.Load()) {
		stopKind, e.Kind = KindOutputOverflow, KindOutputOverflow
		stopStream = machineName
		if !machine.overflowed.Load() {
			stopStream = otherName
		}
	}
	switch stopKind {
	case KindCancelled:
		e.Err = ctx.Err()
		e.Problem = fmt.Sprintf("cancelled by the caller (%v); process group terminated", e.Err)
		e.ExitCode = -1
		return fail(e)
	case KindTimeout:
		e.Timeout = r.timeout
		e.Problem = fmt.Sprintf("did not finish within the %v timeout; process group terminated", r.timeout)
		e.ExitCode = -1
		return fail(e)
	case KindOutputOverflow:
		e.Stream, e.Cap = stopStream, r.stdoutCap
		if stopStream == otherName {
			e.Cap = r.stderrCap
		}
		e.Problem = fmt.Sprintf("%s passed its %d-byte cap; process group terminated", stopStream, e.Cap)
		e.ExitCode = -1
		return fail(e)
	}
	return r.finish(res, e, signal, args, fail)
}

// Interpret reads what a command printed and how it ended exactly as
// [Runner.Execute] reads a command that exited on its own (rules 3 and 4
// there, or the output mode's reading), for a command this runner did not
// run itself: one run in the background, whose output was kept in files
// and whose end was recorded by another process. args are the command's
// arguments after the program (leading arguments included), for error
// messages; exitCode is -1 when it died of signal (signal's name, as
// syscall.Signal prints it). stdout and stderr should already be within
// the runner's caps.
func (r *Runner) Interpret(args []string, stdout, stderr []byte, exitCode int, signal string) (json.RawMessage, error) {
	res := &Result{ExitCode: exitCode, Stdout: stdout, Stderr: stderr}
	fail := func(e *Error) (*Result, error) {
		e.Program, e.Args, e.Leading = r.path, args, len(r.leading)
		return res, e
	}
	e := &Error{ExitCode: exitCode, Stderr: string(stderr)}
	if r.stream == StreamStderr {
		e.Stderr, e.Stdout = "", string(stdout)
	}
	res, err := r.finish(res, e, signal, args, fail)
	if err != nil {
		return nil, err
	}
	return res.Data, nil
}

// finish is the end of Execute (and Interpret) for a command that exited
// on its own: rules 3 and 4 of Execute, or the output mode's reading.
func (r *Runner) finish(res *Result, e *Error, signal string, args []string, fail func(*Error) (*Result, error)) (*Result, error) {
	if r.output != "" {
		return r.finishOutput(res, e, signal, fail)
	}

	mr, perr := ParseMachineResult(res.Stdout)
	if mr != nil && !mr.OK {
		// A valid error object is the CLI's own answer, whatever the exit
		// status: the CLI said what went wrong, which beats any guess of ours.
		return res, &CLIError{Code: mr.Error.Code, Message: mr.Error.Message, Details: mr.Error.Details,
			ExitCode: res.ExitCode, Program: r.path, Args: args, Leading: len(r.leading), Stderr: string(res.Stderr)}
	}
	if res.ExitCode != 0 {
		// Strict: an ok result from a command that exited non-zero is not a
		// success. One of the two is lying, and reporting success could
		// claim work was done (a run submitted) that was not.
		e.Kind, e.Signal = KindNonzeroExit, signal
		status := fmt.Sprintf("exited with status %d", res.ExitCode)
		if signal != "" {
			status = fmt.Sprintf("died of a signal (%s)", signal)
		}
		if perr != nil {
			var pe *Error
			errors.As(perr, &pe)
			e.ResultProblem = pe.Kind
			e.Problem = fmt.Sprintf("%s without an error result (%s)", status, pe.Problem)
		} else {
			e.Problem = fmt.Sprintf("%s although stdout holds an ok result; an ok result requires exit status 0", status)
		}
		return fail(e)
	}
	if perr != nil {
		pe := perr.(*Error)
		pe.ExitCode, pe.Stderr = res.ExitCode, string(res.Stderr)
		return fail(pe)
	}
	res.Data = mr.Data
	return res, nil
}

// devNull is /dev/null, opened once for reading and shared by every
// command as its stdin: os/exec would otherwise open, configure and close
// it for each command (six system calls an op; 1 to 3 % of a stdio
// server's CPU per job.status in two interleaved runs, within their
// noise). A command reads end of file from it, as from its own.
var devNull = sync.OnceValue(func() *os.File {
	f, err := os.Open(os.DevNull)
	if err != nil {
		return nil
	}
	return f
})

// Plan says what the runner would give a command, without running one: its
// working directory (the server's own when none was set), the names of
// the environment variables it passes (never their values), and its
// output mode ("envelope" for the machine-result contract). A dry run
// shows it.
func (r *Runner) Plan() (dir string, envNames []string, output string) {
	dir = r.dir
	if dir == "" {
		dir, _ = os.Getwd()
	}
	envNames = make([]string, 0, len(r.env))
	for _, kv := range r.env {
		name, _, _ := strings.Cut(kv, "=")
		envNames = append(envNames, name)
	}
	output = string(r.output)
	if output == "" {
		output = string(OutputEnvelope)
	}
	return dir, envNames, output
}

// runTag is the environment entry that marks one command's processes, so
// that what it detached can be found among the adopted orphans.
func runTag() string {
	var b [12]byte
	_, _ = rand.Read(b[:])
	return "VERBSURFACE_RUN=" + hex.EncodeToString(b[:])
}
