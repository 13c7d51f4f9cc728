package fromcobra

import (
	"fmt"
	"testing"
	"time"

	"github.com/spf13/cobra"

	"github.com/verbsurface/verbsurface/projector"
)

// syntheticTree builds a cobra tree of 100 commands (a root, 9 groups, 90
// leaves) and 1,000 flags (10 persistent on the root, 11 on each leaf, of
// every supported type), the size the benchmark targets.
func syntheticTree() *cobra.Command {
	run := func(*cobra.Command, []string) {}
	root := &cobra.Command{Use: "big"}
	for i := 0; i < 10; i++ {
		root.PersistentFlags().String(fmt.Sprintf("global-%d", i), "", "a global flag")
	}
	for g := 0; g < 9; g++ {
		group := &cobra.Command{Use: fmt.Sprintf("group%d", g), Short: "a group"}
		for l := 0; l < 10; l++ {
			leaf := &cobra.Command{Use: fmt.Sprintf("leaf%d NAME [ARGS...]", l), Short: "a leaf", Args: cobra.MinimumNArgs(1), Run: run}
			f := leaf.Flags()
			f.String("label", "", "a string")
			f.Bool("force", false, "a bool")
			f.Int("count", 1, "an int")
			f.Int32("small", 0, "an int32")
			f.Uint8("byte", 0, "a uint8")
			f.Float64("ratio", 0.5, "a float")
			f.Duration("timeout", time.Minute, "a duration")
			f.StringSlice("tags", nil, "a string slice")
			f.StringArray("items", nil, "a string array")
			f.IntSlice("nums", nil, "an int slice")
			f.CountP("verbose", "v", "a count")
			leaf.MarkFlagsMutuallyExclusive("label", "tags")
			group.AddCommand(leaf)
		}
		root.AddCommand(group)
	}
	return root
}

// BenchmarkProject walks the synthetic tree and projects and fingerprints
// every command: one full pass (target < 10 ms).
func BenchmarkProject(b *testing.B) {
	root := syntheticTree()
	b.ReportAllocs()
	for b.Loop() {
		tree, err := Walk(root, nil)
		if err != nil {
			b.Fatal(err)
		}
		n := 0
		for _, c := range tree.Commands {
			s, err := projector.Project(c)
			if err != nil {
				continue // the root and groups run nothing
			}
			if _, err := projector.Fingerprint("v", s); err != nil {
				b.Fatal(err)
			}
			n++
		}
		if n != 90 {
			b.Fatalf("%d verbs", n)
		}
	}
}

// BenchmarkProjectOneVerb re-projects and fingerprints one verb of the walked
// model (target < 100 µs).
func BenchmarkProjectOneVerb(b *testing.B) {
	tree, err := Walk(syntheticTree(), nil)
	if err != nil {
		b.Fatal(err)
	}
	cmd := tree.Find("group4", "leaf7")
	b.ReportAllocs()
	for b.Loop() {
		s, err := projector.Project(cmd)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := projector.Fingerprint("group4.leaf7", s); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkRenderArgv renders a typical argument object for one verb.
func BenchmarkRenderArgv(b *testing.B) {
	tree, err := Walk(syntheticTree(), nil)
	if err != nil {
		b.Fatal(err)
	}
	cmd := tree.Find("group4", "leaf7")
	args := map[string]any{"label": "x", "force": true, "count": 3.0, "timeout": "90s", "items": []any{"a", "b"}, "name": "n", "args": []any{"p1", "--p2"}}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := projector.RenderArgv(projector.DialectPflag, cmd, args); err != nil {
			b.Fatal(err)
		}
	}
}

func TestSyntheticTreeSize(t *testing.T) {
	tree, err := Walk(syntheticTree(), nil)
	if err != nil {
		t.Fatal(err)
	}
	flags := 10
	for _, c := range tree.Commands {
		for _, p := range c.Params {
			if !p.Positional() && len(c.Path) == 2 && p.Name != "global_0" && p.Action != "" && p.Help != "a global flag" {
				flags++
			}
		}
	}
	if len(tree.Commands) != 100 || flags != 1000 {
		t.Fatalf("%d commands, %d flags; the benchmark promises 100 and 1,000", len(tree.Commands), flags)
	}
}

// BenchmarkWalk is the walk alone, for splitting BenchmarkProject's figure.
func BenchmarkWalk(b *testing.B) {
	root := syntheticTree()
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Walk(root, nil); err != nil {
			b.Fatal(err)
		}
	}
}
