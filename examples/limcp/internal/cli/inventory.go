//go:build unix

package cli

import (
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/verbsurface/verbsurface/examples/limcp/internal/machine"
	"github.com/verbsurface/verbsurface/examples/limcp/internal/server"
	"github.com/verbsurface/verbsurface/projector"
	"github.com/verbsurface/verbsurface/projector/fromargparse"
	"github.com/verbsurface/verbsurface/projector/fromclick"
	"github.com/verbsurface/verbsurface/projector/fromcobra"
	"github.com/verbsurface/verbsurface/projector/fromcobrabin"
	"github.com/verbsurface/verbsurface/verbsurface"
)

// inventoryReport is what `limcp inventory` prints: the projector's
// inventory of a parser tree and, for limcp's own tree, how each verb of the
// server's allowlist fares.
type inventoryReport struct {
	*projector.InventoryReport
	// Source says which tree was walked: "limcp", "argparse:MODULE:FUNCTION",
	// "click:MODULE:OBJECT" or "cobra:BINARY".
	Source string `json:"source"`
	// Verbs is set for limcp's own tree only: every allowlisted verb and
	// whether its command projects.
	Verbs []inventoryVerb `json:"verbs,omitempty"`
}

type inventoryVerb struct {
	server.AllowedVerb
	Projects bool   `json:"projects"`
	Reason   string `json:"reason,omitempty"`
}

// inventoryCmd is `limcp inventory`: how much of a parser projects, and
// what blocks the rest. A team deciding whether to front its CLI with
// verbsurface starts here.
func (a *app) inventoryCmd() *cobra.Command {
	var target, clickTarget, cobraBin, python, machineAt string
	more := &moreSources{}
	var pythonPath, fences, machineArgs []string
	c := &cobra.Command{
		Use:   "inventory",
		Short: "how much of a CLI's parser projects to verb schemas, and why not the rest",
		Long: `Report how much of a parser tree verbsurface can offer: the command paths,
the parameters by source action class and by type, every unrepresentable
parameter and unavailable command with its exact reason, and the share of
offerable commands that project cleanly.

Without --argparse it reports limcp's own tree as ` + "`limcp mcp`" + ` projects it (the
fenced commands listed as present but fenced) and checks every verb of the
server's allowlist. With --argparse MODULE:FUNCTION it walks a Python argparse
CLI whose parser factory can be imported (MODULE:__main__ runs the module as a
script and captures the parser it builds). With --click MODULE:OBJECT it walks
a Python click command or group, or a Typer app (or a factory returning one).
With --cobra BINARY it reads an installed cobra program's tree from its own
completion protocol and --help, without running any of its commands.
With --optparse MODULE:OBJECT it walks a Python optparse parser, or a command
table of them (--optparse-command names the factory called with each name:
pip is pip._internal.commands:commands_dict with
pip._internal.commands:create_command). With --clap BINARY it reads an
installed Rust clap program's tree from its --help.

--fence and --machine-flag apply what a front would: a fenced command is not
offerable, and a command that does not accept the machine-mode arguments
where --machine-at puts them is unavailable, however clean its parameters.
limcp's own tree defaults to verbsurface's fence and --json after the
command path, as limcp mcp serves it; a Python CLI defaults to no fence and
no machine mode, and so does a cobra binary.`,
		Args: cobra.NoArgs,
	}
	c.Flags().StringVar(&target, "argparse", "", "walk the argparse parser built by this factory (MODULE:FUNCTION or MODULE:__main__)")
	c.Flags().StringVar(&clickTarget, "click", "", "walk the click command, group or Typer app named MODULE:OBJECT (or a factory returning one)")
	c.Flags().StringVar(&cobraBin, "cobra", "", "read the installed cobra program BINARY's tree from its completion protocol and --help")
	more.flags(c)
	c.Flags().StringVar(&python, "python", "", "the Python interpreter for --argparse or --click (default python3)")
	c.Flags().StringArrayVar(&pythonPath, "pythonpath", nil, "a directory to prepend to PYTHONPATH for --argparse or --click (repeatable)")
	c.Flags().StringArrayVar(&fences, "fence", nil, "a command path never offered, as words (\"admin reset\"; repeatable; replaces the default fence)")
	c.Flags().StringArrayVar(&machineArgs, "machine-flag", nil, "an argument that selects the CLI's machine mode (--machine-flag=--json, or --machine-flag=--format=json; repeatable, in order)")
	c.Flags().StringVar(&machineAt, "machine-at", "leaf", "where the machine-mode arguments go: leaf (after the command path) or root")
	c.RunE = a.runE(func(cmd *cobra.Command, args []string) error {
		if machineAt != string(verbsurface.MachineAtLeaf) && machineAt != string(verbsurface.MachineAtRoot) {
			return machine.Errorf(machine.InvalidArgument, map[string]any{"argument": "machine-at"}, "--machine-at %q is not leaf or root", machineAt)
		}
		if len(machineArgs) > 0 && !strings.HasPrefix(machineArgs[0], "-") {
			return machine.Errorf(machine.InvalidArgument, map[string]any{"argument": "machine-flag"}, "--machine-flag %q is not an option (write --machine-flag=--json)", machineArgs[0])
		}
		own := target == "" && clickTarget == "" && cobraBin == "" && !more.given()
		iopts := &projector.InventoryOptions{}
		if own {
			iopts.Fenced = verbsurface.DefaultFence
			if len(machineArgs) == 0 {
				machineArgs = []string{"--json"}
			}
		}
		if cmd.Flags().Changed("fence") {
			iopts.Fenced = nil
			for _, f := range fences {
				iopts.Fenced = append(iopts.Fenced, strings.Fields(f))
			}
		}
		if len(machineArgs) > 0 {
			iopts.Offerable = verbsurface.Machine{Args: machineArgs, At: verbsurface.MachineAt(machineAt)}.Seam
		}
		if target != "" && clickTarget != "" {
			return machine.Errorf(machine.InvalidArgument, map[string]any{"argument": "click"}, "--argparse and --click name two different CLIs; give one")
		}
		if cobraBin != "" && (target != "" || clickTarget != "") {
			return machine.Errorf(machine.InvalidArgument, map[string]any{"argument": "cobra"}, "--cobra and --argparse or --click name two different CLIs; give one")
		}
		if err := more.conflicts(target != "" || clickTarget != "" || cobraBin != ""); err != nil {
			return err
		}
		if target == "" && clickTarget == "" && more.optparse == "" && (python != "" || len(pythonPath) > 0) {
			return machine.Errorf(machine.InvalidArgument, map[string]any{"argument": "argparse"}, "--python and --pythonpath apply to --argparse and --click only")
		}
		var rep *inventoryReport
		var err error
		switch {
		case more.given():
			rep, err = more.inventory(cmd, python, pythonPath, iopts)
		case cobraBin != "":
			rep, err = cobraInventory(cmd, cobraBin, iopts)
		case clickTarget != "":
			rep, err = clickInventory(cmd, clickTarget, python, pythonPath, iopts)
		case target != "":
			rep, err = argparseInventory(cmd, target, python, pythonPath, iopts)
		default:
			rep, err = ownInventory(iopts)
		}
		if err != nil {
			return err
		}
		return a.ok(rep, func(w io.Writer) { writeInventory(w, rep) })
	})
	return c
}

// ownInventory walks limcp's own tree exactly as the server does (the same
// excluded flags, fence and machine mode) and checks the allowlist against it.
func ownInventory(iopts *projector.InventoryOptions) (*inventoryReport, error) {
	tree, err := fromcobra.Walk(NewRoot(Options{}), &fromcobra.Options{ExcludeFlags: server.ExcludedFlags})
	if err != nil {
		return nil, machine.Errorf(machine.Internal, nil, "walking limcp's own command tree: %v", err)
	}
	rep := &inventoryReport{
		InventoryReport: projector.Inventory(tree, iopts),
		Source:          "limcp",
	}
	for _, v := range server.Allowlist() {
		iv := inventoryVerb{AllowedVerb: v}
		switch cmd := tree.Find(v.Path...); {
		case cmd == nil:
			iv.Reason = fmt.Sprintf("no command %q in the tree", strings.Join(v.Path, " "))
		default:
			if _, err := projector.Project(cmd); err != nil {
				iv.Reason = err.Error()
			} else if err := offerable(iopts, tree, cmd); err != nil {
				iv.Reason = err.Error()
			} else {
				iv.Projects = true
			}
		}
		rep.Verbs = append(rep.Verbs, iv)
	}
	return rep, nil
}

// offerable applies the inventory's Offerable check (the machine seam).
func offerable(iopts *projector.InventoryOptions, t *projector.Tree, c *projector.Command) error {
	if iopts.Offerable == nil {
		return nil
	}
	return iopts.Offerable(t, c)
}

// argparseInventory walks a Python argparse CLI. Nothing is fenced there
// unless --fence says so: which of its commands grant privilege is for the
// team fronting it to say.
func argparseInventory(cmd *cobra.Command, target, python string, pythonPath []string, iopts *projector.InventoryOptions) (*inventoryReport, error) {
	tree, err := fromargparse.Walk(cmd.Context(), target, &fromargparse.Options{Python: python, PythonPath: pythonPath})
	if err != nil {
		details := map[string]any{"target": target}
		var we *fromargparse.Error
		if errors.As(err, &we) {
			details["kind"] = we.Kind
		}
		return nil, machine.Errorf(machine.InventoryFailed, details, "limcp inventory --argparse %s: %v", target, err)
	}
	return &inventoryReport{
		InventoryReport: projector.Inventory(tree, iopts),
		Source:          "argparse:" + target,
	}, nil
}

// clickInventory walks a Python click (or Typer) CLI; like argparseInventory
// it fences nothing.
func clickInventory(cmd *cobra.Command, target, python string, pythonPath []string, iopts *projector.InventoryOptions) (*inventoryReport, error) {
	tree, err := fromclick.Walk(cmd.Context(), target, &fromclick.Options{Python: python, PythonPath: pythonPath})
	if err != nil {
		details := map[string]any{"target": target}
		var we *fromclick.Error
		if errors.As(err, &we) {
			details["kind"] = we.Kind
		}
		return nil, machine.Errorf(machine.InventoryFailed, details, "limcp inventory --click %s: %v", target, err)
	}
	return &inventoryReport{
		InventoryReport: projector.Inventory(tree, iopts),
		Source:          "click:" + target,
	}, nil
}

// cobraInventory reads an installed cobra program's tree from its help;
// like argparseInventory it fences nothing.
func cobraInventory(cmd *cobra.Command, bin string, iopts *projector.InventoryOptions) (*inventoryReport, error) {
	tree, err := fromcobrabin.Walk(cmd.Context(), []string{bin}, nil)
	if err != nil {
		details := map[string]any{"target": bin}
		var we *fromcobrabin.Error
		if errors.As(err, &we) {
			details["kind"] = we.Kind
		}
		return nil, machine.Errorf(machine.InventoryFailed, details, "limcp inventory --cobra %s: %v", bin, err)
	}
	return &inventoryReport{
		InventoryReport: projector.Inventory(tree, iopts),
		Source:          "cobra:" + bin,
	}, nil
}

// writeInventory writes the report for a person: the projector's text,
// then the allowlist check when there is one.
func writeInventory(w io.Writer, rep *inventoryReport) {
	fmt.Fprintf(w, "source: %s\n", rep.Source)
	_ = rep.InventoryReport.WriteText(w)
	if len(rep.Verbs) == 0 {
		return
	}
	fmt.Fprintf(w, "\nallowlisted verbs (%d):\n", len(rep.Verbs))
	for _, v := range rep.Verbs {
		mark := "ok"
		if !v.Projects {
			mark = "UNAVAILABLE: " + v.Reason
		}
		fmt.Fprintf(w, "  %-16s %-8s %-18s %s\n", v.Verb, v.Class, strings.Join(v.Path, " "), mark)
	}
	if i := slices.IndexFunc(rep.Verbs, func(v inventoryVerb) bool { return !v.Projects }); i < 0 {
		fmt.Fprintln(w, "  every allowlisted verb projects")
	}
}
