//go:build unix

package server

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/spf13/cobra"
	"github.com/verbsurface/verbsurface/dispatch"
	"github.com/verbsurface/verbsurface/examples/limcp/internal/guard"
	"github.com/verbsurface/verbsurface/examples/limcp/internal/playbook"
	"github.com/verbsurface/verbsurface/examples/limcp/internal/provider"
	"github.com/verbsurface/verbsurface/examples/limcp/internal/runenv"
	"github.com/verbsurface/verbsurface/internal/buildinfo"
	"github.com/verbsurface/verbsurface/policy"
	"github.com/verbsurface/verbsurface/projector"
	"github.com/verbsurface/verbsurface/projector/fromcobra"
	"github.com/verbsurface/verbsurface/verbsurface"
)

// Options configure a Server. Home is required; every other zero value is
// right for the limcp binary serving itself.
type Options struct {
	// Home is the state home (absolute). Every CLI command the server runs
	// gets it as $LIMCP_HOME; no verb can change it.
	Home string

	// Executable is the limcp binary the server dispatches to. "" means
	// os.Executable(): the server runs its own executable, whose command
	// tree is the one compiled into this process and projected.
	Executable string

	// ReadOnly installs verbsurface.ReadOnly: only observe verbs run.
	ReadOnly bool

	// Roots are the directories under which callers may name files
	// (prompt_file, spec, cwd): verbsurface.Options.Roots. Empty means no
	// file access: every path argument is refused, saying the operator can
	// start the server with --root DIR.
	Roots []string
	// Private are more paths no root may reach, beside Home (a
	// --token-file): verbsurface.Options.Private.
	Private []string
	// AllowHardLinks admits a file with more than one name under the roots
	// (verbsurface.Options.AllowHardLinks, --allow-hard-links).
	AllowHardLinks bool

	// Env is what the CLI commands' environment is built from: it is
	// narrowed by the environment rule of package runenv, then the server
	// adds LIMCP_HOME and LIMCP_NOTIFY_URL. nil means this process's
	// environment.
	Env []string

	// NewRoot builds a fresh limcp command tree (required): the tree the
	// executable parses, walked at start and rebuilt for each playbook
	// injection. The server never executes it. (It is a parameter, not an
	// import, so that this package depends on nothing that can open the
	// store: see "One writer" in the package documentation.)
	NewRoot func() *cobra.Command

	// Now is the clock the synonym sunset is judged by; nil means time.Now.
	Now func() time.Time

	// Timeout bounds each CLI command (dispatch.DefaultTimeout when zero).
	Timeout time.Duration

	// Limits are the request limits of the surface; the zero value is
	// the surface's defaults.
	Limits Limits

	// Wake sources of job.wait, both on by default; tests turn one off to
	// prove the other on its own. NoStoreSignal also stops the store
	// watcher; NoNotify runs no notify endpoint and sets no
	// LIMCP_NOTIFY_URL (`limcp mcp --no-notify`, which `limcp call` uses:
	// a server that exits before its runs end could only be notified in
	// vain). StorePolling forces the watcher's polling fallback.
	// PolicyFile is a policy file (package policy) enforced on every op:
	// checked against the live verbs at New, which fails on a rule that
	// names a verb or parameter the surface does not have.
	PolicyFile string
	// ClassScopes are the scopes an OAuth caller's token must grant to run
	// a verb of each class (verbsurface.Options.ClassScopes).
	ClassScopes map[verbsurface.Class][]string
	// ConfirmWithin is how long the person has to answer a policy's ask
	// (verbsurface.DefaultConfirmWithin when zero).
	ConfirmWithin time.Duration
	// Audit, when set, gets one line per op (limcp mcp --audit). The
	// caller opens and closes it.
	Audit *policy.Audit
	// AuditErrors receives an audit write failure (stderr, say); nil:
	// dropped.
	AuditErrors func(error)
	// OnOp, when set, also sees every op once it finished (limcp mcp
	// --metrics counts them).
	OnOp func(context.Context, *verbsurface.OpRecord)

	NoStoreSignal bool
	NoNotify      bool
	StorePolling  bool

	// TolerateUnavailable starts the server even when a verb of the
	// allowlist cannot be offered (verbsurface.Surface.Check); by default
	// New refuses, naming every such verb, since a tree that lost a
	// command the table names is a build mistake an agent must not be
	// the first to meet.
	TolerateUnavailable bool
}

// Limits are the surface's request limits (verbsurface.Options): zero
// takes the default, a negative value turns the limit off. Spawns are
// counted per server: on stdio the server has one client; an HTTP server
// counts all its clients together unless ClientKey names them apart.
type Limits struct {
	MaxInFlight      int                              // commands at once (default 2 x CPUs)
	SpawnsPerMinute  int                              // spawn ops per client per minute (default 60)
	MaxResponseBytes int                              // bytes per response (default 4 MiB)
	ClientKey        func(ctx context.Context) string // the rate-limit key of a request; nil: one bucket
	// MaxRequestWait bounds the time the job.wait ops of one request spend
	// waiting, together (verbsurface.WaitHandlerOptions.MaxRequestWait:
	// 300 s when zero).
	MaxRequestWait time.Duration
}

// Server is limcp's MCP server face: one surface over limcp's own command
// tree, dispatching every verb to the limcp executable. It is safe for
// concurrent use; Close releases its watcher and notify endpoint.
type Server struct {
	opts    Options
	exe     string
	exeTree verbsurface.TreeSource // the walked tree, while the executable is unchanged
	runner  *dispatch.Runner
	env     []string // every command's environment (commandEnv), built once at start
	// spawnRunner runs the commands that start runs, with spawnEnv: env
	// plus the variables providers.yaml passes through (route).
	spawnRunner *dispatch.Runner
	spawnEnv    []string
	scrub       *scrubber // every error's words, without the server's paths
	surface     *verbsurface.Surface
	tree        *projector.Tree
	walk        *fromcobra.Options
	hub         *wakeHub
	models      *liveModels
	watcher     *lazyStoreWatch
	notify      *notifyEndpoint
	mcp         *mcp.Server
	pol         *policy.Policy // Options.PolicyFile, loaded; nil without one
	live        *livePolicy    // the policy's live_runs limit; nil without one

	closeOnce sync.Once
}

// HomeEnv and StoreFile are limcp's state-home variable and store file name
// (the cli package's HomeEnv and StoreFile; a test holds them equal, since
// this package must not import cli).
const (
	HomeEnv   = "LIMCP_HOME"
	StoreFile = "state.db"
	// CommandTimeoutEnv and ParentPIDEnv are cli's: the server's
	// per-command timeout and its pid, in every command's environment.
	CommandTimeoutEnv = "LIMCP_COMMAND_TIMEOUT"
	ParentPIDEnv      = "LIMCP_PARENT_PID"
)

// NoRootsHint ends the refusal of a path argument by a server without
// roots: how its operator allows file access.
const NoRootsHint = "its operator can start it with --root DIR (repeatable) to allow the files under DIR"

// Version is the server's MCP implementation version (serverInfo.version):
// limcp's own, from the build information, the same `limcp version` prints.
var Version = buildinfo.Version()

// New builds the server: walks the command tree (excluding ExcludedFlags),
// registers the verb table, starts the notify endpoint, readies the store
// watcher (it starts with the first job.wait), and resolves the
// executable once.
func New(opts Options) (*Server, error) {
	if opts.Home == "" || !filepath.IsAbs(opts.Home) {
		return nil, fmt.Errorf("server: the state home must be an absolute path, not %q", opts.Home)
	}
	if opts.NewRoot == nil {
		return nil, errors.New("server: Options.NewRoot is required (the limcp command tree)")
	}
	s := &Server{opts: opts, hub: newWakeHub(), walk: &fromcobra.Options{ExcludeFlags: ExcludedFlags}}
	exe := opts.Executable
	if exe == "" {
		var err error
		if exe, err = os.Executable(); err != nil {
			return nil, fmt.Errorf("server: cannot find its own executable: %w", err)
		}
	}
	tree, err := fromcobra.Walk(opts.NewRoot(), s.walk)
	if err != nil {
		return nil, fmt.Errorf("server: walking the limcp command tree: %w", err)
	}
	s.tree = tree

	if !opts.NoNotify {
		if s.notify, err = startNotifyEndpoint(func() {
			s.hub.notifySignals.Add(1)
			s.hub.signal()
		}); err != nil {
			return nil, fmt.Errorf("server: starting the notify endpoint: %w", err)
		}
	}
	s.env, s.spawnEnv = s.commandEnv(false), s.commandEnv(true)
	s.models = newLiveModels(opts.Home, s.env)
	s.runner, err = dispatch.NewRunner(exe, &dispatch.Options{Env: s.env, Timeout: opts.Timeout})
	if err != nil {
		s.Close()
		return nil, fmt.Errorf("server: %w", err)
	}
	s.exe = s.runner.Path()
	s.scrub = newScrubber(s.exe, opts.Home)
	if s.spawnRunner, err = dispatch.NewRunner(s.exe, &dispatch.Options{Env: s.spawnEnv, Timeout: opts.Timeout}); err != nil {
		s.Close()
		return nil, fmt.Errorf("server: %w", err)
	}
	// The schemas come from the tree compiled into this process; once the
	// binary the server dispatches to is replaced, a request gets
	// unavailable_verb saying to restart, never a stale schema.
	if s.exeTree, err = verbsurface.ExecutableTree(s.tree, s.exe); err != nil {
		s.Close()
		return nil, fmt.Errorf("server: the limcp executable: %w", err)
	}
	reg, err := s.register()
	if err != nil {
		s.Close()
		return nil, err
	}
	sopts := verbsurface.Options{
		Source:        s.treeSource,
		Runner:        verbsurface.RunnerFunc(s.route),
		Machine:       verbsurface.Machine{Args: []string{"--json"}},
		Policy:        s.policy,
		SynonymSunset: SynonymSunset,
		Now:           opts.Now,
		Title:         "limcp",
		ReadOnly:      opts.ReadOnly,
		Roots:         opts.Roots,
		NoRootsHint:   NoRootsHint,
		// The home holds the HTTP token, providers.yaml and config.yaml:
		// no root may reach it.
		Private: append([]string{opts.Home}, opts.Private...),

		AllowHardLinks: opts.AllowHardLinks,

		MaxInFlight:      opts.Limits.MaxInFlight,
		SpawnsPerMinute:  opts.Limits.SpawnsPerMinute,
		MaxResponseBytes: opts.Limits.MaxResponseBytes,
		ClientKey:        opts.Limits.ClientKey,
		ClassScopes:      opts.ClassScopes,
		ConfirmWithin:    opts.ConfirmWithin,
	}
	if opts.PolicyFile != "" {
		pol, err := s.loadPolicy(sopts, reg)
		if err != nil {
			s.Close()
			return nil, fmt.Errorf("server: %w", err)
		}
		s.pol, sopts.Decide = pol, pol
		if n := pol.Limits.RunsPerMinute; n > 0 && (sopts.SpawnsPerMinute <= 0 || n < sopts.SpawnsPerMinute) {
			sopts.SpawnsPerMinute = n
		}
		sopts.SubjectSpawnsPerMinute = pol.Limits.SubjectRunsPerMinute
		if pol.Limits.LiveRuns > 0 || pol.Limits.SubjectLiveRuns > 0 {
			s.live = newLivePolicy(pol.Limits.LiveRuns, pol.Limits.SubjectLiveRuns, s.liveRuns)
		}
	}
	if opts.PolicyFile != "" || opts.Audit != nil || opts.OnOp != nil {
		sopts.OnOp = s.onOp
	}
	s.surface, err = verbsurface.New(reg, &sopts)
	if err != nil {
		s.Close()
		return nil, fmt.Errorf("server: %w", err)
	}
	if bad := s.surface.Check(context.Background()); len(bad) > 0 && !opts.TolerateUnavailable {
		s.Close()
		msgs := make([]string, len(bad))
		for i, u := range bad {
			msgs[i] = u.Verb + ": " + u.Reason
		}
		return nil, fmt.Errorf("server: not serving: %d verbs of the allowlist cannot be offered: %s", len(bad), strings.Join(msgs, "; "))
	}
	if !opts.NoStoreSignal {
		// Started by the first job.wait (lazyStoreWatch): a server that
		// never waits never watches.
		s.watcher = &lazyStoreWatch{dbFile: filepath.Join(opts.Home, StoreFile), noEvents: opts.StorePolling, onChange: func() {
			s.hub.storeSignals.Add(1)
			s.hub.signal()
		}}
		s.hub.onSubscribe = s.watcher.ensure
	}
	s.mcp = mcp.NewServer(&mcp.Implementation{Name: "limcp", Version: Version}, nil)
	verbsurface.AddRequestTool(s.mcp, s.surface)
	return s, nil
}

// commandEnv is the environment of the CLI commands: the base
// environment narrowed by the environment rule (package runenv: the
// allowlist, LIMCP_* but the bearer token), with LIMCP_HOME set to the
// server's home and, when the notify endpoint runs, LIMCP_NOTIFY_URL set
// to it. With providers, it also keeps the names providers.yaml passes
// through (read when the server starts): the environment of the commands
// that start runs (route), which hand them on to their runs' workers on a
// pipe. A secret in the server's environment that providers.yaml does not
// name never reaches a command, nor the runs it starts, and one it names
// reaches only the commands that need it.
func (s *Server) commandEnv(providers bool) []string {
	base := s.opts.Env
	if base == nil {
		base = os.Environ()
	}
	var names []string
	if providers {
		cfg, _ := provider.LoadConfig(s.opts.Home) // a broken file is the CLI's to report, at submit
		names = cfg.EnvNames()
	}
	base = runenv.Build(base, names...)
	env := make([]string, 0, len(base)+2)
	for _, kv := range base {
		if strings.HasPrefix(kv, HomeEnv+"=") || strings.HasPrefix(kv, NotifyURLEnv+"=") || strings.HasPrefix(kv, CommandTimeoutEnv+"=") || strings.HasPrefix(kv, ParentPIDEnv+"=") {
			continue
		}
		env = append(env, kv)
	}
	env = append(env, HomeEnv+"="+s.opts.Home)
	// Each command stops itself once this server is gone, or past the
	// timeout (cli.CommandTimeoutEnv): where no parent-death signal
	// reaches it (macOS), nothing else would.
	timeout := s.opts.Timeout
	if timeout <= 0 {
		timeout = dispatch.DefaultTimeout
	}
	env = append(env, CommandTimeoutEnv+"="+timeout.String(), ParentPIDEnv+"="+strconv.Itoa(os.Getpid()))
	if s.notify != nil {
		env = append(env, NotifyURLEnv+"="+s.notify.url)
	}
	return env
}

// route runs a command through the runner its environment calls for: the
// commands that start runs (agent, fanout, flow, play, schedule tick)
// with the providers' variables, every other one without them, so a
// secret exists only in the processes that hand it to a run.
func (s *Server) route(ctx context.Context, argv []string) (json.RawMessage, error) {
	if startsRuns(argv) {
		return s.scrub.runner(s.spawnRunner).Run(ctx, argv)
	}
	return s.scrub.runner(s.runner).Run(ctx, argv)
}

// startsRuns reports whether argv is a command that starts runs.
func startsRuns(argv []string) bool {
	if len(argv) == 0 {
		return false
	}
	if slices.Contains(guard.SpawnCommands, argv[0]) {
		return true
	}
	return len(argv) > 1 && argv[0] == "schedule" && argv[1] == "tick"
}

// treeSource is the surface's TreeSource: the tree walked at start, as
// long as the executable it describes is unchanged
// (verbsurface.ExecutableTree), with the model parameters describing the
// providers usable now (liveModels).
func (s *Server) treeSource(ctx context.Context) (*projector.Tree, error) {
	t, err := s.exeTree(ctx)
	if err != nil {
		return nil, s.scrub.err(err)
	}
	return s.models.treeOf(t), nil
}

// injectPlaybook is play.submit's dynamic parameter: the CLI's own
// injection (playbook.Inject) on a fresh tree, walked like the base tree.
func (s *Server) injectPlaybook(value string) (*projector.Command, string, error) {
	inject := fromcobra.NewInjector(s.opts.NewRoot, []string{"play"},
		func(root *cobra.Command, name string) (string, error) {
			return playbook.Inject(root, s.opts.Home, name)
		}, s.walk)
	return inject(value)
}

// MCPServer returns the MCP server with the one tool registered.
func (s *Server) MCPServer() *mcp.Server { return s.mcp }

// Surface returns the surface the tool answers with.
func (s *Server) Surface() *verbsurface.Surface { return s.surface }

// Executable returns the absolute path of the binary the server dispatches to.
func (s *Server) Executable() string { return s.exe }

// NotifyURL returns the URL runs submitted through the server notify on
// their end ("" when the endpoint is off).
func (s *Server) NotifyURL() string {
	if s.notify == nil {
		return ""
	}
	return s.notify.url
}

// WakeStats reports how many early wakes each source has signalled.
type WakeStats struct {
	StoreSignals  int64  `json:"store_signals"`
	Notifications int64  `json:"notifications"`
	StoreWatch    string `json:"store_watch"` // "inotify" (Linux), "kqueue" (macOS, FreeBSD), "polling", "unstarted" (no job.wait yet) or "off"
}

// WakeStats returns the wake counters.
func (s *Server) WakeStats() WakeStats {
	st := WakeStats{StoreSignals: s.hub.storeSignals.Load(), Notifications: s.hub.notifySignals.Load(), StoreWatch: "off"}
	if s.watcher != nil {
		st.StoreWatch = s.watcher.currentMode()
	}
	return st
}

// ServeStdio serves the MCP session on stdin/stdout until the client
// closes it or ctx ends. A piped stdin is read through the runtime's
// poller (see stdin).
func (s *Server) ServeStdio(ctx context.Context) error {
	in, restore := stdin()
	defer restore()
	return s.mcp.Run(ctx, &mcp.IOTransport{Reader: in, Writer: stdout{os.Stdout}})
}

// Close stops the store watcher and the notify endpoint. It does not touch
// any run: runs belong to the CLI's lifecycle.
func (s *Server) Close() error {
	s.closeOnce.Do(func() {
		if s.watcher != nil {
			s.watcher.close()
		}
		if s.notify != nil {
			s.notify.close()
		}
	})
	return nil
}
