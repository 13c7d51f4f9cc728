package fromargparse

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/verbsurface/verbsurface/projector"
)

// ExcludeFlags takes a flag away from the caller everywhere (by option
// string or by name) and records it as excluded; a required flag excluded
// makes its command unrepresentable rather than unrunnable.
func TestExcludeFlags(t *testing.T) {
	opts := testOptions(t)
	opts.ExcludeFlags = []string{"--name", "token", "--verbose"}
	tr, err := Walk(context.Background(), "vsfixture:build", opts)
	if err != nil {
		t.Fatal(err)
	}
	types := tr.Find("types")
	for _, p := range types.Params {
		if p.Name == "name" || p.Name == "token" {
			t.Errorf("excluded parameter %q still offered", p.Name)
		}
	}
	if !slices.Contains(types.Excluded, "--name") || !slices.Contains(types.Excluded, "--token") {
		t.Errorf("Excluded = %q", types.Excluded)
	}
	if types.Unrepresentable == nil {
		t.Error("a command requiring an excluded flag is still offered")
	}
	if root := tr.Find(); !slices.Contains(root.Excluded, "--verbose") {
		t.Errorf("root Excluded = %q", root.Excluded)
	}
	plain, err := Walk(context.Background(), "vsfixture:build", testOptions(t))
	if err != nil {
		t.Fatal(err)
	}
	if len(plain.Find("types").Excluded) != 0 || plain.Find("types").Unrepresentable != nil {
		t.Error("the walk without ExcludeFlags excluded something")
	}
}

// TestExcludeSettlesConflicts: excluding one of two options that store to
// one dest, or the later of two variable positionals, makes the command
// offerable; excluding the earlier positional does not (the CLI would
// still give it the other's words), and a reason exclusion cannot settle
// is never hidden behind one it can.
func TestExcludeSettlesConflicts(t *testing.T) {
	walk := func(exclude ...string) *projector.Tree {
		opts := testOptions(t)
		opts.ExcludeFlags = exclude
		tr, err := Walk(context.Background(), "vsconflict:build", opts)
		if err != nil {
			t.Fatal(err)
		}
		return tr
	}
	plain := walk()
	for _, path := range []string{"dest", "pos", "mixed"} {
		if _, err := projector.Project(plain.Find(path)); err == nil {
			t.Fatalf("%s projects without any exclusion: the fixture proves nothing", path)
		}
	}
	tests := []struct {
		name, path string
		exclude    []string
		offered    bool
		reason     string
	}{
		{"one of two options sharing a dest", "dest", []string{"--verbosity"}, true, ""},
		{"the other one", "dest", []string{"--level"}, true, ""},
		{"the later of two variable positionals", "pos", []string{"extra"}, true, ""},
		{"the earlier of two variable positionals", "pos", []string{"srcs"}, false, "comes before positional extra"},
		{"a shared dest settled, a hidden positional left", "mixed", []string{"--b"}, false, "hidden positional"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cmd := walk(tt.exclude...).Find(tt.path)
			schema, err := projector.Project(cmd)
			if tt.offered {
				if err != nil {
					t.Fatalf("still unavailable: %v", err)
				}
				if len(schema.Properties) != 1 {
					t.Errorf("schema properties %v", schema.PropertyOrder)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tt.reason) {
				t.Fatalf("Project: %v; want unavailable for %q", err, tt.reason)
			}
		})
	}
	// The kept option's own default is not the parser's (argparse keeps
	// the first action's default, 3 here only when --verbosity came
	// first): a schema without one does not lie.
	if p := walk("--level").Find("dest").Params[0]; p.Default != nil || !slices.Equal(p.Options, []string{"--verbosity"}) {
		t.Errorf("kept parameter %+v", p)
	}
}
