package fromargparse

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/verbsurface/verbsurface/projector"
)

// TestWalkPatterns pins how each pattern of issue 17 is modelled: path types
// as path strings that refuse "-", store_const/append_const as flags that
// record their const, count as a bounded integer, nargs='?' options as bare
// options, and consecutive optional positionals as a run the projector
// chains with dependentRequired.
func TestWalkPatterns(t *testing.T) {
	tree := trees(t)["vsfixture:build"]
	type shape struct {
		Kind      projector.Kind
		Arity     projector.Arity
		Path      projector.PathUse
		Bare      bool
		Const     any
		Default   any
		Max       *float64
		Forbidden []any
	}
	max := float64(projector.MaxCount)
	tests := []struct {
		cmd, param string
		want       shape
	}{
		{"file-type", "infile", shape{Kind: "string", Arity: "one", Path: "read", Forbidden: []any{"-", "", "--"}}},
		{"paths", "infile", shape{Kind: "string", Arity: "optional", Path: "read", Forbidden: []any{"-", "", "--"}}},
		{"paths", "outfile", shape{Kind: "string", Arity: "optional", Path: "write", Forbidden: []any{"-", "", "--"}}},
		{"paths", "log", shape{Kind: "string", Arity: "one", Path: "write", Forbidden: []any{"-", "", "--"}}},
		{"paths", "config", shape{Kind: "string", Arity: "one", Path: "read", Forbidden: []any{"-", "", "--"}}},
		{"paths", "output_dir", shape{Kind: "string", Arity: "one", Path: "write", Forbidden: []any{"-", "", "--"}}},
		{"const", "fast", shape{Kind: "boolean", Arity: "none", Const: int64(2), Default: false}},
		{"const", "level", shape{Kind: "boolean", Arity: "none", Const: int64(10), Default: false}},
		{"const", "tags", shape{Kind: "boolean", Arity: "none", Const: "x", Default: false}},
		{"count", "verbose", shape{Kind: "integer", Arity: "count", Max: &max}},
		{"count", "q", shape{Kind: "integer", Arity: "count", Max: &max, Default: int64(0)}},
		{"optional-value", "with_synthesis", shape{Kind: "string", Arity: "optional", Bare: true, Const: "default-model", Forbidden: []any{"--"}}},
		{"optional-value", "jobs", shape{Kind: "integer", Arity: "optional", Bare: true, Const: int64(4), Default: int64(1)}},
		{"optional-value", "level", shape{Kind: "string", Arity: "optional", Bare: true, Const: "low", Forbidden: []any{"--"}}},
		{"optional-value", "maybe", shape{Kind: "string", Arity: "optional", Bare: true, Forbidden: []any{"--"}}},
	}
	for _, tt := range tests {
		t.Run(tt.cmd+"/"+tt.param, func(t *testing.T) {
			cmd := tree.Find(tt.cmd)
			if cmd == nil {
				t.Fatalf("no command %q", tt.cmd)
			}
			p := param(cmd, tt.param)
			if p == nil {
				t.Fatalf("no parameter %q", tt.param)
			}
			got := shape{Kind: p.Kind, Arity: p.Arity, Path: p.Path, Bare: p.Bare, Const: p.Const, Default: p.Default, Max: p.Maximum, Forbidden: p.Forbidden}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("(-want +got)\n%s", diff)
			}
		})
	}
	if p := param(tree.Find("remainder-after"), "rest"); p.Arity != projector.ArityZeroOrMore || p.Forbidden != nil {
		t.Errorf("remainder after a positional: %+v", p)
	}
	if p := param(tree.Find("star-default"), "files"); p.MinItems != 1 {
		t.Errorf("'*' positional with a default: min items %d, want 1 ([] has no spelling)", p.MinItems)
	}
	for _, path := range []string{"file-type", "paths", "const", "count", "optional-value", "two-optional", "optional-run", "remainder-after", "star-default"} {
		if _, err := projector.Project(tree.Find(path)); err != nil {
			t.Errorf("%s: %v", path, err)
		}
	}
	s, err := projector.Project(tree.Find("optional-run"))
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(map[string][]string{"month": {"year"}, "more": {"year", "month"}}, s.DependentRequired); diff != "" {
		t.Errorf("dependentRequired (-want +got)\n%s", diff)
	}
	// RenderArgv refuses a later optional positional without the earlier
	// one before rendering anything, and says why.
	_, err = projector.RenderArgv(projector.DialectArgparse, tree.Find("two-optional"), map[string]any{"b": "x"})
	if err == nil || !strings.Contains(err.Error(), `only together with "a"`) {
		t.Errorf("b without a: %v", err)
	}
	// "-" is refused for a path: there is no standard stream to hand over.
	_, err = projector.RenderArgv(projector.DialectArgparse, tree.Find("paths"), map[string]any{"config": "-"})
	if err == nil || !strings.Contains(err.Error(), "not allowed") {
		t.Errorf("config '-': %v", err)
	}
	argv, err := projector.RenderArgv(projector.DialectArgparse, tree.Find("count"), map[string]any{"verbose": 3.0, "q": 0.0})
	if err != nil || strings.Join(argv, " ") != "--verbose --verbose --verbose" {
		t.Errorf("count argv %q, %v", argv, err)
	}
	argv, err = projector.RenderArgv(projector.DialectArgparse, tree.Find("optional-value"), map[string]any{"with_synthesis": true, "jobs": 8.0, "rest": []any{}})
	if err != nil || strings.Join(argv, " ") != "--with-synthesis --jobs=8" {
		t.Errorf("bare argv %q, %v", argv, err)
	}
}

// TestWalkSharedDest: flags storing constants into one dest become one
// boolean each, named after the option, mutually exclusive with each other
// and with the dest's value option; a custom type callable is a string the
// callable validates.
func TestWalkSharedDest(t *testing.T) {
	tree := trees(t)["vsfixture:build"]
	clash := tree.Find("clash")
	if _, err := projector.Project(clash); err != nil {
		t.Fatal(err)
	}
	on, off := param(clash, "on"), param(clash, "off")
	if on == nil || off == nil || on.Dest != "state" || off.Dest != "state" || on.Const != true || off.Const != false || !off.FlagValue {
		t.Fatalf("on %+v off %+v", on, off)
	}
	if diff := cmp.Diff([]projector.Group{{Params: []string{"on", "off"}}}, clash.Groups); diff != "" {
		t.Errorf("groups (-want +got)\n%s", diff)
	}
	jt := trees(t)["json.tool:main"].Commands[0]
	tab, none := param(jt, "tab"), param(jt, "no_indent")
	if tab == nil || none == nil || tab.Const != "\t" || none.Const != nil || tab.Dest != "indent" || param(jt, "indent").Dest != "" {
		t.Fatalf("json.tool indent flags: tab %+v no_indent %+v", tab, none)
	}
	ct := param(tree.Find("custom-type"), "budget")
	if ct.Unrepresentable != nil || ct.Kind != projector.KindString || ct.Type != "vsfixture.parse_budget" {
		t.Errorf("custom type %+v", ct)
	}
}
