package fromargparse

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

//go:embed walker.py
var walkerSource string

// Options adjusts how the Python walker runs. The zero value (or a nil
// *Options) runs "python3" from PATH in the current directory with a 60 s
// limit.
type Options struct {
	// Python is the interpreter to run: a path, or a name looked up in
	// PATH. Default "python3".
	Python string
	// PythonPath lists directories prepended to PYTHONPATH, so a CLI's
	// package can be imported without installing it.
	PythonPath []string
	// Dir is the working directory of the walker. A parser's defaults can
	// depend on it (http.server's --directory defaults to os.getcwd()), and
	// the directory is on sys.path (python3 -c puts it there).
	Dir string
	// Timeout bounds one walker run (all its targets together). Default 60 s.
	// On timeout, as on cancellation of the context, the walker's whole
	// process group is killed (imported code may have started processes).
	Timeout time.Duration
	// ExcludeFlags names parameters (schema name "home" or option string
	// "--home") that are no caller's parameters anywhere in the tree: the
	// operator sets them itself. They are removed as
	// projector.ExcludeParams removes them, and recorded in each command's
	// Excluded.
	ExcludeFlags []string
}

// Error is a failure to obtain a parser: Python is missing, the module does
// not import, the factory fails or returns something that is not a parser.
// Kind is one of: "python_missing", "python_failed", "bad_target",
// "import", "no_factory", "factory", "not_parser", "no_parser".
type Error struct {
	Target  string
	Kind    string
	Message string
}

func (e *Error) Error() string {
	if e.Target == "" {
		return "fromargparse: " + e.Message
	}
	return fmt.Sprintf("fromargparse: target %s: %s", e.Target, e.Message)
}

// runWalker runs the embedded walker in mode with request on stdin and
// decodes its JSON answer into answer.
func runWalker(ctx context.Context, opts *Options, mode string, request, answer any) error {
	if opts == nil {
		opts = &Options{}
	}
	python := opts.Python
	if python == "" {
		python = "python3"
	}
	path, err := exec.LookPath(python)
	if err != nil {
		return &Error{Kind: "python_missing", Message: fmt.Sprintf("Python interpreter %q not found (%v): install Python 3 or set Options.Python", python, err)}
	}
	timeout := opts.Timeout
	if timeout <= 0 {
		timeout = 60 * time.Second
	}
	runCtx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	in, err := json.Marshal(request)
	if err != nil {
		return err
	}
	cmd := exec.CommandContext(runCtx, path, "-c", walkerSource, mode)
	cmd.Dir = opts.Dir
	cmd.Env = walkerEnv(opts.PythonPath)
	cmd.Stdin = bytes.NewReader(in)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	// The walker runs imported code, which may start processes of its
	// own: on timeout or cancellation the whole process group goes, so a
	// hung factory leaves nothing behind.
	ownProcessGroup(cmd)
	cmd.WaitDelay = time.Second
	if err := cmd.Run(); err != nil {
		msg := strings.TrimSpace(stderr.String())
		if len(msg) > 2000 {
			msg = "…" + msg[len(msg)-2000:]
		}
		switch {
		case ctx.Err() != nil:
			return &Error{Kind: "python_failed", Message: fmt.Sprintf("%s was stopped: the walk was cancelled (%v): %s", path, context.Cause(ctx), msg)}
		case runCtx.Err() != nil:
			return &Error{Kind: "python_failed", Message: fmt.Sprintf("%s did not finish within %v (Options.Timeout): %s", path, timeout, msg)}
		}
		return &Error{Kind: "python_failed", Message: fmt.Sprintf("%s failed: %v: %s", path, err, msg)}
	}
	dec := json.NewDecoder(&stdout)
	dec.UseNumber()
	if err := dec.Decode(answer); err != nil {
		return &Error{Kind: "python_failed", Message: fmt.Sprintf("%s printed no valid answer (%v); is it Python 3.9 or later?", path, err)}
	}
	return nil
}

func walkerEnv(pythonPath []string) []string {
	env := []string{}
	for _, kv := range os.Environ() {
		// The walker's stdout is the answer: no interactive hooks, no
		// user site quirks from the caller's environment.
		if strings.HasPrefix(kv, "PYTHONSTARTUP=") || strings.HasPrefix(kv, "PYTHONPATH=") {
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
	env = append(env, "PYTHONIOENCODING=utf-8", "PYTHONDONTWRITEBYTECODE=1")
	return env
}
