//go:build unix

package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"
	vsmachine "github.com/verbsurface/verbsurface/dispatch/machine"
	"github.com/verbsurface/verbsurface/examples/limcp/internal/machine"
	"github.com/verbsurface/verbsurface/examples/limcp/internal/notify"
	"github.com/verbsurface/verbsurface/examples/limcp/internal/quota"
	"github.com/verbsurface/verbsurface/examples/limcp/internal/run"
	"github.com/verbsurface/verbsurface/examples/limcp/internal/store"
	"github.com/verbsurface/verbsurface/examples/limcp/internal/termsafe"
)

// Options configure the CLI. The zero value is right for the binary.
type Options struct {
	Stdout io.Writer // nil → os.Stdout
	Stderr io.Writer // nil → os.Stderr
	// Getenv reads the environment (LIMCP_HOME, XDG_STATE_HOME, HOME, USER);
	// nil → os.Getenv.
	Getenv func(string) string
	// Executable is the limcp binary workers and schedule ticks re-execute;
	// "" → os.Executable().
	Executable string
}

func (o Options) withDefaults() Options {
	if o.Stdout == nil {
		o.Stdout = os.Stdout
	}
	if o.Stderr == nil {
		o.Stderr = os.Stderr
	}
	if o.Getenv == nil {
		o.Getenv = os.Getenv
	}
	return o
}

// StoreFile is the store's file name under the home.
const StoreFile = "state.db"

// HomeEnv is the environment variable naming the state home.
const HomeEnv = "LIMCP_HOME"

// ResolveHome returns the state home: flag, else $LIMCP_HOME, else
// $XDG_STATE_HOME/limcp, else $HOME/.local/state/limcp, made absolute.
func ResolveHome(flag string, getenv func(string) string) (string, error) {
	home := flag
	if home == "" {
		home = getenv(HomeEnv)
	}
	if home == "" {
		if x := getenv("XDG_STATE_HOME"); x != "" {
			home = filepath.Join(x, "limcp")
		}
	}
	if home == "" {
		h := getenv("HOME")
		if h == "" {
			var err error
			if h, err = os.UserHomeDir(); err != nil {
				return "", machine.Errorf(machine.StoreError, nil, "cannot find a state home: no --home, $%s, $XDG_STATE_HOME or home directory", HomeEnv)
			}
		}
		home = filepath.Join(h, ".local", "state", "limcp")
	}
	abs, err := filepath.Abs(home)
	if err != nil {
		return "", machine.Errorf(machine.StoreError, map[string]any{"home": home}, "state home %q: %v", home, err)
	}
	return abs, nil
}

// app is one invocation of the CLI: the parsed persistent flags, the
// lazily opened store, and whether a result has been written.
type app struct {
	opts    Options
	json    bool
	home    string // --home as given
	st      *store.Store
	emitted bool
}

func newApp(opts Options) *app { return &app{opts: opts.withDefaults()} }

func (a *app) resolvedHome() (string, error) { return ResolveHome(a.home, a.opts.Getenv) }

// store opens the store (once), at the current schema version, with the
// terminal hooks every writer of this binary runs.
func (a *app) store(ctx context.Context) (*store.Store, error) {
	return a.openStore(ctx, store.Options{})
}

// readStore opens the store for a command that only reads: on a home with
// no store yet it answers from an empty store in memory and creates
// nothing (store.Options.NoCreate), so observing never writes a home into
// being (`limcp mcp --read-only` on an empty home stays empty).
func (a *app) readStore(ctx context.Context) (*store.Store, error) {
	return a.openStore(ctx, store.Options{NoCreate: true})
}

func (a *app) openStore(ctx context.Context, o store.Options) (*store.Store, error) {
	if a.st != nil {
		return a.st, nil
	}
	home, err := a.resolvedHome()
	if err != nil {
		return nil, err
	}
	st, err := store.Open(ctx, filepath.Join(home, StoreFile), o)
	if err != nil {
		return nil, err
	}
	st.OnTerminal(run.TeamHook(st))
	st.OnTerminal(run.ShowHook(st))
	if exe, err := a.executable(); err == nil {
		// Whoever ends a run (worker, kill, observer) starts its delivery;
		// without an executable the deliveries wait for the next sweep.
		st.OnTerminal(notify.Hook(exe, home))
	}
	a.st = st
	return st, nil
}

// executable is the limcp binary to re-execute (workers, deliveries).
func (a *app) executable() (string, error) {
	if a.opts.Executable != "" {
		return a.opts.Executable, nil
	}
	exe, err := os.Executable()
	if err != nil {
		return "", machine.Errorf(machine.Internal, nil, "cannot find the limcp executable to start a worker: %v", err)
	}
	return exe, nil
}

func (a *app) runtime(ctx context.Context) (*run.Runtime, error) {
	st, err := a.store(ctx)
	if err != nil {
		return nil, err
	}
	home, _ := a.resolvedHome()
	exe, err := a.executable()
	if err != nil {
		return nil, err
	}
	// A limits section that does not resolve is reported by the commands
	// that write runs (submit, schedule add); a worker or a kill keeps
	// working with the defaults.
	limits, _ := a.limits()
	return &run.Runtime{Store: st, Home: home, Exe: exe, Limits: &limits}, nil
}

// limits are the state home's bounds (package quota), from its
// config.yaml: the defaults for what it does not set.
func (a *app) limits() (quota.Limits, error) {
	home, err := a.resolvedHome()
	if err != nil {
		return quota.Defaults, err
	}
	return notify.Limits(home)
}

func (a *app) close() {
	if a.st != nil {
		a.st.Close()
	}
}

// ok writes a command's success: the machine result in --json mode, else
// the human rendering on stdout.
func (a *app) ok(data any, human func(w io.Writer)) error {
	a.emitted = true
	if a.json {
		return machine.Write(a.opts.Stdout, machine.OK(data))
	}
	if human != nil {
		// Human output reaches a person's terminal, and much of it is
		// caller-chosen text: every control character it holds is shown,
		// not obeyed (package termsafe). --json carries the bytes.
		human(termsafe.Writer(a.opts.Stdout))
	}
	return nil
}

// fail writes a failure and returns the exit status.
func (a *app) fail(err error, cmd *cobra.Command) int {
	me := toMachine(err, cmd)
	a.emitted = true
	if a.json {
		_ = machine.Write(a.opts.Stdout, machine.Fail(me))
	}
	stderr := termsafe.Writer(a.opts.Stderr)
	if strings.HasPrefix(me.Message, "limcp") {
		fmt.Fprintln(stderr, me.Message)
	} else {
		fmt.Fprintf(stderr, "limcp: %s\n", me.Message)
	}
	if me.Code == machine.AmbiguousID {
		if d, ok := me.Details.(map[string]any); ok {
			if c, ok := d["candidates"].([]string); ok {
				for _, id := range c {
					fmt.Fprintf(a.opts.Stderr, "  %s\n", id)
				}
			}
		}
	}
	if me.Code == machine.UsageError {
		path := "limcp"
		if cmd != nil {
			path = cmd.CommandPath()
		}
		fmt.Fprintf(a.opts.Stderr, "Run '%s --help' for usage.\n", path)
		return 2
	}
	return 1
}

// newUsageError marks a cobra or pflag error as a command line that did
// not parse (the public *machine.UsageError), naming the flag whose value
// was refused when pflag says which (a value its type's Set refuses, or a
// missing value): the machine result then names it in details.argument,
// which verbsurface turns into a teaching invalid_args on that parameter.
// toMachine fills in the command path.
func newUsageError(err error) *vsmachine.UsageError {
	return &vsmachine.UsageError{Argument: vsmachine.FlagArgument(err), Err: err}
}

// toMachine maps any error to exactly one code of the closed set.
func toMachine(err error, cmd *cobra.Command) *machine.Error {
	if me, ok := machine.As(err); ok {
		return me
	}
	var ie *store.IDError
	if errors.As(err, &ie) {
		if ie.Ambiguous {
			return machine.Errorf(machine.AmbiguousID, map[string]any{"id": ie.ID, "candidates": ie.Candidates}, "%s", ie.Error())
		}
		return machine.Errorf(machine.UnknownID, map[string]any{"id": ie.ID}, "%s", ie.Error())
	}
	var se *store.SchemaError
	if errors.As(err, &se) {
		d := map[string]any{"store": se.Path, "version": se.Version, "current": se.Current}
		if errors.Is(err, store.ErrSchemaOutdated) {
			return machine.Errorf(machine.SchemaOutdated, d, "the store %s has schema version %d but this limcp uses %d: run `limcp state migrate` (at a terminal) to upgrade it", se.Path, se.Version, se.Current)
		}
		return machine.Errorf(machine.SchemaUnsupported, d, "the store %s has schema version %d, newer than this limcp's %d: use a newer limcp", se.Path, se.Version, se.Current)
	}
	var pe *store.PathError
	if errors.As(err, &pe) {
		d := map[string]any{"store": pe.Path}
		switch {
		case errors.Is(err, store.ErrCorrupt):
			return machine.Errorf(machine.StoreCorrupt, d, "the store %s is not a limcp store (not a SQLite database, or damaged): %v", pe.Path, pe.Err)
		case errors.Is(err, store.ErrBusy):
			return machine.Errorf(machine.StoreBusy, d, "the store %s stayed locked for %s: %v", pe.Path, store.BusyTimeout, pe.Err)
		}
		return machine.Errorf(machine.StoreError, d, "%v", err)
	}
	switch {
	case errors.Is(err, store.ErrUnknownSchedule):
		return machine.Errorf(machine.UnknownSchedule, nil, "%v", err)
	case errors.Is(err, store.ErrUnknownTeam):
		return machine.Errorf(machine.UnknownTeam, nil, "%v", err)
	case errors.Is(err, store.ErrExists):
		return machine.Errorf(machine.AlreadyExists, nil, "%v", err)
	case errors.Is(err, store.ErrBadCursor):
		return machine.Errorf(machine.InvalidArgument, map[string]any{"argument": "cursor"}, "%v", err)
	case errors.Is(err, store.ErrNotFound):
		return machine.Errorf(machine.UnknownID, nil, "%v", err)
	}
	var ue *vsmachine.UsageError
	if errors.As(err, &ue) || cmd != nil {
		path := "limcp"
		if cmd != nil {
			path = cmd.CommandPath()
		}
		if ue != nil {
			ue.Command = path
			return machine.Errorf(machine.UsageError, ue.ErrorDetails(), "%s: %v", path, ue.Err)
		}
		return machine.Errorf(machine.UsageError, map[string]any{"command": path}, "%s: %v", path, err)
	}
	return machine.Errorf(machine.Internal, nil, "%v", err)
}
