// Package pywalk runs an adapter's embedded Python walker: the interpreter
// the operator chose, the walker's source on -c, a JSON request on stdin,
// one JSON answer on stdout, in its own process group under a time limit.
// fromargparse and fromclick share it; each wraps its failures in its own
// error type.
package pywalk

import (
	"bytes"
	"context"
	_ "embed"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"
)

// DefaultTimeout bounds one walk when Config.Timeout is zero.
const DefaultTimeout = 60 * time.Second

// Config says how to run the walker.
type Config struct {
	Python     string        // interpreter name or path ("python3" when empty)
	PythonPath []string      // prepended to $PYTHONPATH
	Dir        string        // working directory ("" : this process's)
	Timeout    time.Duration // DefaultTimeout when zero or less
	MinVersion string        // named when the answer does not decode ("3.9")
	MaxOutput  int64         // the most the walker may print; DefaultMaxOutput when zero or less
}

// DefaultMaxOutput bounds what a walker prints: the model of a parser of
// thousands of commands is a few megabytes; a walker past this is stopped,
// so a hostile or broken parser cannot fill the operator's memory.
const DefaultMaxOutput = 256 << 20

// stderrKeep is how much of a walker's stderr is kept (its end, which
// holds a traceback's cause).
const stderrKeep = 64 << 10

// cappedBuffer keeps what is written up to max bytes; past it, it keeps
// nothing more, notes the overflow, and calls over once (to stop the
// writer).
type cappedBuffer struct {
	buf      bytes.Buffer
	max      int64
	overflow bool
	over     func()
}

func (c *cappedBuffer) Write(p []byte) (int, error) {
	if c.overflow {
		return len(p), nil
	}
	if int64(c.buf.Len()+len(p)) > c.max {
		c.overflow = true
		c.over()
		return len(p), nil
	}
	return c.buf.Write(p)
}

// tailBuffer keeps the last keep bytes written.
type tailBuffer struct {
	buf  []byte
	keep int
}

func (t *tailBuffer) Write(p []byte) (int, error) {
	t.buf = append(t.buf, p...)
	if len(t.buf) > 2*t.keep {
		t.buf = append(t.buf[:0], t.buf[len(t.buf)-t.keep:]...)
	}
	return len(p), nil
}

func (t *tailBuffer) String() string {
	if len(t.buf) > t.keep {
		return string(t.buf[len(t.buf)-t.keep:])
	}
	return string(t.buf)
}

// Failure is a walk that produced no answer. Kind is "python_missing" (the
// interpreter is not found) or "python_failed" (it failed, was stopped, or
// printed no valid answer); Message says which, with the end of its
// stderr.
type Failure struct {
	Kind    string
	Message string
}

func (f *Failure) Error() string { return f.Message }

// prelude is what every walker shares (prelude.py): the protocol's main,
// WalkError and the plain-JSON test. Run puts it before each walker.
//
//go:embed prelude.py
var prelude string

// Run runs source, after the walkers' shared prelude (prelude.py), in
// mode (its one argument) with request as JSON on stdin and decodes its
// stdout into answer (numbers as json.Number). The walker
// runs imported code, which may start processes of its own: on timeout or
// cancellation its whole process group is killed, where the platform has
// process groups.
func Run(ctx context.Context, cfg Config, source, mode string, request, answer any) error {
	python := cfg.Python
	if python == "" {
		python = "python3"
	}
	path, err := exec.LookPath(python)
	if err != nil {
		return &Failure{Kind: "python_missing", Message: fmt.Sprintf("Python interpreter %q not found (%v): install Python 3 or set Options.Python", python, err)}
	}
	timeout := cfg.Timeout
	if timeout <= 0 {
		timeout = DefaultTimeout
	}
	runCtx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	in, err := json.Marshal(request)
	if err != nil {
		return err
	}
	cmd := exec.CommandContext(runCtx, path, "-c", prelude+"\n\n"+source, mode)
	cmd.Dir = cfg.Dir
	cmd.Env = Env(cfg.PythonPath)
	cmd.Stdin = bytes.NewReader(in)
	maxOut := cfg.MaxOutput
	if maxOut <= 0 {
		maxOut = DefaultMaxOutput
	}
	stdout := &cappedBuffer{max: maxOut, over: cancel}
	stderr := &tailBuffer{keep: stderrKeep}
	cmd.Stdout, cmd.Stderr = stdout, stderr
	ownProcessGroup(cmd)
	cmd.WaitDelay = time.Second
	err = startTied(cmd)
	if err == nil {
		err = cmd.Wait()
	}
	if stdout.overflow {
		return &Failure{Kind: "python_failed", Message: fmt.Sprintf("%s printed more than %d bytes and was stopped: a parser's model is never that large", path, maxOut)}
	}
	if err != nil {
		msg := strings.TrimSpace(stderr.String())
		if len(msg) > 2000 {
			msg = "…" + msg[len(msg)-2000:]
		}
		switch {
		case ctx.Err() != nil:
			return &Failure{Kind: "python_failed", Message: fmt.Sprintf("%s was stopped: the walk was cancelled (%v): %s", path, context.Cause(ctx), msg)}
		case runCtx.Err() != nil:
			return &Failure{Kind: "python_failed", Message: fmt.Sprintf("%s did not finish within %v (Options.Timeout): %s", path, timeout, msg)}
		}
		return &Failure{Kind: "python_failed", Message: fmt.Sprintf("%s failed: %v: %s", path, err, msg)}
	}
	dec := json.NewDecoder(&stdout.buf)
	dec.UseNumber()
	if err := dec.Decode(answer); err != nil {
		return &Failure{Kind: "python_failed", Message: fmt.Sprintf("%s printed no valid answer (%v); is it Python %s or later?", path, err, cfg.MinVersion)}
	}
	return nil
}

// Env is the walker's environment: this process's, without the hooks that
// would write to its stdout (PYTHONSTARTUP), with pythonPath first on
// PYTHONPATH, UTF-8 I/O, no bytecode written beside the walked code, and
// one fixed string hash seed: a help text built from a set (pip freeze's
// list of skipped packages) must read the same in every walk, or the
// schema's fingerprint would change between two starts of one program.
// Tests that run Python beside a walker use it too.
func Env(pythonPath []string) []string {
	env := []string{}
	for _, kv := range os.Environ() {
		if strings.HasPrefix(kv, "PYTHONSTARTUP=") || strings.HasPrefix(kv, "PYTHONPATH=") || strings.HasPrefix(kv, "PYTHONHASHSEED=") {
			continue
		}
		env = append(env, kv)
	}
	parts := append([]string(nil), pythonPath...)
	if old := os.Getenv("PYTHONPATH"); old != "" {
		parts = append(parts, old)
	}
	if len(parts) > 0 {
		env = append(env, "PYTHONPATH="+strings.Join(parts, string(filepath.ListSeparator)))
	}
	return append(env, "PYTHONIOENCODING=utf-8", "PYTHONDONTWRITEBYTECODE=1", "PYTHONHASHSEED=0")
}

// PlainValue decodes a value a walker reported as plain JSON: nil and false
// for JSON null or nothing, numbers as int64 where they are whole and
// float64 otherwise (also inside arrays), as the parser model holds them.
func PlainValue(raw json.RawMessage) (any, bool) {
	if raw == nil || string(raw) == "null" {
		return nil, false
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var x any
	if err := dec.Decode(&x); err != nil {
		return nil, false
	}
	return Numbers(x), true
}

// Numbers turns the json.Numbers in x (a value or an array of them) into
// int64 where whole and float64 otherwise, in place.
func Numbers(x any) any {
	switch v := x.(type) {
	case json.Number:
		if i, err := v.Int64(); err == nil {
			return i
		}
		f, _ := v.Float64()
		return f
	case []any:
		for i := range v {
			v[i] = Numbers(v[i])
		}
	}
	return x
}

// PurePosixPath is str(pathlib.PurePosixPath(s)) in Python 3.11: empty and
// "." components and trailing slashes dropped, repeated slashes collapsed
// (two leading ones kept, as POSIX allows), "" read as ".". The round-trip
// tests compare a path the parser handed over as a pathlib object with it.
func PurePosixPath(s string) string {
	root := ""
	switch {
	case strings.HasPrefix(s, "//") && !strings.HasPrefix(s, "///"):
		root = "//"
	case strings.HasPrefix(s, "/"):
		root = "/"
	}
	var parts []string
	for _, part := range strings.Split(s, "/") {
		if part != "" && part != "." {
			parts = append(parts, part)
		}
	}
	out := root + strings.Join(parts, "/")
	if out == "" {
		return "."
	}
	return out
}
