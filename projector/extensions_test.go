package projector

import (
	"strings"
	"testing"
)

// extensionCommand uses every model form issue 17 added: a count, bare
// options (string with choices, integer), a const flag, and a run of
// optional positionals closed by a zero-or-more one.
func extensionCommand() *Command {
	max, one, twelve := float64(MaxCount), 1.0, 12.0
	return &Command{Path: []string{"x"}, Runnable: true, Params: []*Param{
		{Name: "verbose", Options: []string{"-v", "--verbose"}, Kind: KindInteger, Arity: ArityCount, Maximum: &max},
		{Name: "color", Options: []string{"--color"}, Kind: KindString, Arity: ArityOne, Bare: true, Const: "auto", Choices: []any{"auto", "never"}},
		{Name: "jobs", Options: []string{"--jobs"}, Kind: KindInteger, Arity: ArityOptional, Bare: true, Const: int64(4), Minimum: &one},
		{Name: "fast", Options: []string{"--fast"}, Kind: KindBoolean, Arity: ArityNone, FlagValue: true, Default: false, Const: int64(2)},
		{Name: "year", Kind: KindInteger, Arity: ArityOptional},
		{Name: "month", Kind: KindInteger, Arity: ArityOptional, Minimum: &one, Maximum: &twelve},
		{Name: "rest", Kind: KindString, Arity: ArityZeroOrMore},
	}}
}

// TestExtensionsProjectAndRender pins the schema forms and argv spellings
// of the model's issue-17 additions, and that the fast canonical writer
// handles them byte for byte like the general path.
func TestExtensionsProjectAndRender(t *testing.T) {
	cmd := extensionCommand()
	s, err := Project(cmd)
	if err != nil {
		t.Fatal(err)
	}
	if c := s.Properties["color"]; strings.Join(c.Types, ",") != "boolean,string" || c.Type != "" || c.Enum[0] != true || c.Not.Enum[0] != false {
		t.Errorf("color schema %+v", c)
	}
	if v := s.Properties["verbose"]; v.Type != "integer" || *v.Minimum != 0 || *v.Maximum != MaxCount {
		t.Errorf("verbose schema %+v", v)
	}
	if got := s.DependentRequired; len(got) != 2 || strings.Join(got["month"], ",") != "year" || strings.Join(got["rest"], ",") != "year,month" {
		t.Errorf("dependentRequired %v", got)
	}
	if _, ok := appendCanonicalSchema(nil, s); !ok {
		t.Error("the fast canonical writer refused the schema")
	}
	slow, err := canonicalJSON(map[string]any{"verb": "x", "schema": s})
	if err != nil {
		t.Fatal(err)
	}
	fast, err := canonicalFingerprintInput("x", s)
	if err != nil || string(fast) != string(slow) {
		t.Errorf("fast and general canonical forms differ (%v):\nfast %s\nslow %s", err, fast, slow)
	}

	for _, tt := range []struct {
		args map[string]any
		want string // argv joined by spaces, or "error: substring"
	}{
		{map[string]any{"verbose": 3.0, "color": true, "jobs": true, "fast": true}, "--verbose --verbose --verbose --color --jobs --fast"},
		{map[string]any{"verbose": 0.0, "color": "never", "jobs": 8.0, "fast": false}, "--color=never --jobs=8"},
		{map[string]any{"year": 2026.0, "month": 3.0, "rest": []any{"a"}}, "-- 2026 3 a"},
		{map[string]any{"year": 2026.0}, "-- 2026"},
		{map[string]any{"month": 3.0}, `error: can be given only together with "year"`},
		{map[string]any{"year": 1.0, "rest": []any{}}, `error: can be given only together with "month"`},
		{map[string]any{"color": false}, "error: false is not a value here"},
		{map[string]any{"color": "always"}, "error: not one of the choices"},
		{map[string]any{"verbose": 10.0}, "error: outside [0, 9]"},
	} {
		argv, err := RenderArgv(DialectArgparse, cmd, tt.args)
		got := strings.Join(argv, " ")
		if err != nil {
			got = "error: " + err.Error()
		}
		if !strings.HasPrefix(tt.want, "error: ") && got != tt.want || strings.HasPrefix(tt.want, "error: ") && !strings.Contains(got, strings.TrimPrefix(tt.want, "error: ")) {
			t.Errorf("%v: got %q, want %q", tt.args, got, tt.want)
		}
	}
}
