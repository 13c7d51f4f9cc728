// Package helprun runs an installed program for its help, as the help
// readers do (fromclap, fromcobrabin): the executable resolved once, a fixed environment
// that asks for the plain layout, a bounded time and bounded output per
// call, a few calls at once, each in a process group killed whole when the
// call is stopped.
package helprun

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"time"
)

// FixedEnv is what every call sets over the operator's environment, so
// that the output is the plain layout a reader knows: no colour, no
// terminal, a fixed width for a program that wraps by it, the C locale.
var FixedEnv = []string{"NO_COLOR=1", "CLICOLOR=0", "TERM=dumb", "COLUMNS=200", "LANG=C", "LC_ALL=C"}

// Program runs one installed program with arguments after its argv.
type Program struct {
	Argv      []string // the executable (resolved) and fixed leading arguments
	Env       []string // with FixedEnv set over it
	Dir       string
	Timeout   time.Duration
	MaxOutput int
	slots     chan struct{}
	once      sync.Once
	Parallel  int
}

// Environ is env with FixedEnv set over it.
func Environ(env []string) []string {
	fixed := map[string]bool{}
	for _, kv := range FixedEnv {
		k, _, _ := strings.Cut(kv, "=")
		fixed[k] = true
	}
	out := make([]string, 0, len(env)+len(FixedEnv))
	for _, kv := range env {
		if k, _, _ := strings.Cut(kv, "="); !fixed[k] {
			out = append(out, kv)
		}
	}
	return append(out, FixedEnv...)
}

// Resolve looks argv[0] up as exec would, once, so that every call runs
// the same file.
func Resolve(argv []string) ([]string, error) {
	if len(argv) == 0 || argv[0] == "" {
		return nil, errors.New("no program given")
	}
	path, err := exec.LookPath(argv[0])
	if err != nil {
		return nil, err
	}
	if _, err := os.Stat(path); err != nil {
		return nil, err
	}
	return append([]string{path}, argv[1:]...), nil
}

// CallError is a call that failed: it could not start (Launch), exited
// non-zero (Exit), or ran past its time or output bound (neither).
type CallError struct {
	Launch, Exit bool
	Err          error
}

func (e *CallError) Error() string { return e.Err.Error() }
func (e *CallError) Unwrap() error { return e.Err }

var errOverflow = errors.New("output cap reached")

type cappedBuffer struct {
	mu       sync.Mutex
	buf      bytes.Buffer
	max      int
	overflow bool
	cancel   context.CancelFunc
}

func (b *cappedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.overflow {
		return 0, errOverflow
	}
	if b.buf.Len()+len(p) > b.max {
		b.overflow = true
		b.cancel()
		return 0, errOverflow
	}
	return b.buf.Write(p)
}

// Run runs the program with args after its argv, stdin the null device,
// and returns what it printed on stdout and stderr. A call that cannot
// start, exits non-zero, runs past the timeout or prints past the cap is
// a *CallError that says which, naming the arguments; what it printed is
// returned all the same. Cancellation of ctx returns ctx's error.
func (p *Program) Run(ctx context.Context, args ...string) (stdout, stderr []byte, err error) {
	p.once.Do(func() {
		n := p.Parallel
		if n <= 0 {
			n = 4
		}
		p.slots = make(chan struct{}, n)
	})
	select {
	case p.slots <- struct{}{}:
	case <-ctx.Done():
		return nil, nil, ctx.Err()
	}
	defer func() { <-p.slots }()
	cctx, cancel := context.WithTimeout(ctx, p.Timeout)
	defer cancel()
	out := &cappedBuffer{max: p.MaxOutput, cancel: cancel}
	errb := &cappedBuffer{max: p.MaxOutput, cancel: cancel}
	cmd := exec.CommandContext(cctx, p.Argv[0], append(append([]string(nil), p.Argv[1:]...), args...)...)
	cmd.Env, cmd.Dir = p.Env, p.Dir
	cmd.Stdout, cmd.Stderr = out, errb
	cmd.WaitDelay = time.Second // a child holding the pipes must not hold the walk
	setProcessGroup(cmd)
	runErr := startTied(cmd)
	if runErr == nil {
		runErr = cmd.Wait()
	}
	stdout, stderr = out.buf.Bytes(), errb.buf.Bytes()
	call := p.Describe(args...)
	switch {
	case out.overflow || errb.overflow:
		return stdout, stderr, &CallError{Err: fmt.Errorf("%s: printed more than %d bytes; stopped", call, p.MaxOutput)}
	case ctx.Err() != nil:
		return stdout, stderr, ctx.Err()
	case cctx.Err() != nil:
		return stdout, stderr, &CallError{Err: fmt.Errorf("%s: did not finish within %s; stopped", call, p.Timeout)}
	case runErr != nil:
		var ee *exec.ExitError
		if errors.As(runErr, &ee) {
			return stdout, stderr, &CallError{Exit: true, Err: fmt.Errorf("%s: %v%s", call, runErr, lastLine(stderr))}
		}
		return stdout, stderr, &CallError{Launch: true, Err: fmt.Errorf("%s: %w", call, runErr)}
	}
	return stdout, stderr, nil
}

// Describe names a call with args in messages, quoted: the program by its
// file name (the message is about that program; its directory says
// nothing more), then the leading arguments and args, clipped at 200
// bytes.
func (p *Program) Describe(args ...string) string {
	return fmt.Sprintf("%q", clip(strings.Join(append(append([]string{filepath.Base(p.Argv[0])}, p.Argv[1:]...), args...), " ")))
}

func clip(s string) string {
	if len(s) > 200 {
		return s[:200] + "…"
	}
	return s
}

func lastLine(b []byte) string {
	s := strings.TrimSpace(string(b))
	if s == "" {
		return ""
	}
	if i := strings.LastIndexByte(s, '\n'); i >= 0 {
		s = s[i+1:]
	}
	return ": " + clip(s)
}
