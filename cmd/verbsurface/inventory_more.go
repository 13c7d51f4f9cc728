//go:build unix

package main

import (
	"context"
	"errors"

	"github.com/spf13/cobra"

	"github.com/verbsurface/verbsurface/projector"
	"github.com/verbsurface/verbsurface/projector/fromclap"
	"github.com/verbsurface/verbsurface/projector/fromoptparse"
)

// moreInventory holds `verbsurface inventory`'s flags for the parser
// families added after cobra and argparse: --optparse (with
// --optparse-command and --string-type) and --clap.
type moreInventory struct {
	optparse, command, clap string
	stringTypes             []string
}

func addMoreInventoryFlags(c *cobra.Command) *moreInventory {
	m := &moreInventory{}
	c.Flags().StringVar(&m.optparse, "optparse", "", "walk this optparse target (MODULE:OBJECT: a parser, a factory, or a command table) instead of a configuration")
	c.Flags().StringVar(&m.command, "optparse-command", "", "the command factory of an --optparse command table (MODULE:FUNCTION, called with each name)")
	c.Flags().StringSliceVar(&m.stringTypes, "string-type", nil, "an optparse option type of the program's own that reads a plain string (repeatable)")
	c.Flags().StringVar(&m.clap, "clap", "", "read this installed clap program's tree from its --help instead of a configuration")
	return m
}

// walk reads the tree one of these flags names; given is false when none
// is set. others says whether another source flag is set too.
func (m *moreInventory) walk(ctx context.Context, others bool, pythonPath []string) (t *projector.Tree, given bool, err error) {
	n := 0
	for _, s := range []string{m.optparse, m.clap} {
		if s != "" {
			n++
		}
	}
	if n == 0 {
		if m.command != "" || len(m.stringTypes) > 0 {
			return nil, true, errors.New("--optparse-command and --string-type apply to --optparse only")
		}
		return nil, false, nil
	}
	if n > 1 || others {
		return nil, true, errors.New("--argparse, --cobra, --optparse and --clap each name a CLI; give one")
	}
	if m.clap != "" {
		t, err = fromclap.Walk(ctx, []string{m.clap}, nil)
		return t, true, err
	}
	t, err = fromoptparse.Walk(ctx, m.optparse, &fromoptparse.Options{PythonPath: pythonPath, Command: m.command, StringTypes: m.stringTypes})
	return t, true, err
}
