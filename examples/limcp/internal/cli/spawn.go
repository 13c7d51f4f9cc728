//go:build unix

package cli

import (
	"context"
	"fmt"
	"io"
	"time"

	"github.com/spf13/cobra"
	"github.com/verbsurface/verbsurface/examples/limcp/internal/machine"
	"github.com/verbsurface/verbsurface/examples/limcp/internal/notify"
	"github.com/verbsurface/verbsurface/examples/limcp/internal/playbook"
	"github.com/verbsurface/verbsurface/examples/limcp/internal/provider"
	"github.com/verbsurface/verbsurface/examples/limcp/internal/run"
	"github.com/verbsurface/verbsurface/examples/limcp/internal/termsafe"
	"github.com/verbsurface/verbsurface/projector/fromcobra"
)

// spawnFlags are the flags every spawn command takes.
type spawnFlags struct {
	cwd           string
	timeout       time.Duration
	label         string
	team          string
	promptFile    string
	notifyURL     string
	notifyCommand []string
	quiet         bool
}

func (f *spawnFlags) add(c *cobra.Command) {
	c.Flags().StringVar(&f.promptFile, "prompt-file", "", "read the prompt from this file (instead of PROMPT); read once, at submit")
	c.Flags().StringVar(&f.cwd, "cwd", "", "working directory of the provider (default: the current directory)")
	// Path parameters: limcp mcp confines their values to its --root
	// directories (fromcobra.AnnotationPath), so a caller cannot name a
	// file the operator did not share.
	markPath(c, "prompt-file", "read")
	markPath(c, "cwd", "dir")
	c.Flags().DurationVar(&f.timeout, "timeout", 0, "deadline of each agent invocation, e.g. 90s (0: none); past it the run is timed_out")
	c.Flags().StringVar(&f.label, "label", "", "a label for the record (default: derived from the command)")
	c.Flags().StringVar(&f.team, "team", "", "post the run's end on this team's board (the team must exist)")
	c.Flags().BoolVarP(&f.quiet, "quiet", "q", false, "print only the new run's id (for scripts: id=$(limcp agent -q echo hi)); --json still prints the whole result")
	// SECURITY: the notify flags are for a person at a terminal only. A
	// notify command is arbitrary code execution, and a notify URL points
	// limcp's POSTs at a local port. The MCP server excludes exactly these
	// flag names (notify.Flags) from the surface it projects from this tree
	// and sets $LIMCP_NOTIFY_URL instead: renaming them, or adding another
	// flag that sets a notify target, would expose them to MCP callers.
	c.Flags().StringVar(&f.notifyURL, notify.FlagURL, "",
		"when the run (and each of its parts) ends, POST its record as JSON to this loopback URL (default $"+notify.EnvURL+", else config.yaml notify.url)")
	c.Flags().StringArrayVar(&f.notifyCommand, notify.FlagCommand, nil,
		"when the run (and each of its parts) ends, run this command (no shell) with its record as JSON on stdin; repeat for each argv word (default: config.yaml notify.command)")
}

// common resolves the flags every spawn command shares, the notify setting
// included (which reads the environment and <home>/config.yaml).
func (a *app) common(f *spawnFlags) (run.Common, error) {
	c := run.Common{Cwd: f.cwd, Timeout: f.timeout, Label: f.label, Team: f.team}
	home, err := a.resolvedHome()
	if err != nil {
		return c, err
	}
	c.Notify, err = notify.Resolve(home, notify.PerRun{URL: f.notifyURL, Command: f.notifyCommand}, a.opts.Getenv)
	return c, err
}

// submit finishes every spawn command the same way: resolve the shared
// flags, open the runtime, submit, and report the submitted record.
func (a *app) submit(cmd *cobra.Command, f *spawnFlags, do func(context.Context, *run.Runtime, run.Common) (*run.Submitted, error)) error {
	common, err := a.common(f)
	if err != nil {
		return err
	}
	if _, err := a.limits(); err != nil {
		return err
	}
	rt, err := a.runtime(cmd.Context())
	if err != nil {
		return err
	}
	s, err := do(cmd.Context(), rt, common)
	if err != nil {
		return err
	}
	human := humanSubmitted(s)
	if f.quiet {
		human = func(w io.Writer) { fmt.Fprintln(w, s.ID) }
	}
	return a.ok(s, human)
}

func humanSubmitted(s *run.Submitted) func(io.Writer) {
	return func(w io.Writer) {
		fmt.Fprintf(w, "%s %s started (%s) — worker pid %d\n", s.Kind, s.ID, termsafe.Line(s.Label), s.PID)
		if s.Session != nil {
			fmt.Fprintf(w, "session %s\n", *s.Session)
		}
		if s.Show != nil {
			fmt.Fprintf(w, "show %s\n", *s.Show)
		}
		if s.Notify != nil {
			fmt.Fprintf(w, "on end: %s\n", notifyTargets(s.Notify))
		}
		fmt.Fprintf(w, "follow it with: limcp job wait %s\n", s.ID)
	}
}

func (a *app) agentCmd() *cobra.Command {
	var f spawnFlags
	c := &cobra.Command{
		Use:   "agent MODEL [PROMPT]",
		Short: "start one agent run in the background",
		Long: `Start one agent invocation in the background and return at once with its record.

MODEL is "echo" (the built-in deterministic provider; options as
echo:delay=2s,exit=3,stderr=TEXT), a built-in agent preset when its program
is on PATH ("claude:sonnet" for Claude Code, "codex:gpt-5-codex" for Codex
CLI, "gemini:gemini-2.5-pro" for Gemini CLI; "limcp state doctor" lists
which are usable), or a command provider from providers.yaml ("NAME" or
"NAME:MODEL"). The prompt is PROMPT or the content of --prompt-file.`,
		Args: cobra.RangeArgs(1, 2),
	}
	f.add(c)
	constrainModel(c, "model")
	c.RunE = a.runE(func(cmd *cobra.Command, args []string) error {
		p, err := run.ReadPrompt(argAt(args, 1), len(args) > 1, f.promptFile)
		if err != nil {
			return err
		}
		return a.submit(cmd, &f, func(ctx context.Context, rt *run.Runtime, common run.Common) (*run.Submitted, error) {
			return rt.SubmitAgent(ctx, args[0], p, common)
		})
	})
	return c
}

func (a *app) fanoutCmd() *cobra.Command {
	var f spawnFlags
	var n int
	var synthesis string
	c := &cobra.Command{
		Use:   "fanout MODEL [PROMPT]",
		Short: "start a session of N runs of one prompt, optionally synthesised",
		Long: `Start a session running N invocations of MODEL on the same prompt concurrently,
then, with --with-synthesis, one more invocation fed the prompt followed by
their outputs.`,
		Args: cobra.RangeArgs(1, 2),
	}
	c.Flags().IntVarP(&n, "count", "n", 0, fmt.Sprintf("how many invocations (1..%d)", run.MaxFanout))
	c.Flags().StringVar(&synthesis, "with-synthesis", "", "after the N runs, run this MODEL on the prompt followed by their outputs")
	_ = c.MarkFlagRequired("count")
	f.add(c)
	constrainModel(c, "model")
	constrainModel(c, "with_synthesis")
	c.RunE = a.runE(func(cmd *cobra.Command, args []string) error {
		p, err := run.ReadPrompt(argAt(args, 1), len(args) > 1, f.promptFile)
		if err != nil {
			return err
		}
		return a.submit(cmd, &f, func(ctx context.Context, rt *run.Runtime, common run.Common) (*run.Submitted, error) {
			return rt.SubmitFanout(ctx, args[0], n, synthesis, p, common)
		})
	})
	return c
}

func (a *app) flowCmd() *cobra.Command {
	var f spawnFlags
	var spec string
	c := &cobra.Command{
		Use:   "flow [PROMPT]",
		Short: "start a session running a DAG of agent steps from a spec file",
		Long: `Start a session running the steps of a flow spec (YAML or JSON): steps with an
id, a model, a prompt (a Go template over .prompt) and depends_on. Each step
gets the outputs of the steps it depends on appended to its prompt.`,
		Args: cobra.RangeArgs(0, 1),
	}
	c.Flags().StringVar(&spec, "spec", "", "the flow spec file")
	_ = c.MarkFlagRequired("spec")
	markPath(c, "spec", "read")
	f.add(c)
	c.RunE = a.runE(func(cmd *cobra.Command, args []string) error {
		var p run.Prompt
		if len(args) > 0 || f.promptFile != "" {
			var err error
			if p, err = run.ReadPrompt(argAt(args, 0), len(args) > 0, f.promptFile); err != nil {
				return err
			}
		}
		return a.submit(cmd, &f, func(ctx context.Context, rt *run.Runtime, common run.Common) (*run.Submitted, error) {
			return rt.SubmitFlow(ctx, spec, p, common)
		})
	})
	return c
}

func (a *app) playCmd() *cobra.Command {
	var f spawnFlags
	var show string
	c := &cobra.Command{
		Use:   "play PLAYBOOK [PROMPT]",
		Short: "start a play: a session built from a playbook",
		Long: `Start a play of the playbook PLAYBOOK (<home>/playbooks/PLAYBOOK.playbook.yaml):
a play record owning a session that runs the playbook's flow. The playbook
defines more flags: its declared args, which are added to this command when
PLAYBOOK is named (see "limcp play PLAYBOOK --help"). Give them after the
PLAYBOOK name.`,
		Args: cobra.RangeArgs(1, 2),
	}
	c.Flags().StringVar(&show, "show", "", "group this play under the open show of this name (created if none is open)")
	constrainName(c, "show")
	f.add(c)
	c.RunE = a.runE(func(cmd *cobra.Command, args []string) error {
		pb, fp, values, ok, err := playbook.Injected(cmd)
		if err != nil {
			return err
		}
		if !ok {
			// Main injects before parsing; reaching here means this tree
			// was executed without it (or the name did not pre-scan).
			home, herr := a.resolvedHome()
			if herr != nil {
				return herr
			}
			if _, _, err := playbook.Load(home, args[0]); err != nil {
				return err
			}
			return machine.Errorf(machine.Internal, nil, "playbook %q was not injected before parsing", args[0])
		}
		if pb.Name != args[0] {
			return machine.Errorf(machine.InvalidArgument, map[string]any{"argument": "playbook"},
				"the playbook named %q is not the one whose flags were injected (%q); give PLAYBOOK before the playbook's flags", args[0], pb.Name)
		}
		if show != "" {
			if err := checkName("show", show); err != nil {
				return err
			}
		}
		p, err := run.ReadPrompt(argAt(args, 1), len(args) > 1, f.promptFile)
		if err != nil {
			return err
		}
		return a.submit(cmd, &f, func(ctx context.Context, rt *run.Runtime, common run.Common) (*run.Submitted, error) {
			return rt.SubmitPlay(ctx, pb, fp, values, p, show, common)
		})
	})
	return c
}

// markPath declares that flag's value names a file or directory limcp
// opens (use: read, write or dir), with the annotation fromcobra reads
// into projector.Param.Path.
func markPath(c *cobra.Command, flag, use string) {
	if err := c.Flags().SetAnnotation(flag, fromcobra.AnnotationPath, []string{use}); err != nil {
		panic(err) // a flag this file just defined
	}
}

func argAt(args []string, i int) string {
	if i < len(args) {
		return args[i]
	}
	return ""
}

// constrainModel states provider.ModelPattern in the schema of a model
// parameter: a caller's model is refused at validation, pattern shown,
// before it can reach a provider's {model} slot (where "local:--exec=…"
// would be an option). The CLI checks the same pattern when it resolves
// the model.
func constrainModel(c *cobra.Command, param string) {
	fromcobra.Constrain(c, param, fromcobra.Constraint{Pattern: provider.ModelPattern})
}
