//go:build unix

package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/spf13/cobra"
	"github.com/verbsurface/verbsurface/internal/buildinfo"
	"github.com/verbsurface/verbsurface/internal/inherited"
	"github.com/verbsurface/verbsurface/internal/metrics"
	"github.com/verbsurface/verbsurface/internal/nodump"
	"github.com/verbsurface/verbsurface/internal/requestlog"
	"github.com/verbsurface/verbsurface/projector"
	"github.com/verbsurface/verbsurface/projector/fromargparse"
	"github.com/verbsurface/verbsurface/projector/fromclick"
	"github.com/verbsurface/verbsurface/projector/fromcobrabin"
	"github.com/verbsurface/verbsurface/verbsurface"
)

func main() {
	// First: the server holds the bearer token and the fronted CLI's
	// variables; the processes of its user must not read them from /proc.
	_ = nodump.Protect()
	// A descriptor the server inherited (`verbsurface serve 7<secret`)
	// must not reach the commands it starts.
	if err := inherited.CloseOnExec(); err != nil {
		fmt.Fprintln(os.Stderr, "verbsurface: cannot mark the descriptors it inherited close-on-exec, so every command would inherit them:", err)
		os.Exit(1)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := run(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

// exitError carries an exit status without a message of its own (the
// command printed what it had to say).
type exitError int

func (e exitError) Error() string { return fmt.Sprintf("exit status %d", int(e)) }

func run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	root := newRoot(stdin, stdout, stderr)
	root.SetArgs(args)
	root.SetOut(stdout)
	root.SetErr(stderr)
	err := root.ExecuteContext(ctx)
	var ee exitError
	switch {
	case err == nil:
		return 0
	case errors.As(err, &ee):
		return int(ee)
	}
	fmt.Fprintln(stderr, "verbsurface:", err)
	return 1
}

func newRoot(stdin io.Reader, stdout, stderr io.Writer) *cobra.Command {
	root := &cobra.Command{
		Use:           "verbsurface",
		Short:         "serve any CLI with a machine mode as one MCP tool, from one YAML file",
		SilenceErrors: true,
		SilenceUsage:  true,
	}
	var file string
	// load reads the configuration and builds its front; private, when
	// given, names what the front must keep out of its roots.
	load := func(adjust ...func(*Config)) (*front, error) {
		if file == "" {
			return nil, errors.New("-c FILE is required (the YAML configuration)")
		}
		cfg, err := LoadConfig(file)
		if err != nil {
			return nil, err
		}
		cfg.stderr = stderr
		for _, a := range adjust {
			a(cfg)
		}
		return newFront(cfg)
	}

	var tolerate bool
	var logFormat, metricsAddr string
	var af auditFlags
	var hf httpFlags
	serve := &cobra.Command{
		Use:   "serve -c FILE [--http ADDR]",
		Short: "serve the configured CLI as the one MCP tool on stdin/stdout, or streamable HTTP with --http",
		Args:  cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			hopts, err := hf.options(c, os.Getenv)
			_ = os.Unsetenv(tokenEnv) // read once; nothing started later inherits it
			if err != nil {
				return err
			}
			f, err := load(func(cfg *Config) {
				cfg.private = append(cfg.private, hf.private(hopts, cfg.Name, os.Getenv)...)
				cfg.readOnDemand = onDemandFill // a cobra program's commands: read as asked, the rest in the background
			})
			if err != nil {
				return err
			}
			// A configuration mistake must stop the operator here, not
			// surface to the agent as a catalog whose status is success.
			// A name that is no parameter stops it whatever
			// --tolerate-unavailable says: it leaves open what the
			// operator meant to close.
			if err := f.readAtStart(c.Context()); err != nil {
				return err
			}
			errs, warns := f.lint(c.Context())
			for _, w := range warns {
				fmt.Fprintln(stderr, "verbsurface: "+w.String())
			}
			if len(errs) > 0 {
				for _, e := range errs {
					fmt.Fprintln(stderr, "verbsurface:", e)
				}
				fmt.Fprintln(stderr, "verbsurface: not serving; fix the configuration")
				return exitError(1)
			}
			if problems := f.check(c.Context()); len(problems) > 0 {
				for _, p := range problems {
					fmt.Fprintf(stderr, "verbsurface: %s: verb %s cannot be offered: %s\n", f.cfg.where(p.Verb), p.Verb, f.teach(c.Context(), p))
				}
				if !tolerate {
					fmt.Fprintln(stderr, "verbsurface: not serving; fix the configuration, or start with --tolerate-unavailable")
					return exitError(1)
				}
			}
			audit, err := af.open(f, stderr)
			if err != nil {
				return err
			}
			if audit != nil {
				defer audit.Close()
			}
			server := mcp.NewServer(&mcp.Implementation{Name: f.cfg.Name, Version: buildinfo.Version()}, nil)
			verbsurface.AddRequestTool(server, f.surface)
			logger, closeLog, err := requestlog.Open(logFormat, stderr, os.Getenv)
			if err != nil {
				return err
			}
			defer closeLog()
			if logger != nil {
				verbsurface.LogRequests(server, logger)
			}
			if metricsAddr != "" {
				m := metrics.New()
				f.opHooks = append(f.opHooks, m.OnOp)
				if hopts != nil {
					hopts.OnRefused = m.OnRefused
				}
				m.Observe(server)
				if f.bg != nil {
					// The front keeps its background runs' lifecycle, so it
					// can say how many are live, as limcp does.
					m.LiveRuns(func() (int, error) { return f.bg.CountLive(context.Background()) })
				}
				addr, _, err := m.Serve(c.Context(), metricsAddr)
				if err != nil {
					return err
				}
				fmt.Fprintf(stderr, "verbsurface serve: metrics at http://%s/metrics\n", addr)
			}
			if hopts != nil {
				return serveHTTP(c.Context(), f, server, &hf, hopts, os.Getenv, stderr)
			}
			if onTerminal(stdin) {
				fmt.Fprintf(stderr, "verbsurface serve: this is an MCP server for a client to start; it speaks JSON-RPC on stdin/stdout, not for typing at.\n"+
					"  verbsurface install claude -c %s    connect a client (also codex, gemini, cursor, vscode; --print shows the config)\n"+
					"  verbsurface call -c %s '{\"help\": true}'    send one request from the shell\n"+
					"Waiting for JSON-RPC on stdin; Ctrl-D or Ctrl-C stops.\n", file, file)
			}
			err = server.Run(c.Context(), &mcp.IOTransport{Reader: io.NopCloser(stdin), Writer: nopWriteCloser{stdout}})
			if err == nil || errors.Is(err, context.Canceled) || errors.Is(err, io.EOF) {
				return nil // the client disconnected, or we were told to stop
			}
			return err
		},
	}
	serve.Flags().StringVar(&metricsAddr, "metrics", "", "serve Prometheus metrics at http://ADDR/metrics, on this loopback address of its own")
	serve.Flags().StringVar(&logFormat, "log", "off", "one line per MCP request on stderr: off, text or json ($VERBSURFACE_LOG_FILE adds a JSON-lines file)")
	serve.Flags().BoolVar(&tolerate, "tolerate-unavailable", false, "serve even when some verbs cannot be offered (they answer unavailable_verb)")
	hf.register(serve)
	af.register(serve)

	call := &cobra.Command{
		Use:   "call -c FILE REQUEST",
		Short: "answer one request (the tool's JSON arguments) and print the response; exit 0 success, 2 partial, 1 error",
		Args:  cobra.ExactArgs(1),
		RunE: func(c *cobra.Command, args []string) error {
			f, err := load()
			if err != nil {
				return err
			}
			resp := f.surface.Handle(c.Context(), json.RawMessage(args[0]), nil)
			fmt.Fprintf(stdout, "%s\n", resp.JSON())
			return callExit(resp.Status, resp.IsError())
		},
	}

	check := &cobra.Command{
		Use:   "check -c FILE",
		Short: "check the configuration and every verb; non-zero on any error, zero with warnings only",
		Args:  cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			return untilSignal(c.Context(), stderr, func() error { return runCheck(c.Context(), func() (*front, error) { return load() }, file, stdout) })
		},
	}

	var target, clickTarget, cobraBin, python string
	var pythonPath []string
	var more *moreInventory
	inventory := &cobra.Command{
		Use:   "inventory (-c FILE | --argparse MODULE:FUNCTION | --click MODULE:OBJECT | --cobra BINARY | --optparse MODULE:OBJECT | --clap BINARY)",
		Short: "report how much of the CLI can be offered, with the configuration's fence, exclusions and machine mode applied",
		Args:  cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			var rep any
			var err error
			if n := countSet(target, clickTarget, cobraBin); n > 1 {
				return errors.New("--argparse, --click and --cobra name different CLIs; give one")
			}
			if python != "" && target == "" && clickTarget == "" {
				return errors.New("--python applies to --argparse and --click only")
			}
			if t, given, werr := more.walk(c.Context(), target != "" || clickTarget != "" || cobraBin != "", pythonPath); given {
				if werr != nil {
					return werr
				}
				rep = projector.Inventory(t, &projector.InventoryOptions{Fenced: verbsurface.DefaultFence})
			} else if target != "" || clickTarget != "" || cobraBin != "" {
				var t *projector.Tree
				var werr error
				switch {
				case cobraBin != "":
					t, werr = fromcobrabin.Walk(c.Context(), []string{cobraBin}, nil)
				case clickTarget != "":
					t, werr = fromclick.Walk(c.Context(), clickTarget, &fromclick.Options{Python: python, PythonPath: pythonPath})
				default:
					t, werr = fromargparse.Walk(c.Context(), target, &fromargparse.Options{Python: python, PythonPath: pythonPath})
				}
				if werr != nil {
					return werr
				}
				rep = projector.Inventory(t, &projector.InventoryOptions{Fenced: verbsurface.DefaultFence})
			} else {
				f, lerr := load()
				if lerr != nil {
					return lerr
				}
				rep, err = f.inventory(c.Context())
				if err != nil {
					return err
				}
			}
			enc := json.NewEncoder(stdout)
			enc.SetIndent("", "  ")
			return enc.Encode(rep)
		},
	}
	inventory.Flags().StringVar(&target, "argparse", "", "walk this argparse target (MODULE:FUNCTION) instead of a configuration")
	inventory.Flags().StringVar(&clickTarget, "click", "", "walk this click command, group or Typer app (MODULE:OBJECT) instead of a configuration")
	inventory.Flags().StringVar(&python, "python", "", "the Python interpreter for --argparse or --click (default python3)")
	inventory.Flags().StringSliceVar(&pythonPath, "pythonpath", nil, "directories on PYTHONPATH for --argparse, --click or --optparse")
	inventory.Flags().StringVar(&cobraBin, "cobra", "", "read this installed cobra program's tree from its completion protocol and --help instead of a configuration")
	more = addMoreInventoryFlags(inventory)

	for _, c := range []*cobra.Command{serve, call, check, inventory, newInstallCmd(&file, stdout), newDoctorCmd(&file, stdout)} {
		c.Flags().StringVarP(&file, "config", "c", "", "the YAML configuration file")
		root.AddCommand(c)
	}
	root.AddCommand(newInitCmd(stdout, stderr), newSuperviseCmd())
	setVersion(root, stdout)
	return root
}

// countSet is how many of words are not empty.
func countSet(words ...string) int {
	n := 0
	for _, w := range words {
		if w != "" {
			n++
		}
	}
	return n
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}

type nopWriteCloser struct{ io.Writer }

func (nopWriteCloser) Close() error { return nil }

// runCheck is check's work: the configuration's lint, then every verb
// projected; non-zero on any error.
func runCheck(ctx context.Context, load func() (*front, error), file string, stdout io.Writer) error {
	f, err := load()
	if err != nil {
		return err
	}
	errs, warns := f.lint(ctx)
	warns = append(warns, f.lintDeclared(ctx)...)
	for _, e := range errs {
		fmt.Fprintln(stdout, e)
	}
	problems := f.check(ctx)
	for _, p := range problems {
		fmt.Fprintf(stdout, "%s: verb %s cannot be offered (%s): %s\n", f.cfg.where(p.Verb), p.Verb, p.Code, f.teach(ctx, p))
	}
	for _, w := range warns {
		fmt.Fprintln(stdout, w)
	}
	if len(errs) > 0 || len(problems) > 0 {
		return exitError(1)
	}
	n := len(f.cfg.Verbs)
	if f.cfg.Wait != nil {
		n++
	}
	if f.cfg.Kill != nil {
		n++
	}
	if len(warns) > 0 {
		fmt.Fprintf(stdout, "%s: ok: %d verbs offered, %d warning%s\n", file, n, len(warns), plural(len(warns)))
		return nil
	}
	fmt.Fprintf(stdout, "%s: ok: %d verbs offered\n", file, n)
	return nil
}

// untilSignal runs work and returns its error, unless ctx ends first (a
// SIGTERM or SIGINT: main's context): then it gives work a moment to see
// it (a walker's process group is killed by its context) and returns an
// error saying what stopped it. Work that does not look at ctx is left
// to die with the process: an operator's check must stop when asked.
func untilSignal(ctx context.Context, stderr io.Writer, work func() error) error {
	done := make(chan error, 1)
	go func() { done <- work() }()
	select {
	case err := <-done:
		return err
	case <-ctx.Done():
	}
	select {
	case err := <-done:
		if err != nil && ctx.Err() == nil {
			return err
		}
	case <-time.After(signalGrace):
	}
	fmt.Fprintf(stderr, "verbsurface: stopped: %v\n", context.Cause(ctx))
	return exitError(1)
}

// signalGrace is how long untilSignal waits for work to wind down: a
// walker's process group is killed at once, its pipes closed within a
// second (pywalk's WaitDelay).
const signalGrace = 2 * time.Second

// onTerminal reports whether r is a terminal (a character device): a
// person typed `verbsurface serve`, which would otherwise wait in silence.
// (/dev/null is one too: the notice then goes to a stderr nobody minds.)
func onTerminal(r io.Reader) bool {
	f, ok := r.(*os.File)
	if !ok {
		return false
	}
	fi, err := f.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}
