package fromcobrabin

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
	"sync/atomic"
	"time"
)

// program runs the installed cobra program: its argv (the executable and
// fixed leading arguments) followed by one question (__complete … or
// PATH… --help), with a fixed environment, a bounded time and bounded
// output, at most a few at once.
type program struct {
	argv      []string
	env       []string
	dir       string
	timeout   time.Duration
	maxOutput int
	slots     chan struct{}
	calls     atomic.Int64
}

// fixedEnv is what every call sets over the operator's environment, so
// that the output is the plain layout the reader knows: no colour, no
// terminal, a fixed width for a program that wraps by it, the C locale, no
// active-help lines in completions, and completion descriptions on.
var fixedEnv = []string{
	"NO_COLOR=1",
	"CLICOLOR=0",
	"TERM=dumb",
	"COLUMNS=200",
	"LANG=C",
	"LC_ALL=C",
	"COBRA_ACTIVE_HELP=0",
	"COBRA_COMPLETION_DESCRIPTIONS=true",
}

// environ is env with fixedEnv set over it. Cobra reads a program-specific
// NAME_ACTIVE_HELP and NAME_COMPLETION_DESCRIPTIONS before the COBRA_ ones,
// so any such variable from the operator's environment is dropped.
func environ(env []string) []string {
	fixed := map[string]bool{}
	for _, kv := range fixedEnv {
		k, _, _ := strings.Cut(kv, "=")
		fixed[k] = true
	}
	out := make([]string, 0, len(env)+len(fixedEnv))
	for _, kv := range env {
		k, _, _ := strings.Cut(kv, "=")
		if fixed[k] || strings.HasSuffix(k, "_ACTIVE_HELP") || strings.HasSuffix(k, "_COMPLETION_DESCRIPTIONS") {
			continue
		}
		out = append(out, kv)
	}
	return append(out, fixedEnv...)
}

// output is what one call printed.
type output struct {
	stdout, stderr []byte
}

// errOverflow is a call whose output passed the cap.
var errOverflow = errors.New("output cap reached")

// cappedBuffer keeps at most max bytes and cancels the call on the first
// byte beyond, so a program that prints without end is stopped, not read.
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

// run runs the program with args after its argv. A call that cannot start,
// exits non-zero, runs past the timeout or prints past the cap is an error
// that says which, naming the arguments; what it printed is returned all
// the same.
func (p *program) run(ctx context.Context, args ...string) (output, error) {
	select {
	case p.slots <- struct{}{}:
	case <-ctx.Done():
		return output{}, ctx.Err()
	}
	defer func() { <-p.slots }()
	p.calls.Add(1)

	cctx, cancel := context.WithTimeout(ctx, p.timeout)
	defer cancel()
	stdout := &cappedBuffer{max: p.maxOutput, cancel: cancel}
	stderr := &cappedBuffer{max: p.maxOutput, cancel: cancel}
	cmd := exec.CommandContext(cctx, p.argv[0], append(append([]string(nil), p.argv[1:]...), args...)...)
	cmd.Env, cmd.Dir = p.env, p.dir
	cmd.Stdin = nil // the null device: a program that asks for input gets none
	cmd.Stdout, cmd.Stderr = stdout, stderr
	// A program whose children keep its pipes open must not hold the walk.
	cmd.WaitDelay = time.Second
	setProcessGroup(cmd)
	err := startTied(cmd)
	if err == nil {
		err = cmd.Wait()
	}
	out := output{stdout: stdout.buf.Bytes(), stderr: stderr.buf.Bytes()}
	call := p.describe(args)
	switch {
	case stdout.overflow || stderr.overflow:
		return out, &callError{err: fmt.Errorf("%s: printed more than %d bytes; stopped", quoteCall(call), p.maxOutput)}
	case ctx.Err() != nil:
		return out, ctx.Err()
	case cctx.Err() != nil:
		return out, &callError{err: fmt.Errorf("%s: did not finish within %s; stopped", quoteCall(call), p.timeout)}
	case err != nil:
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			return out, &callError{exit: true, err: fmt.Errorf("%s: %v%s", quoteCall(call), err, stderrTail(out.stderr))}
		}
		return out, &callError{launch: true, err: fmt.Errorf("%s: %w", quoteCall(call), err)}
	}
	return out, nil
}

// describe names a call in messages: the program by its file name (the
// error is about that program; its directory says nothing more), then the
// leading arguments and args.
func (p *program) describe(args []string) string {
	return strings.Join(append(append([]string{filepath.Base(p.argv[0])}, p.argv[1:]...), args...), " ")
}

func quoteCall(call string) string {
	if len(call) > 200 {
		call = call[:200] + "…"
	}
	return fmt.Sprintf("%q", call)
}

// stderrTail is the last line of what a failed call printed on stderr, for
// its error message.
func stderrTail(b []byte) string {
	s := strings.TrimSpace(string(b))
	if s == "" {
		return ""
	}
	if i := strings.LastIndexByte(s, '\n'); i >= 0 {
		s = s[i+1:]
	}
	if len(s) > 200 {
		s = s[:200] + "…"
	}
	return ": " + s
}

// lookPath resolves the executable of argv as exec would, once, so that
// every call runs the same file.
func lookPath(name string) (string, error) {
	path, err := exec.LookPath(name)
	if err != nil {
		return "", err
	}
	if _, err := os.Stat(path); err != nil {
		return "", err
	}
	return path, nil
}
