package fromargparse

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/verbsurface/verbsurface/projector"
	"github.com/verbsurface/verbsurface/projector/internal/goldentree"
)

// TestGoldenStdlib pins the projection of real argparse programs that ship
// with Python (schema and fingerprint per command, or why it is unavailable).
func TestGoldenStdlib(t *testing.T) {
	all := trees(t)
	for _, target := range stdlibTargets {
		t.Run(target, func(t *testing.T) {
			goldentree.Check(t, all[target], "stdlib_"+strings.NewReplacer(".", "_", ":", "_").Replace(target))
		})
	}
}

// TestGoldenFixture pins the projection of the Python fixture CLI.
func TestGoldenFixture(t *testing.T) {
	all := trees(t)
	for _, target := range fixtureTargets {
		t.Run(target, func(t *testing.T) {
			goldentree.Check(t, all[target], strings.ReplaceAll(target, ":", "_"))
		})
	}
}

func param(cmd *projector.Command, name string) *projector.Param {
	for _, p := range cmd.Params {
		if p.Name == name {
			return p
		}
	}
	return nil
}

func TestWalkStructure(t *testing.T) {
	tree := trees(t)["vsfixture:build"]
	if tree.Program != "vsfixture" || tree.Dialect != projector.DialectArgparse {
		t.Errorf("program %q dialect %q", tree.Program, tree.Dialect)
	}
	root := tree.Find()
	if root == nil || root.Runnable || root.Summary != "A fixture CLI." {
		t.Fatalf("root %+v", root)
	}
	// Aliases are folded into one command, found under each name.
	types := tree.Find("ty")
	if types == nil || strings.Join(types.Path, " ") != "types" || !cmp.Equal(types.Aliases, []string{"t", "ty"}) || types.Summary != "every supported type and arity" {
		t.Fatalf("types %+v", types)
	}
	n := 0
	for _, c := range tree.Commands {
		if len(c.Path) == 1 && c.Path[0] == "types" {
			n++
		}
	}
	if n != 1 {
		t.Errorf("aliases not folded: %d commands for types", n)
	}
	// Nested subparsers are walked through the registered action.
	if deep := tree.Find("nest", "deep"); deep == nil || !deep.Runnable || param(deep, "items") == nil {
		t.Errorf("nest deep %+v", deep)
	}
	if nest := tree.Find("nest"); nest == nil || nest.Runnable {
		t.Errorf("nest is a group: %+v", nest)
	}
	// The root's own option is not a parameter of subcommands; hidden ones are left out.
	if param(types, "verbose") != nil || param(types, "secret") != nil || param(types, "help") != nil {
		t.Errorf("types carries root, hidden or help options")
	}
	// Parser order.
	var names []string
	for _, p := range types.Params {
		names = append(names, p.Name)
	}
	want := "name count ratio mode level port maybe files nums one pair tag word dry_run cache color token k model prompt"
	if got := strings.Join(names, " "); got != want {
		t.Errorf("parameters %s, want %s", got, want)
	}
}

// TestWalkActions: one row per action, type and arity translation.
func TestWalkActions(t *testing.T) {
	all := trees(t)
	types := all["vsfixture:build"].Find("types")
	neg := all["vsfixture:build"].Find("neg")
	type want struct {
		kind     projector.Kind
		arity    projector.Arity
		n        int
		required bool
		def      any
		choices  []any
		min, max any
		pattern  string
		minItems int
		flag     bool
		neg      []string
		action   string
	}
	num := func(f float64) any { return f }
	noDash := `^(?:[^\-@\x00][^\x00]*)?$`
	noAt := `^(?:[^@\x00][^\x00]*)?$`
	tests := []struct {
		rule string
		cmd  *projector.Command
		name string
		want want
	}{
		{"store without type is a string", types, "name", want{kind: "string", arity: "one", action: "store"}},
		{"type=int is an integer; a default is kept", types, "count", want{kind: "integer", arity: "one", def: int64(3), action: "store"}},
		{"type=float is a number", types, "ratio", want{kind: "number", arity: "one", def: 0.5, action: "store"}},
		{"choices are an enum", types, "mode", want{kind: "string", arity: "one", def: "fast", choices: []any{"fast", "slow"}, action: "store"}},
		{"int choices are integers", types, "level", want{kind: "integer", arity: "one", choices: []any{int64(1), int64(2), int64(3)}, action: "store"}},
		{"a large range of choices is a minimum and maximum", types, "port", want{kind: "integer", arity: "one", min: num(1), max: num(65535), action: "store"}},
		{"nargs=? option", types, "maybe", want{kind: "string", arity: "optional", action: "store"}},
		{"nargs=* option: items are separate words, no dash", types, "files", want{kind: "string", arity: "zero_or_more", pattern: noDash, action: "store"}},
		{"nargs=+ floats", types, "nums", want{kind: "number", arity: "one_or_more", action: "store"}},
		{"nargs=1 glues its value with =", types, "one", want{kind: "string", arity: "exactly", n: 1, action: "store"}},
		{"nargs=2", types, "pair", want{kind: "integer", arity: "exactly", n: 2, action: "store"}},
		{"append is repeated; without default it cannot be empty", types, "tag", want{kind: "string", arity: "repeated", minItems: 1, action: "append"}},
		{"extend with nargs=+ is repeated", types, "word", want{kind: "string", arity: "repeated", minItems: 1, action: "extend"}},
		{"store_true", types, "dry_run", want{kind: "boolean", arity: "none", def: false, flag: true, action: "store_true"}},
		{"store_false under its dest", types, "cache", want{kind: "boolean", arity: "none", def: true, flag: false, action: "store_false"}},
		{"BooleanOptionalAction has a negation", types, "color", want{kind: "boolean", arity: "none", flag: true, neg: []string{"--no-color"}, action: "BooleanOptionalAction"}},
		{"required option", types, "token", want{kind: "string", arity: "one", required: true, action: "store"}},
		{"positional", types, "model", want{kind: "string", arity: "one", required: true, pattern: noAt, action: "store"}},
		{"optional positional with default", types, "prompt", want{kind: "string", arity: "optional", def: "hello", pattern: noAt, action: "store"}},
		{"negative-number-like option: numeric items non-negative", neg, "xs", want{kind: "integer", arity: "one_or_more", min: num(0), minItems: 0, action: "store"}},
	}
	for _, tt := range tests {
		t.Run(tt.rule, func(t *testing.T) {
			p := param(tt.cmd, tt.name)
			if p == nil {
				t.Fatalf("no parameter %q", tt.name)
			}
			ptr := func(f *float64) any {
				if f == nil {
					return nil
				}
				return *f
			}
			got := want{kind: p.Kind, arity: p.Arity, n: p.N, required: p.Required, def: p.Default, choices: p.Choices,
				min: ptr(p.Minimum), max: ptr(p.Maximum), pattern: p.Pattern, minItems: p.MinItems, flag: p.FlagValue, neg: p.NegOptions, action: p.Action}
			if diff := cmp.Diff(tt.want, got, cmp.AllowUnexported(want{})); diff != "" {
				t.Errorf("(-want +got)\n%s", diff)
			}
			if p.Kind == projector.KindString && !cmp.Equal(p.Forbidden, []any{"--"}) {
				t.Errorf("string parameter does not forbid \"--\": %v", p.Forbidden)
			}
		})
	}
	// Members of a required exclusive group: a flag may only be set.
	groups := all["vsfixture:build"].Find("groups")
	if p := param(groups, "json"); !cmp.Equal(p.Choices, []any{true}) {
		t.Errorf("required-group flag choices %v", p.Choices)
	}
	if diff := cmp.Diff([]projector.Group{{Params: []string{"json", "yaml", "format"}, Required: true}, {Params: []string{"fast", "careful", "limit"}}}, groups.Groups); diff != "" {
		t.Errorf("groups (-want +got)\n%s", diff)
	}
	if p := param(groups, "limit"); p.Forbidden != nil {
		t.Errorf("a member of a non-required group is narrowed: %v", p.Forbidden)
	}
}

// TestWalkUnavailable: each refused construct makes its command unavailable,
// naming the parameter and the offending action class or type callable.
func TestWalkUnavailable(t *testing.T) {
	tree := trees(t)["vsfixture:build"]
	tests := []struct {
		path               string
		param, action, typ string
		reason             string
	}{
		{"custom-action", "shout", "vsfixture.Upper", "", "unknown Action subclass vsfixture.Upper"},
		{"subclass-action", "x", "vsfixture.MyStore", "", "unknown Action subclass vsfixture.MyStore"},
		{"custom-type-choices", "budget", "store", "", "choices of a type callable (vsfixture.parse_budget) are converted values"},
		{"remainder", "rest", "store", "", "REMAINDER"},
		{"count-default", "v", "count", "", "adds to its default 1"},
		{"optional-then-plus", "", "", "", `positionals "a" (nargs=?) and "b" (nargs=+) both take a variable number`},
		{"clash-values", "", "", "", `option --name and option --id both store to dest "who"`},
		{"append-many", "", "", "", `option --add-a and option --add-b both store to dest "items"`},
		{"shared-too", "", "argparse._SubParsersAction", "", `ambiguous nested subparser: the same parser object is also reachable as "nest shared"`},
		{"nest shared", "", "argparse._SubParsersAction", "", `ambiguous nested subparser: the same parser object is also reachable as "shared-too"`},
	}
	for _, tt := range tests {
		t.Run(tt.path, func(t *testing.T) {
			cmd := tree.Find(strings.Fields(tt.path)...)
			if cmd == nil {
				t.Fatalf("no command %q", tt.path)
			}
			_, err := projector.Project(cmd)
			var ue *projector.UnavailableError
			if !errors.As(err, &ue) {
				t.Fatalf("Project = %v, want unavailable", err)
			}
			if ue.Param != tt.param || ue.Action != tt.action || ue.Type != tt.typ || !strings.Contains(ue.Reason, tt.reason) {
				t.Errorf("got %+v", ue)
			}
		})
	}
}

// TestCaptureMain: a main()-style function that builds its parser and calls
// parse_args is intercepted before it runs anything (its print would break
// the walker's JSON answer; sys.exit would end it).
func TestCaptureMain(t *testing.T) {
	tree := trees(t)["vsfixture:main"]
	root := tree.Find()
	if root == nil || !root.Runnable || param(root, "names") == nil || tree.Program != "vsmain" {
		t.Fatalf("main() parser not captured: %+v", root)
	}
	// The stdlib programs include both forms: zipfile:main (a function) and
	// http.server:__main__ (code under `if __name__ == "__main__":`).
	for _, target := range []string{"zipfile:main", "http.server:__main__"} {
		if trees(t)[target].Find() == nil {
			t.Errorf("%s: no root", target)
		}
	}
}

func TestWalkErrors(t *testing.T) {
	tests := []struct {
		rule, target, kind, message string
	}{
		{"module does not import", "vsbroken:build", "import", "cannot import module vsbroken: ModuleNotFoundError: No module named 'no_such_dependency_for_verbsurface'"},
		{"no such module", "no_such_module_here:main", "import", "cannot import module no_such_module_here"},
		{"no such module to run as __main__", "no_such_module_here:__main__", "import", "cannot import module no_such_module_here: no such module"},
		{"no such factory", "vsfixture:nope", "no_factory", "has no attribute nope"},
		{"factory returns something else", "vsfixture:not_a_parser", "not_parser", "returned int, not an argparse.ArgumentParser"},
		{"factory exits", "vsfixture:exits", "factory", "exited (status 3) before parsing"},
		{"factory raises", "vsfixture:raises", "factory", "raised ValueError: configuration file missing"},
		{"factory needs arguments", "calendar:main", "factory", "missing 1 required positional argument"},
		{"module run as __main__ never parses", "vsnoparse:__main__", "no_parser", "finished without parsing arguments"},
		{"malformed target", "vsfixture", "bad_target", "not MODULE:FUNCTION"},
	}
	// All failing targets in one Python process; each fails on its own.
	targets := make([]string, len(tests))
	for i, tt := range tests {
		targets[i] = tt.target
	}
	_, err := WalkAll(context.Background(), targets, testOptions(t))
	var errs []error
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		errs = j.Unwrap()
	}
	if len(errs) != len(tests) {
		t.Fatalf("%d errors for %d failing targets: %v", len(errs), len(tests), err)
	}
	for i, tt := range tests {
		t.Run(tt.rule, func(t *testing.T) {
			var e *Error
			if !errors.As(errs[i], &e) {
				t.Fatalf("error %v, want *Error", errs[i])
			}
			if e.Kind != tt.kind || e.Target != tt.target || !strings.Contains(e.Error(), tt.message) || !strings.Contains(e.Error(), tt.target) {
				t.Errorf("got kind %q target %q: %v", e.Kind, e.Target, e)
			}
		})
	}
	t.Run("Python missing", func(t *testing.T) {
		_, err := Walk(context.Background(), "json.tool:main", &Options{Python: "/nonexistent/python3"})
		var e *Error
		if !errors.As(err, &e) || e.Kind != "python_missing" || !strings.Contains(e.Error(), `Python interpreter "/nonexistent/python3" not found`) {
			t.Errorf("got %v", err)
		}
	})
	t.Run("Python fails", func(t *testing.T) {
		_, err := Walk(context.Background(), "json.tool:main", &Options{Python: "false"})
		var e *Error
		if !errors.As(err, &e) || e.Kind != "python_failed" {
			t.Errorf("got %v", err)
		}
	})
	t.Run("one failing target fails the batch", func(t *testing.T) {
		trees, err := WalkAll(context.Background(), []string{"json.tool:main", "vsfixture:not_a_parser"}, testOptions(t))
		if err == nil || trees != nil || !strings.Contains(err.Error(), "vsfixture:not_a_parser") || strings.Contains(err.Error(), "json.tool") {
			t.Errorf("batch: %v, %v", trees, err)
		}
	})
}
