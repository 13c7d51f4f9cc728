package fromclick

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

	// Exclude names parameters no caller may set, by option string
	// ("--config") or parameter name ("config"), in every command: they
	// are left out of Params and recorded in Command.Excluded, like
	// fromcobra's ExcludeFlags (a machine-mode flag the embedder renders
	// itself, an option that names a configuration file, a debug switch).
	// Excluding a required parameter makes its command unavailable.
	Exclude []string
	// Callbacks lists parameter callbacks, by qualified name
	// ("mytool.cli.validate_port"), that the operator vouches for: they
	// validate the value and return it unchanged. Any other callback makes
	// its command unavailable, since it may change what a value means.
	Callbacks []string
	// StringTypes lists custom click ParamType classes, by qualified name
	// ("mytool.cli.HostPort"), that the operator vouches read one plain
	// string and open no file: they are offered as strings, their convert
	// being the CLI's final validator. Any other custom type makes its
	// command unavailable.
	StringTypes []string
}

// Error is a failure to obtain a command: Python is missing, click or the
// module does not import, the attribute is missing, the factory fails or
// returns something that is neither a click command nor a Typer app.
// Kind is one of the kinds of fromargparse.Error: "python_missing",
// "python_failed", "bad_target", "import", "no_factory", "factory",
// "not_parser" (here: not a click command or a Typer app).
type Error struct {
	Target  string
	Kind    string
	Message string
}

func (e *Error) Error() string {
	if e.Target == "" {
		return "fromclick: " + e.Message
	}
	return fmt.Sprintf("fromclick: target %s: %s", e.Target, e.Message)
}

// walker is the embedded walker as opts runs it (package pywalk: the
// interpreter, its process group, the time limit), failing with *Error.
func walker(opts *Options) *pywalk.Walker {
	if opts == nil {
		opts = &Options{}
	}
	return &pywalk.Walker{
		Source: walkerSource,
		Config: pywalk.Config{Python: opts.Python, PythonPath: opts.PythonPath, Dir: opts.Dir, Timeout: opts.Timeout, MinVersion: "3.8"},
		Fail:   func(target, kind, message string) error { return &Error{Target: target, Kind: kind, Message: message} },
	}
}

// runWalker runs the embedded walker in mode with request on stdin and
// decodes its JSON answer into answer.
func runWalker(ctx context.Context, opts *Options, mode string, request, answer any) error {
	return walker(opts).Call(ctx, mode, request, answer)
}
