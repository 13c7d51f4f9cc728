package fromclap

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/verbsurface/verbsurface/projector"
	"github.com/verbsurface/verbsurface/projector/internal/helprun"
)

// Defaults of [Options].
const (
	DefaultTimeout     = 10 * time.Second
	DefaultMaxOutput   = 4 << 20
	DefaultParallel    = 4
	DefaultMaxCommands = 2000
	// MaxDepth bounds how deep the walk follows subcommands.
	MaxDepth = 12
)

// Options adjusts a walk. The zero value (or a nil *Options) runs the
// program in the current environment and directory with the defaults
// above.
type Options struct {
	// Env is the program's environment (nil: this process's); the walk
	// sets NO_COLOR, TERM=dumb, COLUMNS and the C locale over it.
	Env []string
	// Dir is the program's working directory ("": this process's).
	Dir string
	// Timeout bounds each call of the program; MaxOutput what it may
	// print on stdout, and on stderr, per call.
	Timeout   time.Duration
	MaxOutput int
	// Parallel is how many calls run at once.
	Parallel int
	// MaxCommands bounds how many command paths the walk visits.
	MaxCommands int
	// ExcludeFlags names parameters (schema name or option string) that
	// are no caller's anywhere in the tree, removed as
	// projector.ExcludeParams removes them.
	ExcludeFlags []string
}

// Error is a walk that produced no tree: the program could not be run,
// its root help is not clap's layout, or a call ran past a bound. What one
// command's help leaves unsettled is not an Error: that command is
// unavailable in the tree, with its reason.
type Error struct {
	Argv []string
	Kind ErrorKind
	Err  error
}

// ErrorKind classifies an [Error].
type ErrorKind string

const (
	KindLaunch ErrorKind = "launch" // the executable cannot be found or started
	KindLayout ErrorKind = "layout" // the root's --help is not clap's layout, or fails
	KindCall   ErrorKind = "call"   // a call ran past its timeout or output cap
	KindLimit  ErrorKind = "limit"  // more commands than Options.MaxCommands
)

func (e *Error) Error() string {
	return fmt.Sprintf("fromclap: %q: %v", strings.Join(e.Argv, " "), e.Err)
}

func (e *Error) Unwrap() error { return e.Err }

// Walk reads the parser model (dialect clap) of the installed clap program
// argv — its executable and any fixed leading arguments, as it would be
// started: {"fdfind"} or {"/usr/bin/rg"} — from its own --help, one call
// per command path, without running any of its commands. See the package
// documentation for what is read and what is left unavailable.
func Walk(ctx context.Context, argv []string, opts *Options) (*projector.Tree, error) {
	if opts == nil {
		opts = &Options{}
	}
	resolved, err := helprun.Resolve(argv)
	if err != nil {
		return nil, &Error{Argv: argv, Kind: KindLaunch, Err: err}
	}
	env := opts.Env
	if env == nil {
		env = os.Environ()
	}
	w := &walker{
		prog: &helprun.Program{Argv: resolved, Env: helprun.Environ(env), Dir: opts.Dir,
			Timeout: positive(opts.Timeout, DefaultTimeout), MaxOutput: positive(opts.MaxOutput, DefaultMaxOutput),
			Parallel: positive(opts.Parallel, DefaultParallel)},
		argv: argv,
		max:  positive(opts.MaxCommands, DefaultMaxCommands),
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	root, err := w.read(ctx, nil)
	if err != nil {
		var ce *helprun.CallError
		switch {
		case errors.As(err, &ce) && ce.Launch:
			return nil, &Error{Argv: argv, Kind: KindLaunch, Err: err}
		case errors.As(err, &ce) && !ce.Exit:
			return nil, &Error{Argv: argv, Kind: KindCall, Err: err}
		case ctx.Err() != nil:
			return nil, ctx.Err()
		}
		return nil, &Error{Argv: argv, Kind: KindLayout, Err: err}
	}
	tree := &projector.Tree{Program: filepath.Base(argv[0]), Dialect: projector.DialectClap}
	if err := w.walk(ctx, cancel, tree, root); err != nil {
		return nil, err
	}
	if len(opts.ExcludeFlags) > 0 {
		tree = projector.ExcludeParams(tree, opts.ExcludeFlags...)
	}
	return tree, nil
}

func positive[T int | time.Duration](v, def T) T {
	if v > 0 {
		return v
	}
	return def
}

type walker struct {
	prog *helprun.Program
	argv []string
	max  int
}

// node is one command's help, read, with its path.
type node struct {
	path    []string
	help    *help
	summary string
	aliases []string
	failed  error // the command's help could not be read: it is unavailable
}

// read runs PATH... --help and parses it.
func (w *walker) read(ctx context.Context, path []string) (*node, error) {
	out, _, err := w.prog.Run(ctx, append(slices.Clone(path), "--help")...)
	if err != nil {
		return nil, err
	}
	h, err := parseHelp(string(out))
	if err != nil {
		return nil, err
	}
	return &node{path: path, help: h}, nil
}

// walk visits the command tree breadth first, reading each level's helps
// concurrently, and appends every command to tree, parents first.
func (w *walker) walk(ctx context.Context, cancel context.CancelFunc, tree *projector.Tree, root *node) error {
	level := []*node{root}
	count := 1
	for depth := 0; len(level) > 0; depth++ {
		var next []*node
		for _, n := range level {
			tree.Commands = append(tree.Commands, n.command())
			if n.failed != nil || depth >= MaxDepth {
				continue
			}
			for _, c := range n.help.commands {
				name, aliases, ok := commandName(c)
				if !ok {
					continue
				}
				next = append(next, &node{path: append(slices.Clone(n.path), name), summary: c.summary(), aliases: aliases})
			}
		}
		count += len(next)
		if count > w.max {
			return &Error{Argv: w.argv, Kind: KindLimit, Err: fmt.Errorf("more than %d commands (Options.MaxCommands)", w.max)}
		}
		var wg sync.WaitGroup
		var mu sync.Mutex
		var fatal error
		for _, n := range next {
			wg.Add(1)
			go func() {
				defer wg.Done()
				r, err := w.read(ctx, n.path)
				var ce *helprun.CallError
				switch {
				case err == nil:
					n.help = r.help
				case errors.As(err, &ce) && (ce.Exit || ce.Launch) || !errors.As(err, &ce) && ctx.Err() == nil:
					n.failed = err // that command only: its help exits non-zero or is not clap's layout
				default:
					mu.Lock()
					if fatal == nil {
						fatal = err
						cancel()
					}
					mu.Unlock()
				}
			}()
		}
		wg.Wait()
		if fatal != nil {
			if ctx.Err() != nil && !errors.As(fatal, new(*helprun.CallError)) {
				return fatal
			}
			return &Error{Argv: w.argv, Kind: KindCall, Err: fatal}
		}
		level = next
	}
	return nil
}

// commandName reads a Commands entry: its name, and aliases clap lists
// after the summary. clap's own help subcommand is not a command.
func commandName(e *entry) (string, []string, bool) {
	names := strings.Split(e.head, ",")
	name := strings.TrimSpace(names[0])
	if name == "" || strings.ContainsAny(name, " <[") {
		return "", nil, false
	}
	if name == "help" && (strings.HasPrefix(e.text, "Print this message") || strings.HasPrefix(e.text, "Prints this message")) {
		return "", nil, false
	}
	var aliases []string
	for _, a := range names[1:] {
		aliases = append(aliases, strings.TrimSpace(a))
	}
	_, _, more := e.notes()
	return name, append(aliases, more...), true
}
