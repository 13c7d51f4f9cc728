package fromargparse

import (
	"context"
	"slices"
	"testing"
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
