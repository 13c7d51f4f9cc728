package fromoptparse

import (
	"context"
	_ "embed"
	"fmt"
	"time"

	"github.com/verbsurface/verbsurface/projector/internal/pywalk"
)

//go:embed walker.py
var walkerSource string

// Options adjusts how the Python walker runs and what it vouches for. The
// zero value (or a nil *Options) runs "python3" from PATH in the current
// directory with a 60 s limit, and walks one parser or a table whose
// entries are parsers themselves.
type Options struct {
	// Python is the interpreter to run: a path, or a name looked up in
	// PATH. Default "python3".
	Python string
	// PythonPath lists directories prepended to PYTHONPATH.
	PythonPath []string
	// Dir is the working directory of the walker (a parser's defaults can
	// depend on it).
	Dir string
	// Timeout bounds one walker run (all its targets together). Default
	// 60 s. On timeout, as on cancellation, the walker's whole process
	// group is killed.
	Timeout time.Duration
	// Command is the command factory of a command table ("MODULE:FUNCTION"):
	// called with each name of the table, it returns that command's parser
	// or an object whose .parser is one (pip:
	// "pip._internal.commands:create_command"). Empty when the table's
	// entries are parsers (or such objects, or factories without
	// arguments) themselves.
	Command string
	// StringTypes names option types beyond optparse's own (an Option
	// subclass's TYPES) that the operator vouches read a plain string:
	// pip's "path" (which only expands "~"). Any other type outside
	// optparse's makes its option unrepresentable.
	StringTypes []string
	// ExcludeFlags names parameters (schema name or option string) that
	// are no caller's anywhere in the tree, removed as
	// projector.ExcludeParams removes them.
	ExcludeFlags []string
	// Program is the tree's display name; empty: the root parser's prog,
	// or the target's module for a command table.
	Program string
}

// Error is a failure to obtain a parser: Python is missing, the module does
// not import, the factory fails or gives something that is neither a parser
// nor a command table. Kind is one of: "python_missing", "python_failed",
// "bad_target", "import", "no_factory", "factory", "not_parser".
type Error struct {
	Target  string
	Kind    string
	Message string
}

func (e *Error) Error() string {
	if e.Target == "" {
		return "fromoptparse: " + e.Message
	}
	return fmt.Sprintf("fromoptparse: target %s: %s", e.Target, e.Message)
}

func walker(opts *Options) *pywalk.Walker {
	if opts == nil {
		opts = &Options{}
	}
	return &pywalk.Walker{
		Source:  walkerSource,
		Config:  pywalk.Config{Python: opts.Python, PythonPath: opts.PythonPath, Dir: opts.Dir, Timeout: opts.Timeout, MinVersion: "3.9"},
		Fail:    func(target, kind, message string) error { return &Error{Target: target, Kind: kind, Message: message} },
		Request: map[string]any{"command": opts.Command},
	}
}

// runWalker runs the embedded walker in mode with request on stdin and
// decodes its JSON answer into answer.
func runWalker(ctx context.Context, opts *Options, mode string, request, answer any) error {
	return walker(opts).Call(ctx, mode, request, answer)
}
