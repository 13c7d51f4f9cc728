package projector

import (
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/verbsurface/verbsurface/projector/internal/c1check"
)

func tupleCommand() *Command {
	return &Command{Path: []string{"t"}, Runnable: true, Params: []*Param{
		{Name: "pairs", Options: []string{"-p", "--pair"}, Kind: KindString, Arity: ArityRepeatedTuple, N: 2, UniqueItems: true, MaxItems: 3},
		{Name: "points", Options: []string{"-x"}, Kind: KindInteger, Arity: ArityRepeatedTuple, N: 3},
	}}
}

// TestRepeatedTupleSchemaAndArgv pins a repeated fixed-arity option: its
// schema is an array of arrays of exactly N items (inside the C1 subset),
// it renders once per tuple with the values as separate words, and
// RenderArgv refuses every value the schema refuses.
func TestRepeatedTupleSchemaAndArgv(t *testing.T) {
	cmd := tupleCommand()
	s, err := Project(cmd)
	if err != nil {
		t.Fatal(err)
	}
	if err := c1check.Check(s); err != nil {
		t.Fatalf("schema outside C1: %v", err)
	}
	raw, _ := json.Marshal(s.Properties["pairs"])
	const want = `{"type":"array","items":{"type":"array","items":{"type":"string","pattern":"^[^\\x00]*$"},"minItems":2,"maxItems":2},"maxItems":3,"uniqueItems":true}`
	if string(raw) != want {
		t.Errorf("pairs schema\n got %s\nwant %s", raw, want)
	}

	args := map[string]any{"pairs": []any{[]any{"-x", "a b"}, []any{"--", "="}}, "points": []any{[]any{-1.0, 0.0, 5.0}}}
	for _, c := range []struct {
		d    Dialect
		want []string
	}{
		{DialectClick, []string{"--pair", "-x", "a b", "--pair", "--", "=", "-x", "-1", "0", "5"}},
	} {
		got, err := RenderArgv(c.d, cmd, args)
		if err != nil || !slices.Equal(got, c.want) {
			t.Errorf("%s: RenderArgv = %q, %v; want %q", c.d, got, err, c.want)
		}
	}
	// argparse reads a dash-leading word after a space as an option.
	if _, err := RenderArgv(DialectArgparse, cmd, args); err == nil || !strings.Contains(err.Error(), "starts with '-'") {
		t.Errorf("argparse: a dash-leading tuple value was not refused: %v", err)
	}
	got, err := RenderArgv(DialectArgparse, cmd, map[string]any{"pairs": []any{[]any{"a", "b"}}, "points": []any{[]any{-1.0, 2.0, 3.0}}})
	if want := []string{"--pair", "a", "b", "-x", "-1", "2", "3"}; err != nil || !slices.Equal(got, want) {
		t.Errorf("argparse: RenderArgv = %q, %v; want %q", got, err, want)
	}
	if _, err := RenderArgv(DialectPflag, cmd, map[string]any{"pairs": []any{[]any{"a", "b"}}}); err == nil {
		t.Error("pflag rendered a multi-value option it has no spelling for")
	}

	for _, bad := range []struct {
		args map[string]any
		in   string
	}{
		{map[string]any{"pairs": []any{[]any{"a"}}}, "has 1 values, want exactly 2"},
		{map[string]any{"pairs": []any{[]any{"a", "b", "c"}}}, "has 3 values, want exactly 2"},
		{map[string]any{"pairs": []any{"a", "b"}}, "want an array of 2 values"},
		{map[string]any{"pairs": []any{[]any{"a", 1.0}}}, "value 1: want a string"},
		{map[string]any{"pairs": []any{[]any{"a", "b\x00"}}}, "value 1: value \"b\\x00\" does not match pattern"},
		{map[string]any{"pairs": []any{[]any{"a", "b"}, []any{"c", "d"}, []any{"a", "b"}}}, "items 0 and 2 are equal"},
		{map[string]any{"pairs": []any{[]any{"a", "b"}, []any{"c", "d"}, []any{"e", "f"}, []any{"g", "h"}}}, "more than the maximum 3"},
		{map[string]any{"points": []any{[]any{1.0, 2.0, 2.5}}}, "want an integer"},
	} {
		_, err := RenderArgv(DialectClick, cmd, bad.args)
		var ae *ArgError
		if !errors.As(err, &ae) || !strings.Contains(err.Error(), bad.in) {
			t.Errorf("RenderArgv(%v) = %v, want an ArgError saying %q", bad.args, err, bad.in)
		}
	}
	if _, err := RenderArgv(DialectClick, cmd, map[string]any{"pairs": []any{[]any{"a", "b"}, []any{"b", "a"}}}); err != nil {
		t.Errorf("two different tuples of the same values refused: %v", err)
	}
}

// TestRepeatedTupleModelErrors: a positional or a path parameter cannot
// be a list of tuples (argv has no spelling for the one; the surface
// confines no path inside a tuple for the other), nor can N be below 1.
func TestRepeatedTupleModelErrors(t *testing.T) {
	for name, p := range map[string]*Param{
		"positional": {Name: "p", Kind: KindString, Arity: ArityRepeatedTuple, N: 2, Required: true},
		"path":       {Name: "p", Options: []string{"--p"}, Kind: KindString, Arity: ArityRepeatedTuple, N: 2, Path: PathUseRead},
		"n zero":     {Name: "p", Options: []string{"--p"}, Kind: KindString, Arity: ArityRepeatedTuple},
	} {
		_, err := Project(&Command{Runnable: true, Params: []*Param{p}})
		var ue *UnavailableError
		if err == nil || errors.As(err, &ue) {
			t.Errorf("%s: Project = %v, want a model error", name, err)
		}
	}
}

// TestTupleElements pins a tuple whose positions differ (Param.Elements):
// "prefixItems" with minItems = maxItems = N, inside C1, for one value
// (ArityExactly) and for each of a repeated option's values; each position
// is checked and spelled by its own element.
func TestTupleElements(t *testing.T) {
	max := 9.0
	elems := []Element{{Kind: KindString, Choices: []any{"a", "b"}}, {Kind: KindInteger, Maximum: &max}}
	cmd := &Command{Path: []string{"t"}, Runnable: true, Params: []*Param{
		{Name: "one", Options: []string{"--one"}, Kind: KindString, Arity: ArityExactly, N: 2, Elements: elems},
		{Name: "many", Options: []string{"--many"}, Kind: KindString, Arity: ArityRepeatedTuple, N: 2, Elements: elems},
	}}
	s, err := Project(cmd)
	if err != nil {
		t.Fatal(err)
	}
	if err := c1check.Check(s); err != nil {
		t.Fatalf("schema outside C1: %v", err)
	}
	raw, _ := json.Marshal(s.Properties["many"])
	const want = `{"type":"array","items":{"type":"array","prefixItems":[{"type":"string","enum":["a","b"],"pattern":"^[^\\x00]*$"},{"type":"integer","minimum":-9007199254740991,"maximum":9}],"minItems":2,"maxItems":2}}`
	if string(raw) != want {
		t.Errorf("many schema\n got %s\nwant %s", raw, want)
	}
	got, err := RenderArgv(DialectClick, cmd, map[string]any{"one": []any{"b", -3.0}, "many": []any{[]any{"a", 9.0}}})
	if want := []string{"--one", "b", "-3", "--many", "a", "9"}; err != nil || !slices.Equal(got, want) {
		t.Errorf("RenderArgv = %q, %v; want %q", got, err, want)
	}
	for _, bad := range []struct {
		args map[string]any
		in   string
	}{
		{map[string]any{"one": []any{1.0, "a"}}, "item 0: want a string"},
		{map[string]any{"one": []any{"c", 1.0}}, "not one of the choices"},
		{map[string]any{"many": []any{[]any{"a", 10.0}}}, "item 0: value 1: value 10 is outside"},
		{map[string]any{"many": []any{[]any{"a", 1.5}}}, "want an integer"},
	} {
		if _, err := RenderArgv(DialectClick, cmd, bad.args); err == nil || !strings.Contains(err.Error(), bad.in) {
			t.Errorf("RenderArgv(%v) = %v, want an error saying %q", bad.args, err, bad.in)
		}
	}
	for name, p := range map[string]*Param{
		"wrong count":         {Name: "p", Options: []string{"--p"}, Kind: KindString, Arity: ArityExactly, N: 3, Elements: elems},
		"not a tuple":         {Name: "p", Options: []string{"--p"}, Kind: KindString, Arity: ArityRepeated, Elements: elems},
		"own constraints too": {Name: "p", Options: []string{"--p"}, Kind: KindString, Arity: ArityExactly, N: 2, Elements: elems, Pattern: "^a$"},
		"kind not the first":  {Name: "p", Options: []string{"--p"}, Kind: KindInteger, Arity: ArityExactly, N: 2, Elements: elems},
		"a path":              {Name: "p", Options: []string{"--p"}, Kind: KindString, Arity: ArityExactly, N: 2, Elements: elems, Path: PathUseRead},
	} {
		_, err := Project(&Command{Runnable: true, Params: []*Param{p}})
		var ue *UnavailableError
		if err == nil || errors.As(err, &ue) {
			t.Errorf("%s: Project = %v, want a model error", name, err)
		}
	}
}
