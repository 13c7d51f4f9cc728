package fromcobra

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/spf13/cobra"

	"github.com/verbsurface/verbsurface/projector"
)

// choiceValue is a pflag.Value of a given type name that enforces a fixed
// set of values, as a CLI's injected playbook flag does.
type choiceValue struct {
	typ     string
	choices []string
	v       string
}

func (c *choiceValue) String() string { return c.v }
func (c *choiceValue) Type() string   { return c.typ }
func (c *choiceValue) Set(s string) error {
	if !slices.Contains(c.choices, s) {
		return fmt.Errorf("%q is not one of %s", s, strings.Join(c.choices, ", "))
	}
	c.v = s
	return nil
}
func (c *choiceValue) Choices() []string { return c.choices }

func choiceTree(typ, def string, choices ...string) *cobra.Command {
	root := &cobra.Command{Use: "app"}
	run := &cobra.Command{Use: "run", Args: cobra.NoArgs, Run: func(*cobra.Command, []string) {}}
	run.Flags().Var(&choiceValue{typ: typ, choices: choices, v: def}, "level", "a level")
	root.AddCommand(run)
	return root
}

// TestChooserChoicesBecomeEnum: a Value that enforces a fixed set of values
// and says so through Chooser gets that set as the parameter's enum, typed
// by the flag's kind; validation of the projected schema then rejects what
// the CLI's Set would reject.
func TestChooserChoicesBecomeEnum(t *testing.T) {
	for _, tc := range []struct {
		name, typ, def string
		choices        []string
		want           []any
	}{
		{"string choices stay strings", "string", "low", []string{"low", "high"}, []any{"low", "high"}},
		{"int64 choices become integers", "int64", "1", []string{"1", "2", "3"}, []any{int64(1), int64(2), int64(3)}},
		{"float64 choices become numbers", "float64", "0.5", []string{"0.5", "1.5"}, []any{0.5, 1.5}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tree, err := Walk(choiceTree(tc.typ, tc.def, tc.choices...), nil)
			if err != nil {
				t.Fatal(err)
			}
			p := param(t, mustFind(t, tree, "run"), "level")
			if p == nil || p.Unrepresentable != nil {
				t.Fatalf("level = %+v, want a representable parameter", p)
			}
			if diff := cmp.Diff(tc.want, p.Choices); diff != "" {
				t.Fatalf("choices (-want +got):\n%s", diff)
			}
			schema, err := projector.Project(mustFind(t, tree, "run"))
			if err != nil {
				t.Fatal(err)
			}
			if got := len(schema.Properties["level"].Enum); got != len(tc.want) {
				t.Fatalf("schema enum has %d values, want %d", got, len(tc.want))
			}
		})
	}
}

// TestChooserChoiceOfWrongKindIsUnavailable: an integer flag offering a
// choice that is not an integer cannot be described truthfully.
func TestChooserChoiceOfWrongKindIsUnavailable(t *testing.T) {
	tree, err := Walk(choiceTree("int64", "1", "1", "two"), nil)
	if err != nil {
		t.Fatal(err)
	}
	p := param(t, mustFind(t, tree, "run"), "level")
	if p.Unrepresentable == nil || !strings.Contains(p.Unrepresentable.Reason, strconv.Quote("two")) {
		t.Fatalf("level.Unrepresentable = %+v, want a reason naming the choice \"two\"", p.Unrepresentable)
	}
}
