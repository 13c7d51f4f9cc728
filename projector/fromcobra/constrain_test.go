package fromcobra

import (
	"fmt"
	"strings"
	"testing"

	"github.com/spf13/cobra"
	"github.com/verbsurface/verbsurface/projector"
)

func constrainRoot(k func(agent, wait *cobra.Command)) *cobra.Command {
	root := &cobra.Command{Use: "cli"}
	agent := &cobra.Command{Use: "agent MODEL [PROMPT]", Args: cobra.RangeArgs(1, 2), RunE: func(*cobra.Command, []string) error { return nil }}
	agent.Flags().String("label", "", "a label")
	agent.Flags().Int("count", 1, "how many")
	agent.Flags().Duration("timeout", 0, "deadline")
	wait := &cobra.Command{Use: "wait IDS...", Args: cobra.MinimumNArgs(1), RunE: func(*cobra.Command, []string) error { return nil }}
	root.AddCommand(agent, wait)
	k(agent, wait)
	return root
}

// TestConstrain: each constraint reaches the projected schema, on a
// positional and on a flag; one the walk cannot apply makes the command
// unavailable, naming the annotation.
func TestConstrain(t *testing.T) {
	root := constrainRoot(func(agent, wait *cobra.Command) {
		Constrain(agent, "model", Constraint{Pattern: `^[a-z]+(:[a-z0-9]+)?$`})
		Constrain(agent, "label", Constraint{Pattern: `^[a-z]*$`})
		Constrain(wait, "ids", Constraint{MaxItems: 256, UniqueItems: true})
	})
	tree, err := Walk(root, nil)
	if err != nil {
		t.Fatal(err)
	}
	agent, err := projector.Project(mustFind(t, tree, "agent"))
	if err != nil {
		t.Fatal(err)
	}
	if got := agent.Properties["model"].Pattern; got != `^[a-z]+(:[a-z0-9]+)?$` {
		t.Errorf("model pattern = %q", got)
	}
	if got := agent.Properties["label"].Pattern; got != `^[a-z]*$` {
		t.Errorf("label pattern = %q", got)
	}
	wait, err := projector.Project(mustFind(t, tree, "wait"))
	if err != nil {
		t.Fatal(err)
	}
	ids := wait.Properties["ids"]
	if ids.MaxItems == nil || *ids.MaxItems != 256 || !ids.UniqueItems {
		t.Errorf("ids = %+v; want maxItems 256 and uniqueItems", ids)
	}

	for _, tt := range []struct {
		name   string
		apply  func(agent, wait *cobra.Command)
		reason string
	}{
		{"an unknown parameter", func(a, _ *cobra.Command) { Constrain(a, "modle", Constraint{Pattern: "^a$"}) }, `no parameter "modle"`},
		{"a pattern on an integer", func(a, _ *cobra.Command) { Constrain(a, "count", Constraint{Pattern: "^1$"}) }, "of kind integer"},
		{"a pattern over the type's own", func(a, _ *cobra.Command) { Constrain(a, "timeout", Constraint{Pattern: "^1s$"}) }, "already has the pattern"},
		{"a pattern that does not compile", func(a, _ *cobra.Command) { Constrain(a, "model", Constraint{Pattern: "^(a$"}) }, "missing closing )"},
		{"max_items on a scalar", func(a, _ *cobra.Command) { Constrain(a, "model", Constraint{MaxItems: 3}) }, "needs an array parameter"},
		{"an unknown annotation", func(a, _ *cobra.Command) { a.Annotations = map[string]string{"verbsurface.min_items:model": "1"} }, "unknown verbsurface annotation"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			tree, err := Walk(constrainRoot(tt.apply), nil)
			if err != nil {
				t.Fatal(err)
			}
			c := mustFind(t, tree, "agent")
			if c.Unrepresentable == nil || !strings.Contains(c.Unrepresentable.Reason, tt.reason) || !strings.Contains(c.Unrepresentable.Reason, "annotation verbsurface.") {
				t.Fatalf("Unrepresentable = %+v; want a reason naming the annotation and %q", c.Unrepresentable, tt.reason)
			}
		})
	}
}

// A constraint the CLI's parser does not enforce, stated in the schema:
// the surface refuses what the parser would take.
func ExampleConstrain() {
	wait := &cobra.Command{Use: "wait IDS...", Args: cobra.MinimumNArgs(1), RunE: func(*cobra.Command, []string) error { return nil }}
	Constrain(wait, "ids", Constraint{MaxItems: 256, UniqueItems: true})
	tree, _ := Walk(wait, nil)
	s, _ := projector.Project(tree.Commands[0])
	ids := s.Properties["ids"]
	fmt.Println(*ids.MinItems, *ids.MaxItems, ids.UniqueItems)
	// Output:
	// 1 256 true
}

// TestConstrainDescription: a description annotation replaces a
// positional's Use-line word and a flag's usage line in the schema; a
// positional without one says where it stands in the usage; an empty one
// makes the command unavailable.
func TestConstrainDescription(t *testing.T) {
	root := constrainRoot(func(agent, wait *cobra.Command) {
		Constrain(agent, "model", Constraint{Description: "the model to run, e.g. echo"})
		Constrain(agent, "label", Constraint{Description: "a label for the record"})
	})
	tree, err := Walk(root, nil)
	if err != nil {
		t.Fatal(err)
	}
	agent, err := projector.Project(mustFind(t, tree, "agent"))
	if err != nil {
		t.Fatal(err)
	}
	for name, want := range map[string]string{
		"model":  "the model to run, e.g. echo",
		"label":  "a label for the record",
		"prompt": "the optional positional argument PROMPT of `cli agent MODEL [PROMPT] [flags]`",
	} {
		if got := agent.Properties[name].Description; got != want {
			t.Errorf("%s description = %q, want %q", name, got, want)
		}
	}
	root = constrainRoot(func(agent, wait *cobra.Command) {
		Constrain(agent, "model", Constraint{Description: " "})
	})
	tree, err = Walk(root, nil)
	if err != nil {
		t.Fatal(err)
	}
	if u := mustFind(t, tree, "agent").Unrepresentable; u == nil || !strings.Contains(u.Reason, "empty description") {
		t.Errorf("an empty description: %+v", u)
	}
}
