package fromcobra_test

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/spf13/cobra"
	"github.com/verbsurface/verbsurface/projector"
	"github.com/verbsurface/verbsurface/projector/fromcobra"
)

func treeCLI() *cobra.Command {
	root := &cobra.Command{Use: "mycli"}
	root.PersistentFlags().Bool("json", false, "machine mode")
	add := &cobra.Command{Use: "add TEXT", Short: "add a note", Args: cobra.ExactArgs(1), RunE: func(*cobra.Command, []string) error { return nil }}
	add.Flags().String("color", "red", "color")
	root.AddCommand(add)
	return root
}

// The hidden command prints exactly the tree an in-process walk of a
// fresh tree gives, after the CLI has executed (cobra's help and
// completion commands, and the command itself, left out).
func TestTreeCommandPrintsTheWalk(t *testing.T) {
	opts := &fromcobra.Options{ExcludeFlags: []string{"json"}}
	want, err := fromcobra.Walk(treeCLI(), opts)
	if err != nil {
		t.Fatal(err)
	}
	root := treeCLI()
	root.AddCommand(fromcobra.TreeCommand(root, opts))
	var out bytes.Buffer
	root.SetOut(&out)
	root.SetArgs([]string{fromcobra.TreeCommandName})
	if err := root.Execute(); err != nil {
		t.Fatal(err)
	}
	var got projector.Tree
	if err := json.Unmarshal(out.Bytes(), &got); err != nil {
		t.Fatalf("%v: %s", err, out.String())
	}
	if d := cmp.Diff(want, &got); d != "" {
		t.Errorf("printed tree differs from the walk (-want +got):\n%s", d)
	}
	for _, c := range root.Commands() {
		if c.Name() == fromcobra.TreeCommandName && !c.Hidden {
			t.Error("the tree command is not hidden")
		}
	}
}
