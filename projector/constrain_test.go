package projector

import (
	"encoding/json"
	"strings"
	"testing"
)

func constrainFixture() *Command {
	return &Command{Path: []string{"lint"}, Runnable: true, Params: []*Param{
		{Name: "commit", Options: []string{"--commit"}, Kind: KindString, Arity: ArityOne, Action: "store"},
		{Name: "format", Options: []string{"-f", "--format"}, Kind: KindString, Arity: ArityOne, Action: "store", Choices: []any{"text", "json", "yaml"}},
		{Name: "jobs", Options: []string{"-j"}, Kind: KindInteger, Arity: ArityOne, Action: "store"},
		{Name: "refs", Kind: KindString, Arity: ArityZeroOrMore, Action: "store"},
	}}
}

// TestConstrainSchemaAndRender holds that each constraint is in the schema
// an agent reads and refused by rendering, and that the parser's own
// pattern stays beside it.
func TestConstrainSchemaAndRender(t *testing.T) {
	cmd, err := Constrain(constrainFixture(),
		Constraint{Param: "--commit", Pattern: `^[0-9a-f]{7,40}$`, NoDash: true},
		Constraint{Param: "format", Enum: []any{"json", "yaml"}},
		Constraint{Param: "jobs", Enum: []any{1, 2, 4}},
		Constraint{Param: "refs", NoDash: true},
	)
	if err != nil {
		t.Fatal(err)
	}
	s, err := Project(cmd)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(s.Properties)
	for _, want := range []string{
		`"commit":{"type":"string","pattern":"^[^\\x00]*$","allOf":[{"pattern":"^[0-9a-f]{7,40}$"},{"pattern":"^(?:$|[^-])"}]}`,
		`"format":{"type":"string","enum":["json","yaml"]`,
		`"jobs":{"type":"integer","enum":[1,2,4]`,
		`"refs":{"type":"array","items":{"type":"string","pattern":"^[^\\x00]*$","allOf":[{"pattern":"^(?:$|[^-])"}]}}`,
	} {
		if !strings.Contains(string(b), want) {
			t.Errorf("schema lacks %s\n%s", want, b)
		}
	}
	for _, c := range []struct {
		name string
		args map[string]any
		want string // "" renders
	}{
		{"a commit id renders", map[string]any{"commit": "1554e9e"}, ""},
		{"an option-looking commit is refused", map[string]any{"commit": "--output=/tmp/x"}, "does not match pattern"},
		{"a word that is no commit id is refused", map[string]any{"commit": "HEAD~1"}, "does not match pattern"},
		{"a choice the operator kept renders", map[string]any{"format": "json"}, ""},
		{"a choice the operator left out is refused", map[string]any{"format": "text"}, "not one of the choices"},
		{"an integer enum holds", map[string]any{"jobs": 3}, "not one of the choices"},
		{"each item is checked", map[string]any{"refs": []any{"main", "-n1"}}, "does not match pattern"},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := RenderArgv(DialectArgparse, cmd, c.args)
			switch {
			case c.want == "" && err != nil:
				t.Fatalf("refused: %v", err)
			case c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)):
				t.Fatalf("got %v, want an error containing %q", err, c.want)
			}
		})
	}
	if got := constrainFixture().Params[0].Patterns; got != nil {
		t.Errorf("Constrain modified its input: %v", got)
	}
}

// TestConstrainRefuses is one row per rule of Constrain's doc comment.
func TestConstrainRefuses(t *testing.T) {
	tuple := &Command{Path: []string{"t"}, Runnable: true, Params: []*Param{{Name: "box", Options: []string{"--box"}, Kind: KindNumber,
		Arity: ArityExactly, N: 2, Elements: []Element{{Kind: KindNumber}, {Kind: KindString}}}}}
	for _, c := range []struct {
		name string
		cmd  *Command
		con  Constraint
		want string
	}{
		{"an unknown parameter", constrainFixture(), Constraint{Param: "sha", NoDash: true}, "no such parameter"},
		{"a constraint that says nothing", constrainFixture(), Constraint{Param: "commit"}, "says nothing"},
		{"a pattern on an integer", constrainFixture(), Constraint{Param: "jobs", NoDash: true}, "apply to strings"},
		{"a pattern that does not compile", constrainFixture(), Constraint{Param: "commit", Pattern: "("}, "missing closing )"},
		{"an enum value of another kind", constrainFixture(), Constraint{Param: "jobs", Enum: []any{"two"}}, "want an integer"},
		{"an enum value outside the parser's choices", constrainFixture(), Constraint{Param: "format", Enum: []any{"csv"}}, "not one of the choices"},
		{"an enum value the pattern refuses", constrainFixture(), Constraint{Param: "commit", NoDash: true, Enum: []any{"-x"}}, "does not match pattern"},
		{"a tuple stated position by position", tuple, Constraint{Param: "box", Enum: []any{1}}, "states each of its 2 values"},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := Constrain(c.cmd, c.con)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("got %v, want an error containing %q", err, c.want)
			}
		})
	}
}
