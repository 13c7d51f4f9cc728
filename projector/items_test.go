package projector

import (
	"strings"
	"testing"
)

// TestMaxItemsUniqueItems: an array parameter's MaxItems and UniqueItems
// are projected as maxItems and uniqueItems, and RenderArgv enforces them
// again, so no path renders what the schema refuses.
func TestMaxItemsUniqueItems(t *testing.T) {
	cmd := &Command{Path: []string{"wait"}, Runnable: true, Params: []*Param{
		{Name: "ids", Kind: KindString, Arity: ArityOneOrMore, Required: true, MaxItems: 3, UniqueItems: true},
	}}
	s, err := Project(cmd)
	if err != nil {
		t.Fatal(err)
	}
	ids := s.Properties["ids"]
	if ids.MaxItems == nil || *ids.MaxItems != 3 || !ids.UniqueItems || ids.MinItems == nil || *ids.MinItems != 1 {
		t.Fatalf("ids schema = %+v; want minItems 1, maxItems 3, uniqueItems", ids)
	}
	tests := []struct {
		name string
		ids  []any
		err  string // "" renders
	}{
		{"within the bounds renders", []any{"a", "b", "c"}, ""},
		{"one over maxItems is refused", []any{"a", "b", "c", "d"}, "more than the maximum 3"},
		{"a repeated value is refused, naming both places", []any{"a", "b", "a"}, "items 0 and 2 are equal"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := RenderArgv(DialectPflag, cmd, map[string]any{"ids": tt.ids})
			if tt.err == "" && err != nil || tt.err != "" && (err == nil || !strings.Contains(err.Error(), tt.err)) {
				t.Fatalf("RenderArgv = %v; want %q", err, tt.err)
			}
		})
	}
	for _, bad := range []*Param{
		{Name: "one", Kind: KindString, Arity: ArityOne, Options: []string{"--one"}, MaxItems: 2},
		{Name: "two", Kind: KindString, Arity: ArityExactly, N: 3, Required: true, MaxItems: 2},
	} {
		if _, err := Project(&Command{Path: []string{"x"}, Runnable: true, Params: []*Param{bad}}); err == nil {
			t.Errorf("Project accepted %s with max_items %d", bad.Arity, bad.MaxItems)
		}
	}
}
