//go:build unix

package cli

import (
	"bytes"
	"encoding/json"
	"fmt"

	"github.com/spf13/cobra"
	"github.com/verbsurface/verbsurface/examples/limcp/internal/server"
	"github.com/verbsurface/verbsurface/projector"
	"github.com/verbsurface/verbsurface/projector/fromcobra"
)

// treeCmd is the hidden `limcp __verbsurface-tree` (fromcobra.TreeCommand):
// the tree `limcp mcp` projects, as JSON, so that `verbsurface serve` with
// examples/limcp/verbsurface.yaml fronts limcp from another binary with the
// same schemas and fingerprints. It is the server's tree exactly: the walk
// leaves out server.ExcludedFlags, carries describe's descriptions and path
// annotations, and the model and playbook parameters are described live
// for the state home (--home, $LIMCP_HOME, ...) and PATH, as the server
// describes them (server.LiveTree). It prints the tree as it is, not a
// machine result: a front reads it with source: {tree_command: ...}.
func (a *app) treeCmd(root *cobra.Command) *cobra.Command {
	c := fromcobra.TreeCommand(root, &fromcobra.Options{ExcludeFlags: server.ExcludedFlags})
	walk := c.RunE
	c.RunE = func(cmd *cobra.Command, args []string) error {
		var raw bytes.Buffer
		out := cmd.OutOrStdout()
		cmd.SetOut(&raw)
		err := walk(cmd, args)
		cmd.SetOut(out)
		if err != nil {
			return err
		}
		var t projector.Tree
		if err := json.Unmarshal(raw.Bytes(), &t); err != nil {
			return fmt.Errorf("%s: reading the walked tree back: %w", fromcobra.TreeCommandName, err)
		}
		home, err := a.resolvedHome()
		if err != nil {
			return err
		}
		live := server.LiveTree(&t, home, []string{"PATH=" + a.opts.Getenv("PATH")})
		enc := json.NewEncoder(a.opts.Stdout)
		enc.SetEscapeHTML(false)
		return enc.Encode(live)
	}
	return c
}
