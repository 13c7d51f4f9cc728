//go:build unix

package dispatch

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"golang.org/x/sys/unix"

	"github.com/verbsurface/verbsurface/internal/procid"
)

const (
	okResult  = `{"result_version":1,"ok":true,"data":{"n":1}}`
	errResult = `{"result_version":1,"ok":false,"error":{"code":"not_found","message":"no run with id \"r9\"","details":{"id":"r9","tries":3}}}`
)

// TestMisbehavingCLI runs the fake CLI in each misbehaving mode the issue
// lists (and the edges between them) and checks the error kind, its
// facts, and that no process of the command's group is left afterwards.
func TestMisbehavingCLI(t *testing.T) {
	eachExitWaiter(t, func(t *testing.T, newRunner func(testing.TB, Options) *Runner) {
		type check func(t *testing.T, res *Result, err error)
		tests := []struct {
			name     string
			argv     []string // %PIDFILE% is replaced by a per-test path
			opts     Options
			wantKind Kind   // a dispatch failure, or
			wantCLI  string // the CLI's own error code, or
			wantData string // success with this data
			check    check
			pidfile  bool // the command starts a same-group child named in the pid file; it must be dead afterwards
		}{
			{name: "prints nothing and exits 0: absent_result", argv: []string{"print", ""}, wantKind: KindAbsentResult},
			{name: "prints only whitespace: absent_result", argv: []string{"print", " \n\t\n"}, wantKind: KindAbsentResult},
			{name: "prints garbage: invalid_result", argv: []string{"print", "hello, human\n"}, wantKind: KindInvalidResult},
			{name: "human text before the result: invalid_result", argv: []string{"print", "Submitting...\n" + okResult}, wantKind: KindInvalidResult},
			{name: "trailing garbage after a result: invalid_result", argv: []string{"print", okResult + "\ndone."}, wantKind: KindInvalidResult},
			{name: "a JSON array instead of an object: invalid_result", argv: []string{"print", "[1,2]"}, wantKind: KindInvalidResult},
			{name: "prints two objects: multiple_results", argv: []string{"print", okResult + "\n" + okResult + "\n"}, wantKind: KindMultipleResults},
			{
				name: "floods 100 MB to stdout: output_overflow on stdout, group killed",
				argv: []string{"flood-stdout", "104857600"}, wantKind: KindOutputOverflow,
				check: func(t *testing.T, res *Result, err error) {
					var e *Error
					errors.As(err, &e)
					if e.Stream != "stdout" || e.Cap != DefaultStdoutCap || len(res.Stdout) != DefaultStdoutCap {
						t.Errorf("stream %q cap %d kept %d bytes; want stdout, %d, %d", e.Stream, e.Cap, len(res.Stdout), DefaultStdoutCap, DefaultStdoutCap)
					}
				},
			},
			{
				name: "floods stderr: output_overflow on stderr, group killed",
				argv: []string{"flood-stderr", "104857600"}, wantKind: KindOutputOverflow,
				check: func(t *testing.T, res *Result, err error) {
					var e *Error
					errors.As(err, &e)
					if e.Stream != "stderr" || e.Cap != DefaultStderrCap || len(res.Stderr) != DefaultStderrCap {
						t.Errorf("stream %q cap %d kept %d bytes; want stderr, %d, %d", e.Stream, e.Cap, len(res.Stderr), DefaultStderrCap, DefaultStderrCap)
					}
				},
			},
			{name: "stdout exactly at its cap: accepted", argv: []string{"stdout-bytes", "4096"}, opts: Options{StdoutCap: 4096}, wantData: `"` + strings.Repeat("x", 4096-len(`{"result_version":1,"ok":true,"data":""}`)) + `"`},
			{name: "stdout one byte past its cap: output_overflow", argv: []string{"stdout-bytes", "4097"}, opts: Options{StdoutCap: 4096}, wantKind: KindOutputOverflow},
			{name: "stderr exactly at its cap: accepted", argv: []string{"stderr-bytes", "1000"}, opts: Options{StderrCap: 1000}, wantData: `"ok"`},
			{name: "stderr one byte past its cap: output_overflow", argv: []string{"stderr-bytes", "1001"}, opts: Options{StderrCap: 1000}, wantKind: KindOutputOverflow},
			{
				name: "hangs: timeout", argv: []string{"hang"}, opts: Options{Timeout: 300 * time.Millisecond}, wantKind: KindTimeout,
				check: func(t *testing.T, res *Result, err error) {
					var e *Error
					errors.As(err, &e)
					if e.Timeout != 300*time.Millisecond || res.Duration < 300*time.Millisecond {
						t.Errorf("timeout %v after %v; want 300ms, at least that long", e.Timeout, res.Duration)
					}
				},
			},
			{
				name: "hangs ignoring SIGTERM: timeout, SIGKILL after the grace",
				argv: []string{"hang-ignore-term"}, opts: Options{Timeout: 200 * time.Millisecond, Grace: 300 * time.Millisecond}, wantKind: KindTimeout,
				check: func(t *testing.T, res *Result, err error) {
					if res.Duration < 500*time.Millisecond {
						t.Errorf("returned after %v; a SIGTERM-ignoring command must get the whole grace (200ms + 300ms)", res.Duration)
					}
				},
			},
			{
				name: "forks a same-group grandchild that hangs: timeout, grandchild killed too",
				argv: []string{"grandchild-hang", "%PIDFILE%"}, opts: Options{Timeout: 500 * time.Millisecond}, wantKind: KindTimeout, pidfile: true,
			},
			{
				name: "exits with a same-group child holding stdout: result kept, child stopped",
				argv: []string{"grandchild-leave", "%PIDFILE%"}, wantData: `"left a child behind"`, pidfile: true,
				check: func(t *testing.T, res *Result, err error) {
					if !res.GroupStopped {
						t.Error("GroupStopped = false; the leftover child was in the group and had to be stopped")
					}
				},
			},
			{
				name: "exits 3 silently: nonzero_exit with the exit code", argv: []string{"exit", "3"}, wantKind: KindNonzeroExit,
				check: func(t *testing.T, res *Result, err error) {
					var e *Error
					errors.As(err, &e)
					if e.ExitCode != 3 || res.ExitCode != 3 || e.ResultProblem != KindAbsentResult {
						t.Errorf("exit code %d/%d, result problem %q; want 3/3, absent_result", e.ExitCode, res.ExitCode, e.ResultProblem)
					}
				},
			},
			{
				name: "exits 4 complaining on stderr: nonzero_exit carries the stderr tail", argv: []string{"stderr", "warming up\nfatal: config missing\n", "4"}, wantKind: KindNonzeroExit,
				check: func(t *testing.T, res *Result, err error) {
					d := err.(*Error).ErrorDetails()
					if d["exit_code"] != 4 || d["stderr_tail"] != "warming up\nfatal: config missing\n" {
						t.Errorf("details %v; want exit_code 4 and the whole stderr", d)
					}
					if !strings.Contains(err.Error(), "fatal: config missing") {
						t.Errorf("message %q does not show the last stderr line", err)
					}
				},
			},
			{
				name: "dies of a signal: nonzero_exit names it", argv: []string{"crash"}, wantKind: KindNonzeroExit,
				check: func(t *testing.T, res *Result, err error) {
					if e := err.(*Error); e.Signal != "killed" || e.ExitCode != -1 {
						t.Errorf("signal %q exit %d; want killed, -1", e.Signal, e.ExitCode)
					}
				},
			},
			{
				name: "prints an old result_version: unsupported_result_version", argv: []string{"print", `{"result_version":0,"ok":true,"data":null}`}, wantKind: KindUnsupportedResultVersion,
				check: func(t *testing.T, res *Result, err error) {
					if v := err.(*Error).ResultVersion; v != 0 {
						t.Errorf("ResultVersion = %d, want 0", v)
					}
				},
			},
			{name: "prints a newer result_version: unsupported_result_version", argv: []string{"print", `{"result_version":2,"ok":true,"payload":[]}`}, wantKind: KindUnsupportedResultVersion},
			{
				name: "prints an old result_version and exits 1: nonzero_exit", argv: []string{"print", `{"result_version":0,"ok":false}`, "1"}, wantKind: KindNonzeroExit,
				check: func(t *testing.T, res *Result, err error) {
					if p := err.(*Error).ResultProblem; p != KindUnsupportedResultVersion {
						t.Errorf("ResultProblem = %q, want unsupported_result_version", p)
					}
				},
			},
			{
				name: "prints a valid error object and exits 1: cli_error passed through", argv: []string{"print", errResult, "1"}, wantCLI: "not_found",
				check: func(t *testing.T, res *Result, err error) {
					got := err.(*CLIError).ErrorDetails()
					want := map[string]any{"code": "not_found", "message": `no run with id "r9"`, "details": map[string]any{"id": "r9", "tries": json.Number("3")}}
					if diff := cmp.Diff(want, got); diff != "" {
						t.Errorf("ErrorDetails (-want +got):\n%s", diff)
					}
				},
			},
			{name: "prints a valid error object and exits 0: still cli_error", argv: []string{"print", errResult, "0"}, wantCLI: "not_found"},
			{
				name: "prints an ok result but exits 2: nonzero_exit (never a success)", argv: []string{"print", okResult, "2"}, wantKind: KindNonzeroExit,
				check: func(t *testing.T, res *Result, err error) {
					if e := err.(*Error); e.ExitCode != 2 || e.ResultProblem != "" {
						t.Errorf("exit %d, result problem %q; want 2, none", e.ExitCode, e.ResultProblem)
					}
				},
			},
			{name: "prints a valid ok result: its data", argv: []string{"print", okResult}, wantData: `{"n":1}`},
		}
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				t.Parallel()
				pidfile := filepath.Join(t.TempDir(), "child.pid")
				argv := make([]string, len(tt.argv))
				for i, a := range tt.argv {
					argv[i] = strings.ReplaceAll(a, "%PIDFILE%", pidfile)
				}
				r := newRunner(t, tt.opts)
				res, err := r.Execute(bg(), argv)
				if res == nil {
					t.Fatal("Execute returned a nil Result")
				}
				assertGroupGone(t, res.PID)
				if len(res.Survivors) != 0 {
					t.Errorf("Survivors = %v; every member of the group must be gone", res.Survivors)
				}
				if tt.pidfile {
					child := readPidfile(t, pidfile, time.Second)
					if alive(child) {
						killNow(t, child)
						t.Errorf("same-group child %d is still alive", child)
					}
				}
				switch {
				case tt.wantKind != "":
					if got := kindOf(err); got != tt.wantKind {
						t.Fatalf("error %v (kind %q); want kind %q", err, got, tt.wantKind)
					}
					if res.Data != nil {
						t.Errorf("Result.Data = %s on failure", res.Data)
					}
				case tt.wantCLI != "":
					var ce *CLIError
					if !errors.As(err, &ce) || ce.Code != tt.wantCLI {
						t.Fatalf("error %v; want a *CLIError with code %q", err, tt.wantCLI)
					}
				default:
					if err != nil {
						t.Fatalf("Execute: %v", err)
					}
					if string(res.Data) != tt.wantData {
						t.Fatalf("data %s, want %s", res.Data, tt.wantData)
					}
					if !tt.pidfile { // Run is Execute's data; check it once more through the C3 method
						data, err := r.Run(bg(), argv)
						if err != nil || string(data) != tt.wantData {
							t.Fatalf("Run = %s, %v; want %s", data, err, tt.wantData)
						}
					}
				}
				if tt.check != nil {
					tt.check(t, res, err)
				}
			})
		}
	})
}

// TestCancelCleansUpLikeTimeout cancels the caller's context while the
// command and a SIGTERM-ignoring grandchild hang: the error is cancelled
// (wrapping context.Canceled) and the whole group is gone, grace then kill,
// exactly as for a timeout.
func TestCancelCleansUpLikeTimeout(t *testing.T) {
	eachExitWaiter(t, func(t *testing.T, newRunner func(testing.TB, Options) *Runner) {
		pidfile := filepath.Join(t.TempDir(), "child.pid")
		r := newRunner(t, Options{Grace: 200 * time.Millisecond})
		ctx, cancel := context.WithCancel(bg())
		defer cancel()
		type outcome struct {
			res *Result
			err error
		}
		done := make(chan outcome, 1)
		go func() {
			res, err := r.Execute(ctx, []string{"grandchild-hang", pidfile})
			done <- outcome{res, err}
		}()
		child := readPidfile(t, pidfile, 5*time.Second)
		killNow(t, child)
		cancel()
		var o outcome
		select {
		case o = <-done:
		case <-time.After(5 * time.Second):
			t.Fatal("Execute did not return within 5s of cancellation")
		}
		if kindOf(o.err) != KindCancelled || !errors.Is(o.err, context.Canceled) {
			t.Fatalf("error %v; want kind cancelled wrapping context.Canceled", o.err)
		}
		assertGroupGone(t, o.res.PID)
		if alive(child) {
			t.Fatalf("grandchild %d survived cancellation", child)
		}
		if o.res.Duration < 200*time.Millisecond {
			t.Errorf("returned after %v; the SIGTERM-ignoring grandchild should have had the 200ms grace", o.res.Duration)
		}
	})
}

// TestCallerDeadlineIsCancelled: a deadline on the caller's context is the
// caller's, not the runner's timeout.
func TestCallerDeadlineIsCancelled(t *testing.T) {
	r := newFake(t, Options{})
	ctx, cancel := context.WithTimeout(bg(), 200*time.Millisecond)
	defer cancel()
	res, err := r.Execute(ctx, []string{"hang"})
	if kindOf(err) != KindCancelled || !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("error %v; want kind cancelled wrapping context.DeadlineExceeded", err)
	}
	assertGroupGone(t, res.PID)
}

// TestCancelledBeforeStartStartsNothing: a done context never launches a
// command, so a spawn cannot half-happen.
func TestCancelledBeforeStartStartsNothing(t *testing.T) {
	dir := t.TempDir()
	marker := filepath.Join(dir, "child.pid")
	r := newFake(t, Options{})
	ctx, cancel := context.WithCancel(bg())
	cancel()
	res, err := r.Execute(ctx, []string{"detach", marker})
	if kindOf(err) != KindCancelled || res.PID != 0 {
		t.Fatalf("error %v, pid %d; want cancelled and no process", err, res.PID)
	}
	time.Sleep(50 * time.Millisecond)
	if _, err := os.Stat(marker); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("the command ran anyway (pid file: %v)", err)
	}
}

// TestDetachedSessionSurvives: work the CLI puts in a new session is not in
// the command's group; it outlives the command, with or without a hold on
// the command's stdout, and Execute does not wait for it.
func TestDetachedSessionSurvives(t *testing.T) {
	eachExitWaiter(t, func(t *testing.T, newRunner func(testing.TB, Options) *Runner) {
		for _, inherit := range []bool{false, true} {
			name := "detached child redirects stdout"
			argvTail := []string{}
			if inherit {
				name = "detached child keeps the command's stdout open"
				argvTail = []string{"inherit"}
			}
			t.Run(name, func(t *testing.T) {
				pidfile := filepath.Join(t.TempDir(), "child.pid")
				r := newRunner(t, Options{Grace: 5 * time.Second})
				res, err := r.Execute(bg(), append([]string{"detach", pidfile}, argvTail...))
				child := readPidfile(t, pidfile, time.Second)
				killNow(t, child)
				if err != nil || string(res.Data) != `"detached"` {
					t.Fatalf("Execute = %s, %v; want the detached result", res.Data, err)
				}
				assertGroupGone(t, res.PID)
				if !alive(child) {
					t.Fatalf("detached child %d was killed; work in its own session must survive", child)
				}
				if res.GroupStopped {
					t.Error("GroupStopped = true; the detached child is not in the group")
				}
				if res.Duration > 2*time.Second {
					t.Errorf("Execute took %v; it must not wait on a detached process holding stdout", res.Duration)
				}
				_ = syscall.Kill(child, syscall.SIGKILL)
			})
		}
	})
}

// TestStderrTailKeptOnOverflow: past the stderr cap the group is stopped,
// and what is kept is the tail, i.e. the command's last words.
func TestStderrTailKeptOnOverflow(t *testing.T) {
	r := newFake(t, Options{StderrCap: 4096, Grace: 2 * time.Second})
	res, err := r.Execute(bg(), []string{"flood-stderr-until-term"})
	assertGroupGone(t, res.PID)
	var e *Error
	if !errors.As(err, &e) || e.Kind != KindOutputOverflow || e.Stream != "stderr" || e.Cap != 4096 {
		t.Fatalf("error %v; want output_overflow on stderr at 4096", err)
	}
	if len(res.Stderr) > 4096 || len(e.Stderr) != len(res.Stderr) {
		t.Errorf("kept %d bytes of stderr (error has %d); want at most the 4096-byte cap, the same in both", len(res.Stderr), len(e.Stderr))
	}
	if !strings.HasSuffix(string(res.Stderr), "goodbye: stopped by SIGTERM\n") {
		t.Errorf("stderr tail ends %q; want the goodbye written after SIGTERM", lastLine(string(res.Stderr)))
	}
}

// TestExplicitEnvDirAndLeadingArgs: the command gets exactly the runner's
// environment, directory and leading args, and argv as a list (no shell).
func TestExplicitEnvDirAndLeadingArgs(t *testing.T) {
	dir := t.TempDir()
	r := newFake(t, Options{Env: []string{"ONLY=this"}, Dir: dir, LeadingArgs: []string{"ok", "--json"}})
	argv := []string{"a b", "$HOME", "--", "'quoted'", "*"}
	data, err := r.Run(bg(), argv)
	if err != nil {
		t.Fatal(err)
	}
	var got struct {
		Args []string `json:"args"`
		Cwd  string   `json:"cwd"`
		Env  []string `json:"env"`
	}
	if err := json.Unmarshal(data, &got); err != nil {
		t.Fatal(err)
	}
	want := append([]string{"--json"}, argv...)
	if diff := cmp.Diff(want, got.Args); diff != "" {
		t.Errorf("args (-want +got):\n%s", diff)
	}
	if got.Cwd != dir {
		t.Errorf("cwd %q, want %q", got.Cwd, dir)
	}
	if diff := cmp.Diff([]string{"ONLY=this"}, got.Env); diff != "" {
		t.Errorf("env (-want +got):\n%s", diff)
	}
	empty := newFake(t, Options{Env: []string{}, LeadingArgs: []string{"ok"}})
	data, err = empty.Run(bg(), nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(data, &got); err != nil || len(got.Env) != 0 {
		t.Errorf("env %v (%v); a non-nil empty Env must give an empty environment", got.Env, err)
	}
}

// TestOwnProcessGroup: the command leads a process group of its own (so
// the group checks elsewhere are not vacuous) but stays in the caller's
// session (detaching is the CLI's decision, not the runner's).
func TestOwnProcessGroup(t *testing.T) {
	r := newFake(t, Options{LeadingArgs: []string{"ok"}})
	res, err := r.Execute(bg(), nil)
	if err != nil {
		t.Fatal(err)
	}
	var got struct{ PID, PGID, SID int }
	if err := json.Unmarshal(res.Data, &got); err != nil {
		t.Fatal(err)
	}
	self, err := procid.ReadStat(os.Getpid())
	if err != nil {
		t.Fatal(err)
	}
	if got.PID != res.PID || got.PGID != res.PID || got.SID != self.SID {
		t.Fatalf("command pid %d pgid %d sid %d; want pgid = pid = %d and the caller's session %d", got.PID, got.PGID, got.SID, res.PID, self.SID)
	}
}

// TestNilEnvIsASnapshot: a nil Env is this process's environment as
// NewRunner saw it; later changes do not leak into commands.
func TestNilEnvIsASnapshot(t *testing.T) {
	t.Setenv("DISPATCH_TEST_BEFORE", "seen")
	r := newFake(t, Options{LeadingArgs: []string{"ok"}})
	t.Setenv("DISPATCH_TEST_AFTER", "leaked")
	data, err := r.Run(bg(), nil)
	if err != nil {
		t.Fatal(err)
	}
	var got struct{ Env []string }
	if err := json.Unmarshal(data, &got); err != nil {
		t.Fatal(err)
	}
	env := strings.Join(got.Env, "\n")
	if !strings.Contains(env, "DISPATCH_TEST_BEFORE=seen") || strings.Contains(env, "DISPATCH_TEST_AFTER") {
		t.Errorf("environment seen by the command:\n%s\nwant DISPATCH_TEST_BEFORE and not DISPATCH_TEST_AFTER", env)
	}
}

// TestNewRunnerResolvesOnce: a bare name is looked up in PATH once; later
// PATH changes do not move the runner.
func TestNewRunnerResolvesOnce(t *testing.T) {
	t.Setenv("PATH", filepath.Dir(fakeCLI))
	r, err := NewRunner(filepath.Base(fakeCLI), &Options{LeadingArgs: []string{"tiny"}})
	if err != nil {
		t.Fatal(err)
	}
	if r.Path() != fakeCLI {
		t.Fatalf("Path() = %q, want %q", r.Path(), fakeCLI)
	}
	t.Setenv("PATH", t.TempDir())
	if _, err := r.Run(bg(), nil); err != nil {
		t.Fatalf("Run after PATH changed: %v", err)
	}
}

// TestZeroOptionsTakeTheDocumentedDefaults pins the defaults the package
// doc and the issue publish (1 MiB, 64 KiB, 30 s, 2 s) and that a zero
// Options gets them: tests elsewhere set short timeouts and graces, so a
// lost default would go unnoticed there.
func TestZeroOptionsTakeTheDocumentedDefaults(t *testing.T) {
	r, err := NewRunner(fakeCLI, &Options{})
	if err != nil {
		t.Fatal(err)
	}
	got := []any{r.stdoutCap, r.stderrCap, r.timeout, r.grace}
	want := []any{int64(1 << 20), int64(64 << 10), 30 * time.Second, 2 * time.Second}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("stdout cap, stderr cap, timeout, grace of a zero Options (-want +got):\n%s", diff)
	}
}

func TestNewRunnerRefuses(t *testing.T) {
	dir := t.TempDir()
	notExec := filepath.Join(dir, "notexec")
	if err := os.WriteFile(notExec, []byte("#!/bin/sh\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name    string
		program string
		opts    Options
		want    string // in the message
	}{
		{"missing program", filepath.Join(dir, "nope"), Options{}, "does not exist"},
		{"program not in PATH", "dispatch-no-such-program", Options{}, "not found in PATH"},
		{"program is a directory", dir, Options{}, "is a directory"},
		{"program not executable", notExec, Options{}, "is not executable"},
		{"empty program", "", Options{}, "no program given"},
		{"negative timeout", fakeCLI, Options{Timeout: -time.Second}, "Timeout"},
		{"negative stdout cap", fakeCLI, Options{StdoutCap: -1}, "StdoutCap"},
		{"negative stderr cap", fakeCLI, Options{StderrCap: -1}, "StderrCap"},
		{"negative grace", fakeCLI, Options{Grace: -1}, "Grace"},
		{"working directory missing", fakeCLI, Options{Dir: filepath.Join(dir, "gone")}, "is not a directory"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, err := NewRunner(tt.program, &tt.opts)
			if err == nil {
				t.Fatalf("NewRunner = %v, nil; want an error", r.Path())
			}
			if kindOf(err) != KindLaunchFailed || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("error %q (kind %q); want launch_failed mentioning %q", err, kindOf(err), tt.want)
			}
		})
	}
}

// TestLaunchFailedAtRunTime: a program removed after NewRunner fails to
// launch with a typed error, not a panic or a hang.
func TestLaunchFailedAtRunTime(t *testing.T) {
	dir := t.TempDir()
	prog := filepath.Join(dir, "cli")
	b, err := os.ReadFile(fakeCLI)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(prog, b, 0o755); err != nil {
		t.Fatal(err)
	}
	r, err := NewRunner(prog, &Options{})
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(prog); err != nil {
		t.Fatal(err)
	}
	res, err := r.Execute(bg(), []string{"tiny"})
	if kindOf(err) != KindLaunchFailed || !errors.Is(err, fs.ErrNotExist) || res.PID != 0 {
		t.Fatalf("error %v, pid %d; want launch_failed wrapping fs.ErrNotExist, no pid", err, res.PID)
	}
	if !strings.Contains(err.Error(), prog) {
		t.Errorf("message %q does not name the program", err)
	}
}

// TestConcurrentRuns: one Runner serves many goroutines at once (run with
// -race), each getting its own answer.
func TestConcurrentRuns(t *testing.T) {
	r := newFake(t, Options{LeadingArgs: []string{"ok"}})
	var wg sync.WaitGroup
	errs := make(chan error, 16)
	for i := range 16 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			arg := fmt.Sprintf("call-%d", i)
			data, err := r.Run(bg(), []string{arg})
			if err != nil {
				errs <- err
				return
			}
			var got struct{ Args []string }
			if err := json.Unmarshal(data, &got); err != nil || len(got.Args) != 1 || got.Args[0] != arg {
				errs <- fmt.Errorf("call %d got %s", i, data)
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}

// TestErrorsMeetContractC3: consumers see every error only through
// interface{ ErrorCode() string } and ErrorDetails; the codes are the
// published ones.
func TestErrorsMeetContractC3(t *testing.T) {
	type coded interface {
		ErrorCode() string
		ErrorDetails() map[string]any
	}
	r := newFake(t, Options{Timeout: 200 * time.Millisecond})
	tests := []struct {
		argv []string
		code string
		keys []string // details keys that must be present
	}{
		{[]string{"exit", "3"}, "nonzero_exit", []string{"command", "problem", "exit_code", "result_problem"}},
		{[]string{"hang"}, "timeout", []string{"command", "problem", "timeout_seconds"}},
		{[]string{"print", "{}{}"}, "multiple_results", []string{"command", "problem"}},
		{[]string{"print", `{"result_version":7}`}, "unsupported_result_version", []string{"result_version"}},
		{[]string{"print", errResult, "1"}, "cli_error", []string{"code", "message", "details"}},
	}
	for _, tt := range tests {
		t.Run(tt.code, func(t *testing.T) {
			_, err := r.Run(bg(), tt.argv)
			var c coded
			if !errors.As(err, &c) {
				t.Fatalf("error %T %v does not implement ErrorCode/ErrorDetails", err, err)
			}
			if c.ErrorCode() != tt.code {
				t.Fatalf("ErrorCode() = %q, want %q", c.ErrorCode(), tt.code)
			}
			d := c.ErrorDetails()
			for _, k := range tt.keys {
				if _, ok := d[k]; !ok {
					t.Errorf("details %v lack %q", d, k)
				}
			}
			if _, err := json.Marshal(d); err != nil {
				t.Errorf("details are not JSON-ready: %v", err)
			}
		})
	}
}

// TestErrorMessageNamesCommand: a message names the program and argv, with
// long arguments and long argv shortened so it stays one readable line.
func TestErrorMessageNamesCommand(t *testing.T) {
	long := strings.Repeat("p", 100000)
	many := []string{"exit", "5"}
	for i := range 30 {
		many = append(many, fmt.Sprintf("arg%d", i))
	}
	r := newFake(t, Options{})
	tests := []struct {
		name string
		argv []string
		want []string
		max  int
	}{
		{"short argv shown whole, special args quoted", []string{"exit", "5", "a b", "--flag=x"}, []string{fakeCLI + ` exit 5 "a b" --flag=x: exited with status 5`}, 300},
		{"long argument cut, length noted", []string{"exit", "5", long}, []string{strings.Repeat("p", shownArgKeepLen) + `…"(100000 bytes)`}, 400},
		{"long argv cut, count noted", many, []string{"arg13 …(+16 more args)"}, 600},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := r.Run(bg(), tt.argv)
			msg := err.Error()
			for _, w := range tt.want {
				if !strings.Contains(msg, w) {
					t.Errorf("message %q\nlacks %q", msg, w)
				}
			}
			if len(msg) > tt.max {
				t.Errorf("message is %d bytes, want at most %d", len(msg), tt.max)
			}
		})
	}
}

// TestStrayChildGetsSIGTERMFirst: a member left running after the command
// exits on its own is stopped like a timed-out command, SIGTERM first, so
// it can clean up; SIGKILL comes only if it outlasts the grace.
func TestStrayChildGetsSIGTERMFirst(t *testing.T) {
	eachExitWaiter(t, func(t *testing.T, newRunner func(testing.TB, Options) *Runner) {
		pidfile := filepath.Join(t.TempDir(), "child.pid")
		r := newRunner(t, Options{Grace: 5 * time.Second})
		res, err := r.Execute(bg(), []string{"grandchild-leave", pidfile, "hang-note-term"})
		child := readPidfile(t, pidfile, time.Second)
		killNow(t, child)
		if err != nil || !res.GroupStopped {
			t.Fatalf("Execute = %+v, %v; want the result, with the stray child stopped", res, err)
		}
		assertGroupGone(t, res.PID)
		if _, err := os.Stat(pidfile + ".term"); err != nil {
			t.Errorf("the stray child was not sent SIGTERM before being stopped: %v", err)
		}
		if res.Duration >= 5*time.Second {
			t.Errorf("Execute took %v: a child that exits on SIGTERM must not cost the whole grace", res.Duration)
		}
	})
}

// TestZombieMemberDoesNotHoldExecute: a member that has exited but is never
// reaped (its parent, the command, is gone, and a container's init often
// does not reap) holds nothing, so it is not waited for. Counting it would
// make every such command wait killWait and then report it as a survivor.
func TestZombieMemberDoesNotHoldExecute(t *testing.T) {
	eachExitWaiter(t, func(t *testing.T, newRunner func(testing.TB, Options) *Runner) {
		// Become the subreaper: the command's orphaned child is reparented to
		// this process, which does not reap it until the test is done, so it
		// certainly stays a zombie in the group: the non-reaping init, made
		// certain.
		becomeSubreaper(t)
		pidfile := filepath.Join(t.TempDir(), "child.pid")
		r := newRunner(t, Options{})
		res, err := r.Execute(bg(), []string{"grandchild-leave", pidfile})
		child := readPidfile(t, pidfile, time.Second)
		t.Cleanup(func() {
			_ = syscall.Kill(child, syscall.SIGKILL)
			var ws unix.WaitStatus
			_, _ = unix.Wait4(child, &ws, 0, nil) // reap it: it is this process's child now
		})
		if err != nil || !res.GroupStopped {
			t.Fatalf("Execute = %+v, %v; want the result, with the stray child stopped", res, err)
		}
		st, serr := procid.ReadStat(child)
		if serr != nil || st.State != 'Z' || st.PGID != res.PID {
			t.Fatalf("child %d: %+v, %v; the test needs it to be an unreaped zombie in group %d", child, st, serr, res.PID)
		}
		if len(res.Survivors) != 0 {
			t.Errorf("Survivors = %v; a zombie is not a survivor", res.Survivors)
		}
		if res.Duration >= killWait/2 {
			t.Errorf("Execute took %v; a zombie in the group must not be waited for (killWait is %v)", res.Duration, killWait)
		}
	})
}

// eachExitWaiter runs f once per exit waiter; newRunner builds a fake-CLI
// runner (as newFake does, failing t) that waits with it.
func eachExitWaiter(t *testing.T, f func(t *testing.T, newRunner func(testing.TB, Options) *Runner)) {
	for _, ew := range exitWaiters {
		t.Run(ew.name, func(t *testing.T) {
			f(t, func(t testing.TB, opts Options) *Runner {
				r := newFake(t, opts)
				r.awaitExit = ew.wait
				return r
			})
		})
	}
}
