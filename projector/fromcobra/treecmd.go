package fromcobra

import (
	"encoding/json"
	"slices"

	"github.com/spf13/cobra"
	"github.com/verbsurface/verbsurface/projector"
)

// TreeCommandName is the name of the hidden command [TreeCommand] builds.
const TreeCommandName = "__verbsurface-tree"

// TreeCommand returns a hidden command that prints root's parser model
// (Walk(root, opts)) as one JSON object on stdout, so a cobra CLI in
// another binary can be fronted without importing it: add it in one line,
//
//	root.AddCommand(fromcobra.TreeCommand(root, nil))
//
// and point cmd/verbsurface at it (source: {tree_command: [mycli,
// __verbsurface-tree]}). The printed tree leaves out the command itself
// and the help and completion commands cobra adds when it executes.
func TreeCommand(root *cobra.Command, opts *Options) *cobra.Command {
	return &cobra.Command{
		Use:    TreeCommandName,
		Short:  "print the command tree as JSON for verbsurface",
		Hidden: true,
		Args:   cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			t, err := Walk(root, opts)
			if err != nil {
				return err
			}
			t.Commands = slices.DeleteFunc(t.Commands, func(cmd *projector.Command) bool {
				if len(cmd.Path) == 0 {
					return false
				}
				switch cmd.Path[0] {
				case TreeCommandName:
					return true
				case "help", "completion":
					// cobra's own, added at execution: not in the tree a
					// fresh walk would see.
					sub, _, err := root.Find([]string{cmd.Path[0]})
					return err == nil && sub != nil && (sub.Short == "Help about any command" || sub.Short == "Generate the autocompletion script for the specified shell")
				}
				return false
			})
			enc := json.NewEncoder(c.OutOrStdout())
			enc.SetEscapeHTML(false)
			return enc.Encode(t)
		},
	}
}
