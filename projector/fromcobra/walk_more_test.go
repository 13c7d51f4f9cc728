package fromcobra

import (
	"errors"
	"io"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/spf13/cobra"

	"github.com/verbsurface/verbsurface/projector"
	"github.com/verbsurface/verbsurface/projector/fromcobra/internal/fixture"
)

// TestWalkRecordsExcluded: an excluded flag is no parameter, but every
// command that has it lists it in Excluded, so the surface can tell "the
// machine-mode flag is there and the embedder sets it" from "this command
// has no machine-mode flag". The help flag is left out without being listed.
func TestWalkRecordsExcluded(t *testing.T) {
	root := fixture.New(nil)
	root.InitDefaultHelpFlag()
	tree, err := Walk(root, &Options{ExcludeFlags: []string{"json", "profile"}})
	if err != nil {
		t.Fatal(err)
	}
	for _, path := range [][]string{{}, {"types"}, {"schedule", "list"}} {
		c := mustFind(t, tree, path...)
		if diff := cmp.Diff([]string{"--json", "--profile"}, c.Excluded); diff != "" {
			t.Errorf("%q: Excluded (-want +got)\n%s", path, diff)
		}
		for _, p := range c.Params {
			if p.Name == "json" || p.Name == "profile" || p.Name == "help" {
				t.Errorf("%q: excluded flag %q is a parameter", path, p.Name)
			}
		}
	}
	plain, err := Walk(fixture.New(nil), nil)
	if err != nil {
		t.Fatal(err)
	}
	if ex := mustFind(t, plain, "types").Excluded; ex != nil {
		t.Errorf("nothing excluded, yet Excluded = %q", ex)
	}
}

// TestWalkCommandFacts: the summary is Short, else the first line of Long;
// hidden and deprecated commands are walked and marked Hidden.
func TestWalkCommandFacts(t *testing.T) {
	run := func(*cobra.Command, []string) {}
	root := &cobra.Command{Use: "app"}
	root.AddCommand(
		&cobra.Command{Use: "short", Short: "the short line", Long: "a long text", Run: run},
		&cobra.Command{Use: "long", Long: "\n  First line of the long text.\nSecond line.", Run: run},
		&cobra.Command{Use: "hidden", Short: "h", Hidden: true, Run: run},
		&cobra.Command{Use: "old", Short: "o", Deprecated: "use new", Run: run},
	)
	tree, err := Walk(root, nil)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		path    string
		summary string
		hidden  bool
	}{
		{"short", "the short line", false},
		{"long", "First line of the long text.", false},
		{"hidden", "h", true},
		{"old", "o", true},
	}
	for _, tt := range tests {
		c := mustFind(t, tree, tt.path)
		if c.Summary != tt.summary || c.Hidden != tt.hidden {
			t.Errorf("%s: summary %q hidden %v, want %q %v", tt.path, c.Summary, c.Hidden, tt.summary, tt.hidden)
		}
	}
}

// boolValue is a custom pflag.Value claiming type "bool" without
// IsBoolFlag, so pflag gives it no no-value default: a bare --flag is an
// error and every value needs "=".
type boolValue struct{ v bool }

func (b *boolValue) String() string {
	if b.v {
		return "true"
	}
	return "false"
}
func (b *boolValue) Set(s string) error {
	switch s {
	case "true":
		b.v = true
	case "false":
		b.v = false
	default:
		return errors.New("true or false")
	}
	return nil
}
func (b *boolValue) Type() string { return "bool" }

// TestWalkBoolSpellings: a bool flag is rendered so that cobra parses back
// the given value, whatever its no-value default: "true" (the usual bool),
// "false" (a flag whose bare form switches something off), or none (a
// custom bool Value that always needs "=").
func TestWalkBoolSpellings(t *testing.T) {
	build := func(got map[string]bool) *cobra.Command {
		root := &cobra.Command{Use: "app", SilenceErrors: true, SilenceUsage: true}
		var std, inverted bool
		custom := &boolValue{}
		run := &cobra.Command{Use: "run", Args: cobra.NoArgs, RunE: func(*cobra.Command, []string) error {
			got["std"], got["inverted"], got["custom"] = std, inverted, custom.v
			return nil
		}}
		run.Flags().BoolVar(&std, "std", false, "an ordinary bool")
		run.Flags().BoolVar(&inverted, "inverted", true, "a bool whose bare form stores false")
		run.Flags().Lookup("inverted").NoOptDefVal = "false"
		run.Flags().Var(custom, "custom", "a bool Value without a no-value default")
		root.AddCommand(run)
		root.SetOut(io.Discard)
		root.SetErr(io.Discard)
		return root
	}
	tree, err := Walk(build(map[string]bool{}), nil)
	if err != nil {
		t.Fatal(err)
	}
	cmd := mustFind(t, tree, "run")
	if p := param(t, cmd, "custom"); p.Arity != projector.ArityOne || p.Kind != projector.KindBoolean {
		t.Errorf("custom bool without no-value default: arity %s kind %s, want one boolean", p.Arity, p.Kind)
	}
	if p := param(t, cmd, "inverted"); p.Arity != projector.ArityNone || p.FlagValue {
		t.Errorf("inverted: arity %s flag value %v, want none false", p.Arity, p.FlagValue)
	}
	tests := []struct {
		args map[string]any
		argv string
	}{
		{map[string]any{"std": true, "inverted": false, "custom": true}, "--custom=true --inverted --std"},
		{map[string]any{"std": false, "inverted": true, "custom": false}, "--custom=false --inverted=true --std=false"},
	}
	for _, tt := range tests {
		argv, err := projector.RenderArgv(tree.Dialect, cmd, tt.args)
		if err != nil {
			t.Fatal(err)
		}
		if got := strings.Join(argv, " "); got != tt.argv {
			t.Errorf("%v rendered %q, want %q", tt.args, got, tt.argv)
		}
		got := map[string]bool{}
		root := build(got)
		root.SetArgs(append([]string{"run"}, argv...))
		if err := root.Execute(); err != nil {
			t.Fatalf("cobra rejected %q: %v", argv, err)
		}
		for name, want := range tt.args {
			if got[name] != want {
				t.Errorf("%q: cobra parsed %s = %v, want %v", argv, name, got[name], want)
			}
		}
	}
}

// TestWalkGroupMembersNotOffered: a hidden, deprecated or excluded flag
// drops out of its groups; a group left with one offered member is no
// constraint; a one-required set none of whose flags can be offered makes
// the command unavailable (no caller could satisfy it).
func TestWalkGroupMembersNotOffered(t *testing.T) {
	run := func(*cobra.Command, []string) {}
	root := &cobra.Command{Use: "app"}

	partly := &cobra.Command{Use: "partly", Args: cobra.NoArgs, Run: run}
	partly.Flags().String("a", "", "")
	partly.Flags().String("b", "", "")
	partly.Flags().String("c", "", "")
	partly.Flags().String("old", "", "")
	_ = partly.Flags().MarkHidden("b")
	_ = partly.Flags().MarkDeprecated("old", "use --a")
	partly.MarkFlagsMutuallyExclusive("a", "b", "c", "old")
	partly.MarkFlagsMutuallyExclusive("a", "b") // one offered member left: no group
	partly.MarkFlagsOneRequired("b", "c")

	none := &cobra.Command{Use: "none", Args: cobra.NoArgs, Run: run}
	none.Flags().String("secret", "", "")
	_ = none.Flags().MarkHidden("secret")
	none.Flags().String("internal", "", "set by the embedder")
	none.MarkFlagsOneRequired("secret", "internal")

	root.AddCommand(partly, none)
	tree, err := Walk(root, &Options{ExcludeFlags: []string{"internal"}})
	if err != nil {
		t.Fatal(err)
	}
	p := mustFind(t, tree, "partly")
	if diff := cmp.Diff([]projector.Group{{Params: []string{"a", "c"}}}, p.Groups); diff != "" {
		t.Errorf("groups (-want +got)\n%s", diff)
	}
	if diff := cmp.Diff([][]string{{"c"}}, p.AnyRequired); diff != "" {
		t.Errorf("any-required (-want +got)\n%s", diff)
	}
	_, err = projector.Project(mustFind(t, tree, "none"))
	var ue *projector.UnavailableError
	if !errors.As(err, &ue) || !strings.Contains(ue.Reason, "one of flags --secret, --internal is required, but none of them can be offered") {
		t.Errorf("Project(none) = %v, want unavailable: no offerable member of a one-required set", err)
	}
}

// TestWalkDuplicatePositionals: two Use-line words with one schema name
// make the command unavailable, and the reason names both as positionals.
func TestWalkDuplicatePositionals(t *testing.T) {
	root := &cobra.Command{Use: "app"}
	root.AddCommand(&cobra.Command{Use: "diff FILE FILE", Args: cobra.ExactArgs(2), Run: func(*cobra.Command, []string) {}})
	tree, err := Walk(root, nil)
	if err != nil {
		t.Fatal(err)
	}
	// Two Use-line words with one name: the second is numbered.
	diff := mustFind(t, tree, "diff")
	if _, err = projector.Project(diff); err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, p := range diff.Params {
		if p.Positional() {
			names = append(names, p.Name)
		}
	}
	if strings.Join(names, " ") != "file file_2" {
		t.Errorf("positionals %q, want file file_2", names)
	}
}
