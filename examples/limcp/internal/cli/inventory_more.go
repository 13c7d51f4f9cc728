//go:build unix

package cli

import (
	"errors"

	"github.com/spf13/cobra"

	"github.com/verbsurface/verbsurface/examples/limcp/internal/machine"
	"github.com/verbsurface/verbsurface/projector"
	"github.com/verbsurface/verbsurface/projector/fromclap"
	"github.com/verbsurface/verbsurface/projector/fromoptparse"
)

// moreSources are `limcp inventory`'s flags for the parser families added
// after argparse, click and cobra: --optparse (with --optparse-command and
// --string-type) and --clap.
type moreSources struct {
	optparse, command, clap string
	stringTypes             []string
}

func (m *moreSources) flags(c *cobra.Command) {
	c.Flags().StringVar(&m.optparse, "optparse", "", "walk the optparse parser, factory or command table named MODULE:OBJECT")
	c.Flags().StringVar(&m.command, "optparse-command", "", "the command factory of an --optparse command table (MODULE:FUNCTION, called with each name)")
	c.Flags().StringArrayVar(&m.stringTypes, "string-type", nil, "an optparse option type of the program's own that reads a plain string (repeatable)")
	c.Flags().StringVar(&m.clap, "clap", "", "read the installed clap program BINARY's tree from its --help")
}

func (m *moreSources) given() bool { return m.optparse != "" || m.clap != "" }

// conflicts refuses two sources at once, and optparse's own flags without
// --optparse.
func (m *moreSources) conflicts(others bool) error {
	switch {
	case m.optparse != "" && m.clap != "", m.given() && others:
		return machine.Errorf(machine.InvalidArgument, map[string]any{"argument": "clap"}, "--argparse, --click, --cobra, --optparse and --clap each name a CLI; give one")
	case m.optparse == "" && (m.command != "" || len(m.stringTypes) > 0):
		return machine.Errorf(machine.InvalidArgument, map[string]any{"argument": "optparse-command"}, "--optparse-command and --string-type apply to --optparse only")
	}
	return nil
}

// inventory walks the CLI the flags name; like argparseInventory it
// fences nothing.
func (m *moreSources) inventory(cmd *cobra.Command, python string, pythonPath []string, iopts *projector.InventoryOptions) (*inventoryReport, error) {
	var tree *projector.Tree
	var err error
	source, target := "clap", m.clap
	if m.optparse != "" {
		source, target = "optparse", m.optparse
		tree, err = fromoptparse.Walk(cmd.Context(), m.optparse, &fromoptparse.Options{Python: python, PythonPath: pythonPath, Command: m.command, StringTypes: m.stringTypes})
	} else {
		tree, err = fromclap.Walk(cmd.Context(), []string{m.clap}, nil)
	}
	if err != nil {
		details := map[string]any{"target": target}
		var oe *fromoptparse.Error
		var ce *fromclap.Error
		switch {
		case errors.As(err, &oe):
			details["kind"] = oe.Kind
		case errors.As(err, &ce):
			details["kind"] = string(ce.Kind)
		}
		return nil, machine.Errorf(machine.InventoryFailed, details, "limcp inventory --%s %s: %v", source, target, err)
	}
	return &inventoryReport{InventoryReport: projector.Inventory(tree, iopts), Source: source + ":" + target}, nil
}
