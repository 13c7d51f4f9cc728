package fromargparse

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/verbsurface/verbsurface/projector"
)

// TestInventoryStdlib: the inventory of each stdlib program names exactly
// what blocks it (every blocker, not just the first).
func TestInventoryStdlib(t *testing.T) {
	type reason = projector.UnavailableReason
	tests := []struct {
		target  string
		clean   int
		reasons []*reason // of the root command, when unavailable
	}{
		{"zipfile:main", 1, nil},
		{"tarfile:main", 1, nil},
		{"py_compile:main", 1, nil},
		{"http.server:__main__", 1, nil},
		// Issue 17's patterns: path types, two optional positionals,
		// store_const flags sharing a dest, a custom type callable.
		{"json.tool:main", 1, nil},
		{"calendar:__main__", 1, nil},
		{"ast:main", 1, nil},
		{"unittest:__main__", 1, nil},
	}
	all := trees(t)
	for _, tt := range tests {
		t.Run(tt.target, func(t *testing.T) {
			r := projector.Inventory(all[tt.target], nil)
			if r.Commands != 1 || r.Runnable != 1 || r.Offerable != 1 || r.Clean != tt.clean || r.CleanShare != float64(tt.clean) {
				t.Errorf("counts %+v", r)
			}
			var got []*reason
			if len(r.Unavailable) == 1 {
				got = r.Unavailable[0].Reasons
			}
			if diff := cmp.Diff(tt.reasons, got); diff != "" {
				t.Errorf("reasons (-want +got)\n%s", diff)
			}
			if r.Params.Total == 0 || len(r.Params.ByAction) == 0 {
				t.Errorf("no parameters counted: %+v", r.Params)
			}
		})
	}
}

// TestInventoryOdd: a fixture with unknown action classes and non-scalar
// type callables; each is named in the report.
func TestInventoryOdd(t *testing.T) {
	r := projector.Inventory(trees(t)["vsfixture:odd"], nil)
	if r.Commands != 4 || r.Groups != 1 || r.Offerable != 3 || r.Clean != 1 || !cmp.Equal(r.CleanCommands, [][]string{{"clean"}}) {
		t.Errorf("counts %+v", r)
	}
	want := []projector.UnrepresentableParam{
		{Path: []string{"actions"}, Param: "shout", Action: "vsfixture.Upper", Reason: "unknown Action subclass vsfixture.Upper: what it does with its values is not known"},
		{Path: []string{"actions"}, Param: "x", Action: "vsfixture.MyStore", Reason: "unknown Action subclass vsfixture.MyStore: what it does with its values is not known"},
		{Path: []string{"types"}, Param: "flag", Action: "store", Type: "bool", Reason: `type=bool reads every non-empty word as True; use action="store_true" or BooleanOptionalAction`},
	}
	if diff := cmp.Diff(want, r.Params.Unrepresentable); diff != "" {
		t.Errorf("unrepresentable (-want +got)\n%s", diff)
	}
	if r.Params.ByAction["vsfixture.Upper"] != 1 || r.Params.ByAction["store"] != 6 || r.Params.BySourceType["int"] != 1 {
		t.Errorf("by action %v, by source type %v", r.Params.ByAction, r.Params.BySourceType)
	}
	if len(r.Unavailable) != 2 || len(r.Unavailable[1].Reasons) != 1 {
		t.Errorf("unavailable %+v", r.Unavailable)
	}
}
