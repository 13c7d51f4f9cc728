//go:build unix

package cli

import (
	"bytes"
	"context"
	"strconv"
	"strings"

	"github.com/spf13/cobra"
	"github.com/verbsurface/verbsurface/examples/limcp/internal/guard"
	"github.com/verbsurface/verbsurface/examples/limcp/internal/machine"
	"github.com/verbsurface/verbsurface/examples/limcp/internal/playbook"
	"github.com/verbsurface/verbsurface/internal/buildinfo"
)

// NewRoot returns a fresh limcp command tree. Each call builds a new tree
// (commands, flags, closures): nothing is shared between two trees, so one
// can be projected or have a playbook injected while another runs. It does
// no I/O. Running the tree's commands directly (Execute) works, but [Main]
// is the entry point: it also injects a `play` command's playbook flags
// before parsing and turns every failure into a machine result.
func NewRoot(opts Options) *cobra.Command {
	return newApp(opts).root()
}

// Main runs limcp with args (without the program name) and returns the
// exit status.
func Main(args []string, opts Options) int {
	a := newApp(opts)
	defer a.close()
	root := a.root()
	a.json = prescanJSON(args)
	if err := a.injectPlaybook(root, args); err != nil {
		return a.fail(err, nil)
	}
	var help bytes.Buffer
	if a.json {
		// Help text becomes the data of a machine result, never raw stdout.
		root.SetOut(&help)
	} else {
		root.SetOut(a.opts.Stdout)
	}
	root.SetErr(a.opts.Stderr)
	root.SetArgs(args)
	cmd, err := root.ExecuteContextC(context.Background())
	if code, ok := exitStatus(err); ok {
		return code
	}
	if err != nil {
		return a.fail(err, cmd)
	}
	if a.emitted {
		return 0
	}
	// Nothing was written: help was shown, or a group command ran without
	// a (known) subcommand.
	if cmd != nil && !cmd.Runnable() {
		if rest := cmd.Flags().Args(); len(rest) > 0 {
			return a.fail(newUsageError(errUnknownCommand(rest[0], cmd)), cmd)
		}
	}
	if a.json {
		path := "limcp"
		if cmd != nil {
			path = cmd.CommandPath()
		}
		_ = machine.Write(a.opts.Stdout, machine.OK(map[string]any{"command": path, "help": help.String()}))
	}
	return 0
}

type unknownCommandError struct{ name, parent string }

func (e *unknownCommandError) Error() string {
	return "unknown command " + strconv.Quote(e.name) + " for " + strconv.Quote(e.parent)
}

func errUnknownCommand(name string, parent *cobra.Command) error {
	return &unknownCommandError{name: name, parent: parent.CommandPath()}
}

// prescanJSON reports whether --json is set, read before parsing so that a
// command line that fails to parse still gets a machine result.
func prescanJSON(args []string) bool {
	on := false
	for _, a := range args {
		if a == "--" {
			break
		}
		switch {
		case a == "--json":
			on = true
		case strings.HasPrefix(a, "--json="):
			v, err := strconv.ParseBool(strings.TrimPrefix(a, "--json="))
			on = err == nil && v
		}
	}
	return on
}

// prescanHome returns --home's value as given before parsing ("" if absent).
func prescanHome(args []string) string {
	home := ""
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			break
		}
		switch {
		case a == "--home" && i+1 < len(args):
			home = args[i+1]
			i++
		case strings.HasPrefix(a, "--home="):
			home = strings.TrimPrefix(a, "--home=")
		}
	}
	return home
}

// injectPlaybook performs playbook.Inject for `limcp play PLAYBOOK ...`
// before parsing, so the playbook's args parse as real flags. The playbook
// name is the first positional after `play`: the first argument that is
// neither a flag nor the value of one of play's own flags, or the first
// argument after "--". A playbook flag must therefore come after the name
// (or use the --flag=value form).
func (a *app) injectPlaybook(root *cobra.Command, args []string) error {
	cmd, rest, err := root.Find(args)
	if err != nil || cmd.Name() != playbook.PlayCommand || cmd.Parent() != root {
		return nil
	}
	name := guard.FirstPositional(cmd, rest)
	if name == "" {
		return nil
	}
	a.home = prescanHome(args)
	home, err := a.resolvedHome()
	if err != nil {
		return err
	}
	_, err = playbook.Inject(root, home, name)
	return err
}

// root builds the tree.
func (a *app) root() *cobra.Command {
	root := &cobra.Command{
		Use:   "limcp",
		Short: "Start agent runs in the background and track them durably",
		Long: `limcp starts agent runs (agent, fanout, flow, play) in the background, records
their lifecycle in a local SQLite store, and reports everything as machine
results with --json.`,
		SilenceErrors: true,
		SilenceUsage:  true,
		// --version prints the line `limcp version` prints (set below);
		// the command also has a machine result under --json.
		Version: buildinfo.Version(),
	}
	root.SetVersionTemplate(buildinfo.Line("limcp") + "\n")
	// cobra's own `completion bash|zsh|fish|powershell` is left on: it is
	// added when the tree executes, so it is never in a walked tree, and
	// never a verb.
	root.PersistentFlags().BoolVar(&a.json, "json", false, "print exactly one machine result (JSON) on stdout; human text goes to stderr")
	root.PersistentFlags().StringVar(&a.home, "home", "", "state home (default $LIMCP_HOME, else $XDG_STATE_HOME/limcp, else ~/.local/state/limcp)")
	root.SetFlagErrorFunc(func(c *cobra.Command, err error) error { return newUsageError(err) })

	root.AddCommand(a.agentCmd(), a.fanoutCmd(), a.flowCmd(), a.playCmd())
	root.AddCommand(a.jobCmd(), a.killCmd())
	root.AddCommand(a.scheduleCmd(), a.teamCmd())
	root.AddCommand(a.stateCmd(), a.pluginCmd(), a.hooksCmd(), a.monitorCmd(), a.statsCmd())
	root.AddCommand(a.workerCmd(), a.notifyCmd())
	root.AddCommand(a.mcpCmd(), a.callCmd(), a.inventoryCmd(), a.versionCmd(), a.policyCmd())
	describe(root)
	root.AddCommand(a.treeCmd(root)) // after describe: it walks the described tree
	return root
}

// runE adapts a command body: every error it returns becomes a
// *machine.Error (untyped ones are internal errors), so that an untyped
// error reaching Main can only have come from cobra's parsing.
func (a *app) runE(fn func(cmd *cobra.Command, args []string) error) func(*cobra.Command, []string) error {
	return func(cmd *cobra.Command, args []string) error {
		a.watchServer(cmd)
		if err := fn(cmd, args); err != nil {
			return toMachine(err, nil)
		}
		return nil
	}
}

// group is a command that only holds subcommands.
func group(use, short string, subs ...*cobra.Command) *cobra.Command {
	c := &cobra.Command{Use: use, Short: short}
	c.AddCommand(subs...)
	return c
}
