package fromoptparse

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/verbsurface/verbsurface/projector"
	"github.com/verbsurface/verbsurface/projector/internal/goldentree"
)

// TestGoldenFixture pins the projection of every fixture parser (schema
// and fingerprint per command, or why it is unavailable).
func TestGoldenFixture(t *testing.T) {
	for _, c := range []struct {
		target string
		opts   func(*Options)
	}{
		{"optfix:rich", nil},
		{"optfix:shared", nil},
		{"optfix:callback", nil},
		{"optfix:custom_type", nil},
		{"optfix:custom_type", func(o *Options) { o.StringTypes = []string{"path"} }},
		{"optfix:table", nil},
		{"optfix:TABLE", func(o *Options) { o.Command = "optfix:make" }},
		{"optfix:main", nil},
		{"optfix:two_values", nil},
	} {
		name := strings.ReplaceAll(c.target, ":", "_")
		opts := fixtureOptions(t)
		if c.opts != nil {
			c.opts(opts)
			name += "_vouched"
		}
		t.Run(name, func(t *testing.T) {
			tree, err := Walk(context.Background(), c.target, opts)
			if err != nil {
				t.Fatal(err)
			}
			goldentree.Check(t, tree, name)
		})
	}
}

// TestGoldenPip pins Debian's pip (python3-pip 23.0.1), walked as
// examples/fronts/pip.yaml names it: its command table and factory.
//
// As walked, every command is unavailable (its callbacks, pip's own
// package_name type), for the reasons the golden "pip" pins; with those
// excluded, "pip_fronted" pins every command's schema. pip merges its
// configuration files and PIP_* variables into its parsers' defaults, so
// both walk without them (isolatePip).
func TestGoldenPip(t *testing.T) {
	isolatePip(t)
	tree, err := Walk(context.Background(), pipTarget, pipOptions(t))
	if err != nil {
		t.Fatal(err)
	}
	if got := len(tree.Commands); got != 18 {
		t.Errorf("%d commands, want pip 23.0.1's 17 and the root", got)
	}
	goldentree.Check(t, tree, "pip")
	opts := pipOptions(t)
	opts.ExcludeFlags = pipExcluded
	fronted, err := Walk(context.Background(), pipTarget, opts)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range fronted.Commands[1:] {
		if _, err := projector.Project(c); err != nil {
			t.Errorf("with the exclusions: %v", err)
		}
	}
	goldentree.Check(t, fronted, "pip_fronted")
}

// param is cmd's parameter called name, or nil.
func param(cmd *projector.Command, name string) *projector.Param {
	if i := slices.IndexFunc(cmd.Params, func(p *projector.Param) bool { return p.Name == name }); i >= 0 {
		return cmd.Params[i]
	}
	return nil
}

// TestWalkStructure pins what the goldens do not show: the table's
// summaries, the split of a shared dest, the names of unrepresentable
// options, the positional arguments, and the program name.
func TestWalkStructure(t *testing.T) {
	ctx := context.Background()
	tree, err := Walk(ctx, "optfix:TABLE", &Options{Python: python(t), PythonPath: []string{"testdata/py"}, Command: "optfix:make", Program: "tool"})
	if err != nil {
		t.Fatal(err)
	}
	if tree.Program != "tool" || tree.Dialect != projector.DialectOptparse {
		t.Errorf("program %q dialect %q", tree.Program, tree.Dialect)
	}
	root := tree.Find()
	if root == nil || root.Runnable || len(root.Params) != 0 {
		t.Errorf("a table's root is a group without parameters: %+v", root)
	}
	get := tree.Find("get")
	if get == nil || !get.Runnable || get.Summary != "Get a thing." {
		t.Fatalf("get: %+v", get)
	}
	if a := param(get, ArgsParam); a == nil || a.Arity != projector.ArityZeroOrMore || !a.Positional() {
		t.Errorf("args: %+v", a)
	}

	shared, err := Walk(ctx, "optfix:shared", fixtureOptions(t))
	if err != nil {
		t.Fatal(err)
	}
	cmd := shared.Find()
	var names []string
	for _, p := range cmd.Params {
		names = append(names, p.Name)
	}
	if want := []string{"user", "no_user", "cache", "no_cache", ArgsParam}; !slices.Equal(names, want) {
		t.Errorf("names %v, want %v", names, want)
	}
	if want := []projector.Group{{Params: []string{"user", "no_user"}}, {Params: []string{"cache", "no_cache"}}}; !slices.EqualFunc(cmd.Groups, want, func(a, b projector.Group) bool {
		return slices.Equal(a.Params, b.Params) && a.Required == b.Required
	}) {
		t.Errorf("groups %+v, want %+v", cmd.Groups, want)
	}
	if p := param(cmd, "no_user"); p.Dest != "user_site" || !p.FlagValue || p.Const != false {
		t.Errorf("--no-user: %+v", p)
	}

	cb, err := Walk(ctx, "optfix:callback", fixtureOptions(t))
	if err != nil {
		t.Fatal(err)
	}
	if u := param(cb.Find(), "cb").Unrepresentable; u == nil || u.Action != "callback" || u.Type != "optfix._cb" {
		t.Errorf("callback: %+v", u)
	}
	// Excluding the callback makes the command available.
	ex, err := Walk(ctx, "optfix:callback", &Options{Python: python(t), PythonPath: []string{"testdata/py"}, ExcludeFlags: []string{"--cb"}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := projector.Project(ex.Find()); err != nil || !slices.Contains(ex.Find().Excluded, "--cb") {
		t.Errorf("with --cb excluded: %v, excluded %v", err, ex.Find().Excluded)
	}
}

// TestWalkErrors: a target that gives no parser is an *Error with its
// Kind.
func TestWalkErrors(t *testing.T) {
	for _, c := range []struct{ target, kind string }{
		{"optfix:not_a_parser", "not_parser"},
		{"optfix:exits", "factory"},
		{"optfix:nothing_here", "no_factory"},
		{"no_such_module_xyz:f", "import"},
		{"optfix", "bad_target"},
		{"optfix:TABLE", "not_parser"}, // entries are tuples and no factory is named
	} {
		t.Run(c.target, func(t *testing.T) {
			_, err := Walk(context.Background(), c.target, fixtureOptions(t))
			var e *Error
			if !errors.As(err, &e) || e.Kind != c.kind || e.Target != c.target {
				t.Fatalf("got %v, want an *Error of kind %s", err, c.kind)
			}
		})
	}
	_, err := Walk(context.Background(), "optfix:rich", &Options{Python: "no-such-python-3"})
	var e *Error
	if !errors.As(err, &e) || e.Kind != "python_missing" {
		t.Errorf("missing interpreter: %v", err)
	}
}
