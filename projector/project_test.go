package projector

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/verbsurface/verbsurface/projector/internal/c1check"
)

func f64(v float64) *float64 { return &v }

func cmdWith(params ...*Param) *Command {
	return &Command{Path: []string{"t"}, Runnable: true, Params: params}
}

func schemaJSON(t *testing.T, cmd *Command) string {
	t.Helper()
	s, err := Project(cmd)
	if err != nil {
		t.Fatalf("Project: %v", err)
	}
	if err := c1check.Check(s); err != nil {
		t.Fatalf("schema leaves the C1 subset: %v", err)
	}
	b, err := json.Marshal(s)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// One row per translation rule of the package documentation; want is the whole schema.
func TestProjectRules(t *testing.T) {
	const closed = `"additionalProperties":false`
	tests := []struct {
		rule string
		cmd  *Command
		want string
	}{
		{"a command without parameters is a closed empty object",
			&Command{Path: []string{"t"}, Runnable: true, Summary: "does t"},
			`{"type":"object","properties":{},"description":"does t",` + closed + `}`},
		{"a string is NUL-free by pattern",
			cmdWith(&Param{Name: "s", Options: []string{"--s"}, Kind: KindString, Arity: ArityOne, Help: "h"}),
			`{"type":"object","properties":{"s":{"type":"string","description":"h","pattern":"^[^\\x00]*$"}},` + closed + `}`},
		{"an explicit pattern replaces the default one",
			cmdWith(&Param{Name: "d", Options: []string{"--d"}, Kind: KindString, Arity: ArityOne, Pattern: "^[0-9]+s$"}),
			`{"type":"object","properties":{"d":{"type":"string","pattern":"^[0-9]+s$"}},` + closed + `}`},
		{"choices become enum",
			cmdWith(&Param{Name: "c", Options: []string{"--c"}, Kind: KindString, Arity: ArityOne, Choices: []any{"a", "b"}}),
			`{"type":"object","properties":{"c":{"type":"string","enum":["a","b"],"pattern":"^[^\\x00]*$"}},` + closed + `}`},
		{"a flag without value is a boolean, with its default",
			cmdWith(&Param{Name: "f", Options: []string{"--f"}, Kind: KindBoolean, Arity: ArityNone, FlagValue: true, Default: false}),
			`{"type":"object","properties":{"f":{"type":"boolean","default":false}},` + closed + `}`},
		{"an integer is bounded to the JSON-safe range",
			cmdWith(&Param{Name: "n", Options: []string{"--n"}, Kind: KindInteger, Arity: ArityOne, Default: 3}),
			`{"type":"object","properties":{"n":{"type":"integer","default":3,"minimum":-9007199254740991,"maximum":9007199254740991}},` + closed + `}`},
		{"a sized integer keeps its narrower bounds",
			cmdWith(&Param{Name: "n", Options: []string{"--n"}, Kind: KindInteger, Arity: ArityOne, Minimum: f64(0), Maximum: f64(255)}),
			`{"type":"object","properties":{"n":{"type":"integer","minimum":0,"maximum":255}},` + closed + `}`},
		{"a number is unbounded unless the parser bounds it",
			cmdWith(&Param{Name: "x", Options: []string{"--x"}, Kind: KindNumber, Arity: ArityOne}),
			`{"type":"object","properties":{"x":{"type":"number"}},` + closed + `}`},
		{"forbidden values become not-enum",
			cmdWith(&Param{Name: "s", Options: []string{"--s"}, Kind: KindString, Arity: ArityOne, Forbidden: []any{"--"}}),
			`{"type":"object","properties":{"s":{"type":"string","pattern":"^[^\\x00]*$","not":{"enum":["--"]}}},` + closed + `}`},
		{"nargs=? is a scalar",
			cmdWith(&Param{Name: "p", Kind: KindString, Arity: ArityOptional}),
			`{"type":"object","properties":{"p":{"type":"string","pattern":"^[^\\x00]*$"}},` + closed + `}`},
		{"nargs=* is an array",
			cmdWith(&Param{Name: "p", Kind: KindInteger, Arity: ArityZeroOrMore}),
			`{"type":"object","properties":{"p":{"type":"array","items":{"type":"integer","minimum":-9007199254740991,"maximum":9007199254740991}}},` + closed + `}`},
		{"nargs=+ is an array of at least one",
			cmdWith(&Param{Name: "p", Kind: KindString, Arity: ArityOneOrMore, Required: true}),
			`{"type":"object","properties":{"p":{"type":"array","items":{"type":"string","pattern":"^[^\\x00]*$"},"minItems":1}},"required":["p"],` + closed + `}`},
		{"nargs=N is an array of exactly N",
			cmdWith(&Param{Name: "p", Options: []string{"--p"}, Kind: KindNumber, Arity: ArityExactly, N: 2}),
			`{"type":"object","properties":{"p":{"type":"array","items":{"type":"number"},"minItems":2,"maxItems":2}},` + closed + `}`},
		{"a repeated option is an array; min_items raises its lower bound",
			cmdWith(&Param{Name: "r", Options: []string{"--r"}, Kind: KindString, Arity: ArityRepeated, MinItems: 1, Default: []string{"x"}}),
			`{"type":"object","properties":{"r":{"type":"array","items":{"type":"string","pattern":"^[^\\x00]*$"},"default":["x"],"minItems":1}},` + closed + `}`},
		{"min_items raises a one-or-more lower bound, never lowers it",
			cmdWith(&Param{Name: "p", Options: []string{"--p"}, Kind: KindBoolean, Arity: ArityOneOrMore, MinItems: 2},
				&Param{Name: "q", Options: []string{"--q"}, Kind: KindBoolean, Arity: ArityExactly, N: 3, MinItems: 2}),
			`{"type":"object","properties":{"p":{"type":"array","items":{"type":"boolean"},"minItems":2},"q":{"type":"array","items":{"type":"boolean"},"minItems":3,"maxItems":3}},` + closed + `}`},
		{"required parameters are listed in parser order",
			cmdWith(
				&Param{Name: "z", Options: []string{"--z"}, Kind: KindBoolean, Arity: ArityNone, Required: true, FlagValue: true},
				&Param{Name: "a", Options: []string{"--a"}, Kind: KindBoolean, Arity: ArityNone, Required: true, FlagValue: true}),
			`{"type":"object","properties":{"z":{"type":"boolean"},"a":{"type":"boolean"}},"required":["z","a"],` + closed + `}`},
	}
	for _, tt := range tests {
		t.Run(tt.rule, func(t *testing.T) {
			if got := schemaJSON(t, tt.cmd); got != tt.want {
				t.Errorf("schema:\n got %s\nwant %s", got, tt.want)
			}
		})
	}
}

func TestProjectGroups(t *testing.T) {
	b := func(n string) *Param {
		return &Param{Name: n, Options: []string{"--" + n}, Kind: KindBoolean, Arity: ArityNone, FlagValue: true}
	}
	tests := []struct {
		rule string
		cmd  *Command
		want string
	}{
		{"an exclusive group forbids each pair",
			&Command{Path: []string{"t"}, Runnable: true, Params: []*Param{b("a"), b("b"), b("c")}, Groups: []Group{{Params: []string{"a", "b", "c"}}}},
			`[{"not":{"required":["a","b"]}},{"not":{"required":["a","c"]}},{"not":{"required":["b","c"]}}]`},
		{"a required exclusive group also needs one member",
			&Command{Path: []string{"t"}, Runnable: true, Params: []*Param{b("a"), b("b")}, Groups: []Group{{Params: []string{"a", "b"}, Required: true}}},
			`[{"not":{"required":["a","b"]}},{"anyOf":[{"required":["a"]},{"required":["b"]}]}]`},
		{"an at-least-one set needs one member and allows several",
			&Command{Path: []string{"t"}, Runnable: true, Params: []*Param{b("a"), b("b")}, AnyRequired: [][]string{{"a", "b"}}},
			`[{"anyOf":[{"required":["a"]},{"required":["b"]}]}]`},
	}
	for _, tt := range tests {
		t.Run(tt.rule, func(t *testing.T) {
			got := schemaJSON(t, tt.cmd)
			var s struct{ AllOf json.RawMessage }
			if err := json.Unmarshal([]byte(got), &s); err != nil {
				t.Fatal(err)
			}
			if string(s.AllOf) != tt.want {
				t.Errorf("allOf:\n got %s\nwant %s", s.AllOf, tt.want)
			}
		})
	}
}

func TestProjectUnavailable(t *testing.T) {
	tests := []struct {
		rule                string
		cmd                 *Command
		param, action, typ  string
		reason, fullMessage string
	}{
		{rule: "an unrepresentable command is unavailable for its reason",
			cmd:         &Command{Path: []string{"a", "b"}, Runnable: true, Unrepresentable: &Unrepresentable{Reason: "positionals cannot be determined"}},
			reason:      "positionals cannot be determined",
			fullMessage: `projector: command "a b": positionals cannot be determined; command unavailable`},
		{rule: "a group that only dispatches is unavailable",
			cmd:    &Command{Path: []string{"a"}},
			reason: "the command only dispatches to subcommands and runs nothing itself"},
		{rule: "an unrepresentable parameter names itself and its action",
			cmd: cmdWith(
				&Param{Name: "ok", Options: []string{"--ok"}, Kind: KindString, Arity: ArityOne},
				&Param{Name: "net", Options: []string{"--net"}, Kind: KindString, Arity: ArityOne, Unrepresentable: &Unrepresentable{Action: "pflag:ipNet", Type: "ipNet", Reason: "pflag value type ipNet is not supported"}}),
			param: "net", action: "pflag:ipNet", typ: "ipNet", reason: "pflag value type ipNet is not supported",
			fullMessage: `projector: command "t": parameter "net" (action pflag:ipNet, type ipNet): pflag value type ipNet is not supported; command unavailable`},
		{rule: "a non-scalar type callable names the callable",
			cmd: cmdWith(&Param{Name: "budget", Options: []string{"--budget"}, Kind: KindString, Arity: ArityOne, Action: "store",
				Unrepresentable: &Unrepresentable{Type: "parse_budget", Reason: "type callable parse_budget is not a scalar"}}),
			param: "budget", typ: "parse_budget", reason: "type callable parse_budget is not a scalar",
			fullMessage: `projector: command "t": parameter "budget" (type parse_budget): type callable parse_budget is not a scalar; command unavailable`},
	}
	for _, tt := range tests {
		t.Run(tt.rule, func(t *testing.T) {
			s, err := Project(tt.cmd)
			sameAsProject(t, tt.cmd, err)
			var ue *UnavailableError
			if !errors.As(err, &ue) {
				t.Fatalf("Project error = %v (schema %v), want *UnavailableError", err, s)
			}
			if s != nil {
				t.Errorf("schema %v returned with an error", s)
			}
			if ue.Param != tt.param || ue.Action != tt.action || ue.Type != tt.typ || ue.Reason != tt.reason {
				t.Errorf("got %+v", ue)
			}
			if strings.Join(ue.Path, " ") != strings.Join(tt.cmd.Path, " ") {
				t.Errorf("path %v, want %v", ue.Path, tt.cmd.Path)
			}
			if tt.fullMessage != "" && ue.Error() != tt.fullMessage {
				t.Errorf("message:\n got %s\nwant %s", ue.Error(), tt.fullMessage)
			}
			if _, err := RenderArgv(DialectPflag, tt.cmd, map[string]any{}); !errors.As(err, &ue) {
				t.Errorf("RenderArgv on an unavailable command: %v, want *UnavailableError", err)
			}
		})
	}
}

func TestProjectRejectsInconsistentModels(t *testing.T) {
	s := func(n string) *Param {
		return &Param{Name: n, Options: []string{"--" + n}, Kind: KindString, Arity: ArityOne}
	}
	tests := []struct {
		rule string
		cmd  *Command
		want string
	}{
		{"duplicate names", cmdWith(s("a"), s("a")), `two parameters are named "a"`},
		{"unknown kind", cmdWith(&Param{Name: "a", Options: []string{"--a"}, Kind: "object", Arity: ArityOne}), `unknown kind "object"`},
		{"unknown arity", cmdWith(&Param{Name: "a", Options: []string{"--a"}, Kind: KindString, Arity: "some"}), `unknown arity "some"`},
		{"flag of a non-boolean kind", cmdWith(&Param{Name: "a", Options: []string{"--a"}, Kind: KindString, Arity: ArityNone}), "takes no value"},
		{"group names an unknown parameter", &Command{Path: []string{"t"}, Runnable: true, Params: []*Param{s("a")}, Groups: []Group{{Params: []string{"a", "b"}}}}, `unknown parameter "b"`},
		{"at-least-one set names an unknown parameter", &Command{Path: []string{"t"}, Runnable: true, Params: []*Param{s("a")}, AnyRequired: [][]string{{"zz"}}}, `unknown parameter "zz"`},
		{"two variable positionals", cmdWith(&Param{Name: "a", Kind: KindString, Arity: ArityZeroOrMore}, &Param{Name: "b", Kind: KindString, Arity: ArityOptional}), "both take a variable number"},
		{"one-or-more after an optional positional", cmdWith(&Param{Name: "a", Kind: KindString, Arity: ArityOptional}, &Param{Name: "b", Kind: KindString, Arity: ArityOneOrMore, Required: true}), "both take a variable number"},
		{"optional positionals not consecutive", cmdWith(&Param{Name: "a", Kind: KindString, Arity: ArityOptional}, &Param{Name: "x", Kind: KindString, Arity: ArityOne, Required: true}, &Param{Name: "b", Kind: KindString, Arity: ArityOptional}), "both take a variable number"},
		{"a count without a maximum", cmdWith(&Param{Name: "v", Options: []string{"-v"}, Kind: KindInteger, Arity: ArityCount}), "counts flag repetitions"},
		{"a count that is a string", cmdWith(&Param{Name: "v", Options: []string{"-v"}, Kind: KindString, Arity: ArityCount, Maximum: new(float64)}), "counts flag repetitions"},
		{"a bare positional", cmdWith(&Param{Name: "a", Kind: KindString, Arity: ArityOptional, Bare: true}), "given bare"},
		{"a bare array option", cmdWith(&Param{Name: "a", Options: []string{"--a"}, Kind: KindString, Arity: ArityRepeated, Bare: true}), "given bare"},
		{"an optional fixed positional", cmdWith(&Param{Name: "a", Kind: KindString, Arity: ArityOne}), "not required"},
		{"a bad pattern", cmdWith(&Param{Name: "a", Options: []string{"--a"}, Kind: KindString, Arity: ArityOne, Pattern: "(unclosed"}), "pattern"},
		{"exactly zero values", cmdWith(&Param{Name: "a", Options: []string{"--a"}, Kind: KindString, Arity: ArityExactly}), "arity exactly 0"},
		{"min_items on a scalar", cmdWith(&Param{Name: "a", Options: []string{"--a"}, Kind: KindString, Arity: ArityOne, MinItems: 1}), "not an array"},
		{"a pattern on a non-string", cmdWith(&Param{Name: "a", Options: []string{"--a"}, Kind: KindInteger, Arity: ArityOne, Pattern: "^1$"}), "has a pattern"},
		{"a forbidden value of another kind", cmdWith(&Param{Name: "a", Options: []string{"--a"}, Kind: KindInteger, Arity: ArityOne, Forbidden: []any{"--"}}), "forbidden value --: want an integer"},
		{"a choice outside the constraints", cmdWith(&Param{Name: "a", Options: []string{"--a"}, Kind: KindInteger, Arity: ArityOne, Choices: []any{"x"}}), `choice x`},
	}
	for _, tt := range tests {
		t.Run(tt.rule, func(t *testing.T) {
			_, err := Project(tt.cmd)
			sameAsProject(t, tt.cmd, err)
			var ue *UnavailableError
			if err == nil || errors.As(err, &ue) || !strings.Contains(err.Error(), tt.want) || !strings.Contains(err.Error(), "invalid parser model") {
				t.Fatalf("error = %v, want an invalid-model error containing %q", err, tt.want)
			}
		})
	}
}

// TestProjectForbiddenOutsideConstraints: a forbidden value need only be of
// the parameter's kind; that it also fails the pattern or the bounds is no
// inconsistency (an argparse "--" is forbidden even where a pattern already
// refuses a leading dash).
func TestProjectForbiddenOutsideConstraints(t *testing.T) {
	for _, p := range []*Param{
		{Name: "s", Options: []string{"--s"}, Kind: KindString, Arity: ArityOneOrMore, Pattern: `^(?:[^\-\x00][^\x00]*)?$`, Forbidden: []any{"--"}},
		{Name: "n", Options: []string{"--n"}, Kind: KindInteger, Arity: ArityOne, Minimum: f64(10), Forbidden: []any{int64(5)}},
		{Name: "x", Options: []string{"--x"}, Kind: KindNumber, Arity: ArityOne, Maximum: f64(1), Forbidden: []any{2.5}},
	} {
		if _, err := Project(cmdWith(p)); err != nil {
			t.Errorf("%s: %v", p.Name, err)
		}
	}
}

// sameAsProject fails t unless Representable says of cmd what Project
// said (projectErr): the same error, or none.
func sameAsProject(t *testing.T, cmd *Command, projectErr error) {
	t.Helper()
	err := Representable(cmd)
	if (err == nil) != (projectErr == nil) || err != nil && err.Error() != projectErr.Error() {
		t.Errorf("Representable = %v, Project = %v", err, projectErr)
	}
	var ue, pue *UnavailableError
	if errors.As(err, &ue) != errors.As(projectErr, &pue) {
		t.Errorf("Representable's error is an *UnavailableError: %v; Project's: %v", ue != nil, pue != nil)
	}
}

// TestRepresentableAgreesWithProject: on commands Project accepts, and on
// a default it cannot encode (the one error only building the schema used
// to find), Representable says what Project says.
func TestRepresentableAgreesWithProject(t *testing.T) {
	str := func(n string) *Param {
		return &Param{Name: n, Options: []string{"--" + n}, Kind: KindString, Arity: ArityOne}
	}
	for name, cmd := range map[string]*Command{
		"plain": cmdWith(str("a"), &Param{Name: "n", Options: []string{"--n"}, Kind: KindInteger, Arity: ArityOne, Default: int64(3)}),
		"groups": {Path: []string{"t"}, Runnable: true, Params: []*Param{str("a"), str("b")},
			Groups: []Group{{Params: []string{"a", "b"}, Required: true}}},
		"list default":                 cmdWith(&Param{Name: "tags", Options: []string{"--tags"}, Kind: KindString, Arity: ArityRepeated, Default: []string{"x", "y"}}),
		"a default JSON cannot encode": cmdWith(&Param{Name: "c", Options: []string{"--c"}, Kind: KindString, Arity: ArityOne, Default: make(chan int)}),
	} {
		t.Run(name, func(t *testing.T) {
			_, err := Project(cmd)
			if name == "a default JSON cannot encode" && err == nil {
				t.Fatal("Project encoded a channel as a default")
			}
			sameAsProject(t, cmd, err)
		})
	}
}

func TestFind(t *testing.T) {
	tree := &Tree{Commands: []*Command{
		{Path: []string{}},
		{Path: []string{"schedule"}, Aliases: []string{"sched"}},
		{Path: []string{"schedule", "list"}, Aliases: []string{"ls"}},
		{Path: []string{"job"}},
		{Path: []string{"job", "list"}},
	}}
	tests := []struct {
		rule string
		path []string
		want []string // nil: not found
	}{
		{"no elements finds the root", nil, []string{}},
		{"canonical path", []string{"schedule", "list"}, []string{"schedule", "list"}},
		{"alias of each element", []string{"sched", "ls"}, []string{"schedule", "list"}},
		{"same name under another parent", []string{"job", "list"}, []string{"job", "list"}},
		{"alias honoured only under its own parent", []string{"job", "ls"}, nil},
		{"unknown element", []string{"schedule", "nope"}, nil},
		{"too deep", []string{"schedule", "list", "x"}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.rule, func(t *testing.T) {
			got := tree.Find(tt.path...)
			if (got == nil) != (tt.want == nil) || got != nil && strings.Join(got.Path, "/") != strings.Join(tt.want, "/") {
				t.Fatalf("Find(%q) = %v, want %v", tt.path, got, tt.want)
			}
		})
	}
	if (*Tree)(nil).Find("x") != nil {
		t.Error("nil tree found something")
	}
}
