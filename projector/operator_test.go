package projector

import (
	"strings"
	"testing"
)

func methodFixture() *Command {
	return &Command{Path: []string{"req"}, Runnable: true, Params: []*Param{
		{Name: "verbose", Options: []string{"-v", "--verbose"}, Kind: KindBoolean, Arity: ArityNone, FlagValue: true},
		{Name: "json", Options: []string{"--json"}, Kind: KindBoolean, Arity: ArityNone, FlagValue: true},
		{Name: "text", Options: []string{"--text"}, Kind: KindBoolean, Arity: ArityNone, FlagValue: true},
		{Name: "method", Kind: KindString, Arity: ArityOptional, Choices: []any{"GET", "POST"}},
		{Name: "path", Kind: KindString, Arity: ArityOptional},
		{Name: "items", Kind: KindString, Arity: ArityZeroOrMore},
	}, Groups: []Group{{Params: []string{"json", "text"}, Required: true}}}
}

// TestFixParams is one row per rule of FixParams's doc comment, and what
// a fixed value does to the schema and to the argv.
func TestFixParams(t *testing.T) {
	for _, c := range []struct {
		name   string
		values map[string]any
		want   string
	}{
		{"an unknown name", map[string]any{"verb": "GET"}, `fixed value for "verb": the command has no such parameter`},
		{"two names of one parameter", map[string]any{"-v": true, "verbose": true}, "both name parameter verbose"},
		{"a value the parameter does not admit", map[string]any{"method": "PUT"}, "not one of the choices"},
		{"null", map[string]any{"method": nil}, "null is not a value"},
		{"a later optional positional without the earlier one", map[string]any{"path": "/"}, "fix method too"},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := FixParams(methodFixture(), c.values)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("got %v, want an error containing %q", err, c.want)
			}
		})
	}
	f, err := FixParams(methodFixture(), map[string]any{"method": "POST", "--json": true})
	if err != nil {
		t.Fatal(err)
	}
	s, err := Project(f.Offered)
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(s.PropertyOrder, " "); got != "verbose path items" {
		t.Errorf("offered %q: the fixed method, the fixed --json and --text (exclusive with it) must leave", got)
	}
	if len(s.AllOf) != 0 {
		t.Errorf("the required group --json satisfies is still required: %v", s.AllOf)
	}
	argv, err := f.RenderArgv(DialectArgparse, map[string]any{"items": []any{"a"}, "path": "/x"})
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(argv, " "); got != "--json -- POST /x a" {
		t.Errorf("argv %q", got)
	}
	if _, err := f.RenderArgv(DialectArgparse, map[string]any{"method": "GET"}); err == nil || !strings.Contains(err.Error(), "fixed") {
		t.Errorf("a caller giving a fixed parameter: %v", err)
	}
}

// TestStatePositionals: the stated positionals replace the reader's, lift
// an unavailability that lies only in them, and are refused when argv
// could not delimit them.
func TestStatePositionals(t *testing.T) {
	cmd := &Command{Path: []string{"run"}, Runnable: true,
		Unrepresentable: &Unrepresentable{ByPositionals: true, Reason: "positionals cannot be determined"},
		Params: []*Param{{Name: "force", Options: []string{"--force"}, Kind: KindBoolean, Arity: ArityNone, FlagValue: true},
			{Name: "arg", Kind: KindString, Arity: ArityOne, Required: true}}}
	got, err := StatePositionals(cmd, []*Param{{Name: "image", Arity: ArityOne}, {Name: "command", Arity: ArityZeroOrMore}})
	if err != nil {
		t.Fatal(err)
	}
	s, err := Project(got)
	if err != nil {
		t.Fatal(err)
	}
	if o := strings.Join(s.PropertyOrder, " "); o != "force image command" || strings.Join(s.Required, " ") != "image" {
		t.Errorf("properties %q, required %q", o, s.Required)
	}
	if cmd.Unrepresentable == nil || len(cmd.Params) != 2 {
		t.Error("StatePositionals modified its input")
	}
	other := *cmd
	other.Unrepresentable = &Unrepresentable{Reason: "flag parsing is disabled"}
	if got, err := StatePositionals(&other, nil); err != nil || got.Unrepresentable == nil {
		t.Errorf("a reason not in the positionals was lifted: %v %v", got, err)
	}
	for _, c := range []struct {
		name   string
		stated []*Param
		want   string
	}{
		{"no name", []*Param{{Arity: ArityOne}}, "has no name"},
		{"option strings", []*Param{{Name: "x", Options: []string{"-x"}, Arity: ArityOne}}, "a positional has none"},
		{"an option's name", []*Param{{Name: "force", Arity: ArityOne}}, "already the name of a parameter"},
		{"an arity positionals do not take", []*Param{{Name: "x", Arity: ArityRepeated}}, "a positional takes one, optional"},
		{"two lists", []*Param{{Name: "a", Arity: ArityZeroOrMore}, {Name: "b", Arity: ArityOneOrMore}}, "both take a variable number of values"},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := StatePositionals(cmd, c.stated)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("got %v, want an error containing %q", err, c.want)
			}
		})
	}
}
