package fromargparse

import (
	"context"
	_ "embed"
	"fmt"
	"time"

	"github.com/verbsurface/verbsurface/projector/internal/pywalk"
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

// walker is the embedded walker as opts runs it (package pywalk: the
// interpreter, its process group, the time limit), failing with *Error.
func walker(opts *Options) *pywalk.Walker {
	if opts == nil {
		opts = &Options{}
	}
	return &pywalk.Walker{
		Source: walkerSource,
		Config: pywalk.Config{Python: opts.Python, PythonPath: opts.PythonPath, Dir: opts.Dir, Timeout: opts.Timeout, MinVersion: "3.9"},
		Fail:   func(target, kind, message string) error { return &Error{Target: target, Kind: kind, Message: message} },
	}
}

// runWalker runs the embedded walker in mode with request on stdin and
// decodes its JSON answer into answer.
func runWalker(ctx context.Context, opts *Options, mode string, request, answer any) error {
	return walker(opts).Call(ctx, mode, request, answer)
}
