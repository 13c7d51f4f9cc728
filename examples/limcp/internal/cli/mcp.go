//go:build unix

package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"time"

	"github.com/spf13/cobra"
	"github.com/verbsurface/verbsurface/examples/limcp/internal/machine"
	"github.com/verbsurface/verbsurface/examples/limcp/internal/server"
	"github.com/verbsurface/verbsurface/examples/limcp/internal/store"
	"github.com/verbsurface/verbsurface/internal/clientconfig"
	"github.com/verbsurface/verbsurface/internal/inherited"
	"github.com/verbsurface/verbsurface/internal/metrics"
	"github.com/verbsurface/verbsurface/internal/requestlog"
	"github.com/verbsurface/verbsurface/policy"
	"github.com/verbsurface/verbsurface/verbsurface"
)

// mcpCmd is `limcp mcp`, the server face (package server).
func (a *app) mcpCmd() *cobra.Command {
	var httpAddr, tokenFile string
	var readOnly, noNotify, insecureNoAuth, allowHardLinks bool
	var allowOrigins, roots []string
	var sessionTimeout time.Duration
	var maxSessions int
	var bounds server.HTTPOptions // the connection and body bounds of --http
	var limits server.Limits
	var policyFile, auditFile, logFormat, metricsAddr string
	var auditArgs bool
	var auditMaxBytes int64
	var confirmWithin time.Duration
	c := &cobra.Command{
		Use:   "mcp",
		Short: `serve limcp's verbs as one MCP tool, "request" (stdio, or --http ADDR)`,
		Long: `Serve limcp to MCP clients as a single tool, "request", whose verbs
(agent.submit, job.wait, job.kill, ...) have schemas projected live from this
command tree. Every verb runs as a limcp subprocess against the same state
home; the server itself never writes the store.

By default the server speaks MCP on stdin/stdout, on one processor (it has
one client, whose requests mostly wait on the commands they run; set
$GOMAXPROCS to choose otherwise). With --http ADDR it serves
streamable HTTP at http://ADDR/mcp, and every request must carry
"Authorization: Bearer TOKEN" (else 401): the token is $` + server.TokenEnv + `
or the first line of --token-file (owned by you, mode 0600, at least ` + fmt.Sprint(server.MinTokenLength) + `
characters); with neither, a token is generated into HOME/` + server.TokenFileName + ` (0600),
or the one already there is reused, and the client line that uses it is
printed on stderr. Without a configured token only a loopback address is
served. --insecure-no-auth serves loopback with no token at all: any local
user can then call the tool, so use it only on a single-user machine.

A request from a browser page whose Origin is not this server's gets 403
unless the origin is listed with --allow-origin. Clients on protocol
versions before 2026-07-28 open sessions: an idle one is closed after
--session-timeout, and at most --max-sessions are open at once (the next
initialize gets 503 saying so). --read-only admits only observe verbs.

Every HTTP connection is bounded: its request headers must arrive within
` + server.DefaultReadHeaderTimeout.String() + `, a body within --read-timeout, each write of an answer within
--write-timeout, and it may sit idle between requests for --idle-timeout.
At most --max-conns are open; a connection that has not yet carried a
request with the token is closed first to make room, and every refusal
(401, 403, 413, 503) closes its connection. A body is at most
--max-body-bytes, and the bodies being decoded and answered at once total
at most --max-decoding-bytes (the rest wait, unread), which bounds the
memory requests take.

--policy FILE enforces a policy file on every op (checked against the live
verbs at start: a rule naming a verb or parameter that does not exist stops the
server): deny is policy_refused with the rule and reason, ask asks the person
through the client's elicitation before anything in the request runs.
--audit FILE appends one JSON line per op (who, verb, args digest, decision,
result, duration, run ids; argument values only with --audit-args, prompts
never); the server still never writes the store.

Files a caller names (prompt_file, flow's spec, cwd) must lie under a --root
DIR (repeatable; resolved to its real path at start). Without --root, a stdio
server's one root is its working directory (the directory its client started
it in), and an HTTP server allows no file access at all. /proc and /sys are
never inside a root. A file with more than one name (a hard link, which
may be a file outside the roots) is refused unless --allow-hard-links.

The runs the server submits notify it when they end ($` + server.NotifyURLEnv + `), which
wakes job.wait early. --no-notify leaves that out (job.wait then wakes on
store changes and polls): for a server that exits before the runs it
submits end, whose notifications could only fail (limcp call uses it).`,
		Args: cobra.NoArgs,
	}
	c.Flags().StringVar(&httpAddr, "http", "", "serve streamable HTTP on this address (e.g. 127.0.0.1:8765) instead of stdio")
	c.Flags().StringVar(&tokenFile, "token-file", "", "file holding the HTTP bearer token, mode 0600 (default $"+server.TokenEnv+", else generated into HOME/"+server.TokenFileName+")")
	c.Flags().BoolVar(&insecureNoAuth, "insecure-no-auth", false, "serve HTTP on loopback without a bearer token: any local user can call the tool")
	c.Flags().StringArrayVar(&allowOrigins, "allow-origin", nil, "admit browser requests from this origin (scheme://host[:port]; repeatable)")
	c.Flags().DurationVar(&sessionTimeout, "session-timeout", server.DefaultSessionTimeout, "close an HTTP session idle this long")
	c.Flags().IntVar(&maxSessions, "max-sessions", server.DefaultMaxSessions, "most HTTP sessions open at once")
	registerHTTPBounds(c, &bounds)
	var of oauthFlags
	of.register(c)
	c.Flags().BoolVar(&readOnly, "read-only", false, "admit only observe verbs (status, output, list, wait, ...)")
	c.Flags().BoolVar(&noNotify, "no-notify", false, "do not attach the server's terminal notify to the runs it submits")
	c.Flags().StringArrayVar(&roots, "root", nil, "allow callers to name files under this directory (repeatable; default: the working directory on stdio, none over HTTP)")
	c.Flags().BoolVar(&allowHardLinks, "allow-hard-links", false, "admit files with more than one name (hard links) under the roots; only for roots no untrusted process can write in")
	c.Flags().StringVar(&policyFile, "policy", "", "enforce this policy file on every op (allow, ask the person, deny; see limcp policy check)")
	c.Flags().DurationVar(&confirmWithin, "confirm-within", verbsurface.DefaultConfirmWithin, "how long the person has to answer a policy's ask before it expires")
	c.Flags().StringVar(&metricsAddr, "metrics", "", "serve Prometheus metrics at http://ADDR/metrics, on this loopback address of its own")
	c.Flags().StringVar(&logFormat, "log", "off", "one line per MCP request on stderr: off, text or json ($VERBSURFACE_LOG_FILE adds a JSON-lines file)")
	c.Flags().StringVar(&auditFile, "audit", "", "append one JSON line per op to this file (created 0600, rotated by size)")
	c.Flags().BoolVar(&auditArgs, "audit-args", false, "write argument values to the audit too (prompts only as size and SHA-256)")
	c.Flags().Int64Var(&auditMaxBytes, "audit-max-bytes", 0, "rotate the audit file past this size (default 64 MiB; -1: never)")
	c.Flags().DurationVar(&limits.MaxRequestWait, "max-request-wait", 0, "the most the job.wait ops of one request wait, together (default 5m)")
	c.Flags().IntVar(&limits.MaxInFlight, "max-inflight", 0, "commands run at once across all clients, the rest queued in order (default 2 x CPUs; -1: no cap)")
	c.Flags().IntVar(&limits.SpawnsPerMinute, "spawns-per-minute", 0, "runs a client may start per minute before rate_limited (default 60; -1: no cap)")
	c.Flags().IntVar(&limits.MaxResponseBytes, "max-response-bytes", 0, "bytes one response may hold before an op's result is response_too_large (default 4 MiB; -1: no cap)")
	c.RunE = a.runWithStatus(func(cmd *cobra.Command, args []string) error {
		// First: a descriptor this server inherited (`limcp mcp 7<secret`)
		// must not reach the commands, workers and providers it starts.
		if err := inherited.CloseOnExec(); err != nil {
			return fmt.Errorf("cannot mark the descriptors this server inherited close-on-exec, so every run would inherit them: %w", err)
		}
		hopts, err := httpFlags(cmd, httpAddr, tokenFile, insecureNoAuth, allowOrigins, sessionTimeout, maxSessions, bounds, a.opts.Getenv)
		// Read once, the token leaves the environment: nothing this
		// process starts can inherit it, and nothing reads it later.
		_ = os.Unsetenv(server.TokenEnv)
		if err != nil {
			return err
		}
		withOAuth, err := of.check(httpAddr, tokenFile, insecureNoAuth, hopts)
		if err != nil {
			return err
		}
		classScopes, err := of.classScopeMap()
		if err != nil {
			return err
		}
		home, err := a.resolvedHome()
		if err != nil {
			return err
		}
		realRoots, err := resolveRoots(roots, httpAddr == "")
		if err != nil {
			return err
		}
		var audit *policy.Audit
		if auditFile != "" {
			if audit, err = policy.OpenAudit(auditFile, &policy.AuditOptions{MaxBytes: auditMaxBytes, Args: auditArgs}); err != nil {
				return machine.Errorf(machine.InvalidArgument, map[string]any{"argument": "audit"}, "limcp mcp --audit %s: %v", auditFile, err)
			}
			defer audit.Close()
		} else if auditArgs || auditMaxBytes != 0 {
			return machine.Errorf(machine.InvalidArgument, map[string]any{"argument": "audit-args"}, "--audit-args and --audit-max-bytes apply to --audit FILE only")
		}
		var private []string
		if tokenFile != "" {
			abs, err := filepath.Abs(tokenFile)
			if err != nil {
				return machine.Errorf(machine.InvalidArgument, map[string]any{"argument": "token-file"}, "--token-file %s: %v", tokenFile, err)
			}
			private = append(private, abs)
		}
		ctx, stop := signal.NotifyContext(cmd.Context(), os.Interrupt, syscall.SIGTERM)
		defer stop()
		var m *metrics.Metrics
		if metricsAddr != "" {
			m = metrics.New()
			m.LiveRuns(func() (int, error) { return a.liveRuns(ctx) })
			if hopts != nil {
				hopts.OnRefused = m.OnRefused
			}
		}
		srv, err := server.New(server.Options{
			Private:       private,
			PolicyFile:    policyFile,
			ClassScopes:   classScopes,
			ConfirmWithin: confirmWithin,
			Audit:         audit,
			AuditErrors:   func(err error) { fmt.Fprintf(a.opts.Stderr, "limcp mcp: audit: %v\n", err) },
			OnOp:          m.OnOpHook(),
			Home:          home,
			Executable:    a.opts.Executable,
			ReadOnly:      readOnly,
			NoNotify:      noNotify,
			Roots:         realRoots,
			Limits:        limits,
			// The very tree this binary parses, fresh per call.
			NewRoot: func() *cobra.Command { return NewRoot(Options{}) },

			AllowHardLinks: allowHardLinks,
		})
		var inRoot *verbsurface.PrivateInRootError
		if errors.As(err, &inRoot) {
			return machine.Errorf(machine.InvalidArgument, map[string]any{"argument": "root", "root": inRoot.Root, "home": inRoot.Private},
				"limcp mcp: the root --root %s lies inside %s, which the server keeps to itself (every file under it is the server's own); "+
					"give --root for the directories to share, outside it, or move the home (--home, $%s)", inRoot.Root, privateName(inRoot.Private, tokenFile), HomeEnv)
		}
		if err != nil {
			return machine.Errorf(machine.Internal, nil, "%v", err)
		}
		defer srv.Close()
		if err := of.checkClaims(srv.Policy()); err != nil {
			return err
		}
		logger, closeLog, err := requestlog.Open(logFormat, a.opts.Stderr, a.opts.Getenv)
		if err != nil {
			return machine.Errorf(machine.InvalidArgument, map[string]any{"argument": "log"}, "limcp mcp: %v", err)
		}
		defer closeLog()
		if logger != nil {
			verbsurface.LogRequests(srv.MCPServer(), logger)
		}
		if m != nil {
			m.Observe(srv.MCPServer())
			addr, _, err := m.Serve(ctx, metricsAddr)
			if err != nil {
				return machine.Errorf(machine.InvalidArgument, map[string]any{"argument": "metrics"}, "limcp mcp %v", err)
			}
			fmt.Fprintf(a.opts.Stderr, "limcp mcp: metrics at http://%s/metrics\n", addr)
		}
		warnRootLinks(ctx, srv.Surface(), a.opts.Stderr)
		if httpAddr == "" {
			stdioProcs(a.opts.Getenv)
			a.emitted = true // stdout belongs to the MCP session now
			if stdinIsTerminal() {
				terminalNotice(a.opts.Stderr)
			}
			if err := srv.ServeStdio(ctx); err != nil && ctx.Err() == nil && !errors.Is(err, context.Canceled) {
				fmt.Fprintf(a.opts.Stderr, "limcp mcp: %v\n", err)
				return ExitStatus(1)
			}
			return nil
		}
		if withOAuth {
			return a.serveOAuth(ctx, srv, &of, httpAddr, hopts)
		}
		ln, err := server.Listen(httpAddr, hopts.Token)
		if err != nil {
			if insecureNoAuth && errors.Is(err, server.ErrNonLoopback) {
				return machine.Errorf(machine.InvalidArgument, map[string]any{"argument": "insecure-no-auth"},
					"limcp mcp --http %s --insecure-no-auth: %s is not a loopback address; --insecure-no-auth serves loopback only (beyond it, configure a bearer token)", httpAddr, httpAddr)
			}
			return machine.Errorf(machine.InvalidArgument, map[string]any{"argument": "http"}, "limcp mcp --http %s: %v", httpAddr, err)
		}
		url := fmt.Sprintf("http://%s%s", ln.Addr(), server.HTTPPath)
		// Where the token is, for the client line: never the token itself,
		// which stderr (a terminal, a log) should not carry.
		source, tokenPath := "", ""
		switch {
		case insecureNoAuth:
		case tokenFile != "":
			abs, err := filepath.Abs(tokenFile) // the client line runs elsewhere
			if err != nil {
				abs = tokenFile
			}
			source, tokenPath = "from --token-file "+tokenFile, abs
		case hopts.Token != "":
			source = "from $" + server.TokenEnv
		default:
			path, tok, generated, err := server.EnsureTokenFile(home)
			if err != nil {
				ln.Close()
				return machine.Errorf(machine.InvalidArgument, map[string]any{"argument": "http"}, "limcp mcp --http %s: %v", httpAddr, err)
			}
			hopts.Token = tok
			source, tokenPath = "read from "+path+" (yours, no group or other access)", path
			if generated {
				source = "generated into " + path + " (mode 0600)"
			}
		}
		files := "no file access (--root DIR allows it)"
		if len(realRoots) > 0 {
			files = "files under " + strings.Join(realRoots, ", ")
		}
		if insecureNoAuth {
			fmt.Fprintf(a.opts.Stderr, "limcp mcp: serving streamable HTTP on %s (home %s, NO AUTHENTICATION; %s)\n", url, home, files)
			fmt.Fprintf(a.opts.Stderr, "limcp mcp: WARNING: --insecure-no-auth: every local user and every process on this machine can call the tool as you (start runs, read their output). Use it only on a single-user machine.\n")
		} else {
			fmt.Fprintf(a.opts.Stderr, "limcp mcp: serving streamable HTTP on %s (home %s, bearer token required; %s)\n", url, home, files)
			fmt.Fprintf(a.opts.Stderr, "limcp mcp: bearer token %s; a client connects with it from $%s (its configuration keeps only that name):\n%s",
				source, server.TokenEnv, clientconfig.HTTPHint("limcp mcp install", &clientconfig.Server{Name: "limcp", URL: url, TokenEnv: server.TokenEnv}, tokenPath))
		}
		a.emitted = true
		if err := srv.ServeHTTP(ctx, ln, hopts); err != nil {
			fmt.Fprintf(a.opts.Stderr, "limcp mcp: %v\n", err)
			return ExitStatus(1)
		}
		return nil
	})
	c.AddCommand(a.mcpInstallCmd(), a.mcpDoctorCmd())
	return c
}

// stdioProcs runs a stdio server on one processor unless $GOMAXPROCS says
// otherwise. A stdio server has one client, whose requests mostly wait on
// the commands they run; with a processor per CPU, the runtime spent its
// time handing goroutines between threads around each wait. Measured side
// by side (bench/figures, "per op"), one processor cut the server's CPU
// per job.status by about a sixth at the same round-trip time. An HTTP
// server, which serves many clients at once, keeps the default.
func stdioProcs(getenv func(string) string) {
	if getenv("GOMAXPROCS") == "" {
		runtime.GOMAXPROCS(1)
	}
}

// warnRootLinks tells the operator, on stderr, of the symbolic links
// under the roots that leave them: a run's cwd is a directory its program
// works in, and the program follows any link there
// (verbsurface.Surface.RootLinks, bounded).
func warnRootLinks(ctx context.Context, s *verbsurface.Surface, stderr io.Writer) {
	scan := s.RootLinks(ctx)
	if scan == nil {
		return
	}
	verbs := strings.Join(scan.Verbs, ", ")
	if len(scan.Verbs) > 3 {
		verbs = fmt.Sprintf("%s and %d more", strings.Join(scan.Verbs[:3], ", "), len(scan.Verbs)-3)
	}
	for _, l := range scan.Links {
		fmt.Fprintf(stderr, "limcp mcp: warning: %s is a symbolic link to %s, outside the roots; a directory that holds it given as cwd (%s) reaches its program, which follows it: remove the link, or give --root directories that do not hold it\n",
			l.Path, l.Target, verbs)
	}
	if scan.More > 0 {
		fmt.Fprintf(stderr, "limcp mcp: warning: and %d more symbolic links leave the roots\n", scan.More)
	}
	if scan.Truncated {
		fmt.Fprintf(stderr, "limcp mcp: warning: looked for links leaving the roots in the first %d entries, %d directories deep, only; the rest was not searched\n",
			verbsurface.RootLinksMaxEntries, verbsurface.RootLinksMaxDepth)
	}
}

// privateName names what a root would expose: the --token-file, or the
// state home.
func privateName(path, tokenFile string) string {
	if tokenFile != "" {
		if real, err := filepath.EvalSymlinks(tokenFile); err == nil && real == path {
			return "the token file " + path
		}
	}
	return "the state home " + path + " (its token, providers.yaml, config.yaml)"
}

// resolveRoots makes each --root an absolute real path to an existing
// directory (a root that does not exist is a start error, not a silent
// "no files"). With none given, a stdio server's root is its working
// directory; an HTTP server has none.
func resolveRoots(roots []string, stdio bool) ([]string, error) {
	if len(roots) == 0 && stdio {
		wd, err := os.Getwd()
		if err != nil {
			return nil, machine.Errorf(machine.InvalidArgument, map[string]any{"argument": "root"},
				"cannot determine the working directory, the default root of a stdio server: %v; give --root DIR", err)
		}
		roots = []string{wd}
	}
	out := make([]string, 0, len(roots))
	for _, r := range roots {
		bad := func(format string, a ...any) error {
			return machine.Errorf(machine.InvalidArgument, map[string]any{"argument": "root", "root": r}, "--root %s: "+format, append([]any{r}, a...)...)
		}
		abs, err := filepath.Abs(r)
		if err != nil {
			return nil, bad("%v", err)
		}
		real, err := filepath.EvalSymlinks(abs)
		if err != nil {
			return nil, bad("%v", err)
		}
		if fi, err := os.Stat(real); err != nil || !fi.IsDir() {
			return nil, bad("is not a directory")
		}
		out = append(out, real)
	}
	return out, nil
}

// httpFlags checks the HTTP flags before anything is opened and returns
// the server's HTTP options (Token is empty when it is to be generated, or
// with --insecure-no-auth).
func httpFlags(cmd *cobra.Command, httpAddr, tokenFile string, insecureNoAuth bool, allowOrigins []string, sessionTimeout time.Duration, maxSessions int, bounds server.HTTPOptions, getenv func(string) string) (*server.HTTPOptions, error) {
	if httpAddr == "" {
		for _, name := range append([]string{"token-file", "insecure-no-auth", "allow-origin", "session-timeout", "max-sessions"}, httpBoundFlags...) {
			if cmd.Flags().Changed(name) {
				return nil, machine.Errorf(machine.InvalidArgument, map[string]any{"argument": name}, "--%s applies to --http only", name)
			}
		}
		return nil, nil
	}
	token, err := readToken(tokenFile, getenv)
	if err != nil {
		return nil, err
	}
	if insecureNoAuth && token != "" {
		return nil, machine.Errorf(machine.InvalidArgument, map[string]any{"argument": "insecure-no-auth"},
			"--insecure-no-auth with a bearer token configured ($%s or --token-file): choose one", server.TokenEnv)
	}
	if sessionTimeout <= 0 {
		return nil, machine.Errorf(machine.InvalidArgument, map[string]any{"argument": "session-timeout"},
			"--session-timeout %s: must be positive (sessions that never expire are what the cap is for)", sessionTimeout)
	}
	if maxSessions < 1 {
		return nil, machine.Errorf(machine.InvalidArgument, map[string]any{"argument": "max-sessions"}, "--max-sessions %d: must be at least 1", maxSessions)
	}
	if name, msg := checkHTTPBounds(bounds); msg != "" {
		return nil, machine.Errorf(machine.InvalidArgument, map[string]any{"argument": name}, "%s", msg)
	}
	o := &bounds
	o.Token, o.SessionTimeout, o.MaxSessions = token, sessionTimeout, maxSessions
	for _, v := range allowOrigins {
		c, err := server.ParseOrigin(v)
		if err != nil {
			return nil, machine.Errorf(machine.InvalidArgument, map[string]any{"argument": "allow-origin"}, "%v", err)
		}
		o.AllowOrigins = append(o.AllowOrigins, c)
	}
	return o, nil
}

// httpBoundFlags are the flags of the connection and body bounds, the
// same on `verbsurface serve`.
var httpBoundFlags = []string{"max-conns", "read-timeout", "write-timeout", "idle-timeout", "max-body-bytes", "max-decoding-bytes"}

// registerHTTPBounds adds the flags of the connection and body bounds of
// --http, bound to b's fields.
func registerHTTPBounds(c *cobra.Command, b *server.HTTPOptions) {
	fs := c.Flags()
	fs.IntVar(&b.MaxConns, "max-conns", server.DefaultMaxConns, "most HTTP connections open at once (those without the token are closed first to make room)")
	fs.DurationVar(&b.ReadTimeout, "read-timeout", server.DefaultReadTimeout, "close an HTTP connection whose request body takes longer than this to arrive")
	fs.DurationVar(&b.WriteTimeout, "write-timeout", server.DefaultWriteTimeout, "close an HTTP connection whose client takes longer than this to accept one write of an answer")
	fs.DurationVar(&b.IdleTimeout, "idle-timeout", server.DefaultIdleTimeout, "close an HTTP connection idle this long between requests")
	fs.Int64Var(&b.MaxBodyBytes, "max-body-bytes", server.DefaultMaxBodyBytes, "largest HTTP request body (413 beyond)")
	fs.Int64Var(&b.MaxDecodingBytes, "max-decoding-bytes", server.DefaultMaxDecodingBytes, "bytes of HTTP request bodies decoded and answered at once; the rest wait, unread (bounds memory)")
}

// checkHTTPBounds refuses a bound that would turn its limit off or make it
// unsatisfiable, naming the flag.
func checkHTTPBounds(b server.HTTPOptions) (flag, msg string) {
	switch {
	case b.MaxConns < 1:
		return "max-conns", fmt.Sprintf("--max-conns %d: must be at least 1", b.MaxConns)
	case b.ReadTimeout <= 0:
		return "read-timeout", fmt.Sprintf("--read-timeout %s: must be positive", b.ReadTimeout)
	case b.WriteTimeout <= 0:
		return "write-timeout", fmt.Sprintf("--write-timeout %s: must be positive", b.WriteTimeout)
	case b.IdleTimeout <= 0:
		return "idle-timeout", fmt.Sprintf("--idle-timeout %s: must be positive", b.IdleTimeout)
	case b.MaxBodyBytes < 1:
		return "max-body-bytes", fmt.Sprintf("--max-body-bytes %d: must be at least 1", b.MaxBodyBytes)
	case b.MaxDecodingBytes < b.MaxBodyBytes:
		return "max-decoding-bytes", fmt.Sprintf("--max-decoding-bytes %d is below --max-body-bytes %d: the largest request could never be decoded", b.MaxDecodingBytes, b.MaxBodyBytes)
	}
	return "", ""
}

// shellQuote quotes a path for the printed client line when it holds
// anything a shell would read specially.
func shellQuote(s string) string {
	for _, r := range s {
		if !(r == '/' || r == '.' || r == '_' || r == '-' || r == '+' || r == ':' || r == ',' || r == '@' ||
			('a' <= r && r <= 'z') || ('A' <= r && r <= 'Z') || ('0' <= r && r <= '9')) {
			return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
		}
	}
	return s
}

// readToken returns the HTTP bearer token: the first line of --token-file
// (see server.ReadTokenFile for what the file must be), else
// $LIMCP_MCP_TOKEN, else "". There is no --token flag: a flag's value is
// visible to every local user in the process list.
func readToken(file string, getenv func(string) string) (string, error) {
	if file == "" {
		return strings.TrimSpace(getenv(server.TokenEnv)), nil
	}
	tok, err := server.ReadTokenFile(file)
	if err != nil {
		return "", machine.Errorf(machine.InvalidArgument, map[string]any{"argument": "token-file"}, "%v", err)
	}
	return tok, nil
}

// liveRuns counts the runs of the home started and not yet ended, for the
// metrics' verbsurface_runs_live: the store is opened for each scrape and
// closed again (the runs are the workers' to write; a home with no store
// has none).
func (a *app) liveRuns(ctx context.Context) (int, error) {
	home, err := a.resolvedHome()
	if err != nil {
		return 0, err
	}
	st, err := store.Open(ctx, filepath.Join(home, StoreFile), store.Options{NoCreate: true})
	if err != nil {
		return 0, err
	}
	defer st.Close()
	active, err := st.Active(ctx)
	return len(active), err
}
