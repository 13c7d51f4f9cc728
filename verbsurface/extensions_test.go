//go:build unix

package verbsurface

import (
	"reflect"
	"strings"
	"testing"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/verbsurface/verbsurface/projector"
)

// c1ExtensionSchemas are the schemas of the keywords issue 17 added to
// contract C1 ("type": ["boolean", T] for an option that may be given bare,
// root "dependentRequired" for consecutive optional positionals, and the
// integer range of a count), written by hand and projected from models, for
// the differential test against jsonschema-go.
func c1ExtensionSchemas(t testing.TB) map[string]*jsonschema.Schema {
	t.Helper()
	out := map[string]*jsonschema.Schema{
		"c1_extension_keywords": mustSchema(t, `{
 "type":"object","additionalProperties":false,
 "properties":{
   "color":{"type":["boolean","string"],"enum":[true,"auto","never"],"not":{"enum":[false]}},
   "jobs":{"type":["boolean","integer"],"minimum":1,"maximum":64,"not":{"enum":[false]}},
   "ratio":{"type":["boolean","number"],"maximum":1.5,"not":{"enum":[false,0]}},
   "label":{"type":["boolean","string"],"pattern":"^[a-z]*$","not":{"enum":[false,"--"]}},
   "src":{"type":"string"},
   "dst":{"type":"string"},
   "rest":{"type":"array","items":{"type":"string"}}
 },
 "dependentRequired":{"dst":["src"],"rest":["src","dst"]}
}`, []string{"color", "jobs", "ratio", "label", "src", "dst", "rest"}),
	}
	max := float64(projector.MaxCount)
	cmd := &projector.Command{Path: []string{"x"}, Runnable: true, Params: []*projector.Param{
		{Name: "verbose", Options: []string{"-v"}, Kind: projector.KindInteger, Arity: projector.ArityCount, Maximum: &max},
		{Name: "with", Options: []string{"--with"}, Kind: projector.KindString, Arity: projector.ArityOptional, Bare: true, Forbidden: []any{"--"}},
		{Name: "level", Options: []string{"--level"}, Kind: projector.KindInteger, Arity: projector.ArityOne, Bare: true, Choices: []any{int64(1), int64(2)}},
		{Name: "debug", Options: []string{"--debug"}, Kind: projector.KindBoolean, Arity: projector.ArityNone, FlagValue: true, Default: false, Const: int64(10)},
		{Name: "year", Kind: projector.KindInteger, Arity: projector.ArityOptional},
		{Name: "month", Kind: projector.KindInteger, Arity: projector.ArityOptional, Minimum: ptr(1.0), Maximum: ptr(12.0)},
		{Name: "files", Kind: projector.KindString, Arity: projector.ArityZeroOrMore},
		{Name: "pairs", Options: []string{"--pair"}, Kind: projector.KindString, Arity: projector.ArityRepeatedTuple, N: 2, MaxItems: 4, UniqueItems: true},
		{Name: "points", Options: []string{"--point"}, Kind: projector.KindInteger, Arity: projector.ArityRepeatedTuple, N: 3, Minimum: ptr(0)},
		{Name: "entries", Options: []string{"--entry"}, Kind: projector.KindString, Arity: projector.ArityRepeatedTuple, N: 2, UniqueItems: true,
			Elements: []projector.Element{{Kind: projector.KindString}, {Kind: projector.KindInteger, Minimum: ptr(1), Maximum: ptr(9)}}},
		{Name: "box", Options: []string{"--box"}, Kind: projector.KindNumber, Arity: projector.ArityExactly, N: 2,
			Elements: []projector.Element{{Kind: projector.KindNumber}, {Kind: projector.KindString, Choices: []any{"cm", "in"}}}},
		// An operator's constraints (projector.Constrain): patterns
		// beside the parser's own, as allOf on the value and on items.
		{Name: "commit", Options: []string{"--commit"}, Kind: projector.KindString, Arity: projector.ArityOne,
			Pattern: `^[^\x00]*$`, Patterns: []string{projector.NoDashPattern, `^[0-9a-f]*$`}},
		{Name: "refs", Options: []string{"--ref"}, Kind: projector.KindString, Arity: projector.ArityRepeated,
			Patterns: []string{projector.NoDashPattern}},
		{Name: "mode", Options: []string{"--mode"}, Kind: projector.KindString, Arity: projector.ArityOptional, Bare: true,
			Patterns: []string{`^[a-z]+$`}},
	}}
	s, err := projector.Project(cmd)
	if err != nil {
		t.Fatal(err)
	}
	out["c1_extension_projected"] = s
	return out
}

func ptr(f float64) *float64 { return &f }

// TestValidateC1Extensions pins the problems the new keywords report: a
// later positional without an earlier one names both, false for a bare
// option is refused with a reason that says what to give instead.
func TestValidateC1Extensions(t *testing.T) {
	v, err := CompileValidator(c1ExtensionSchemas(t)["c1_extension_keywords"])
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		args string
		want []ruleAt
	}{
		{`{"color":true,"jobs":3,"src":"a","dst":"b","rest":[]}`, nil},
		{`{"color":"auto","jobs":true,"ratio":true,"label":true}`, nil},
		{`{"color":false}`, []ruleAt{{"color", RuleForbiddenValue}}},
		{`{"color":"always"}`, []ruleAt{{"color", RuleNotInChoices}}},
		{`{"jobs":0}`, []ruleAt{{"jobs", RuleBelowMinimum}}},
		{`{"label":"X"}`, []ruleAt{{"label", RulePattern}}},
		{`{"dst":"b"}`, []ruleAt{{"dst", RuleDependentRequired}}},
		{`{"rest":["x"],"src":"a"}`, []ruleAt{{"rest", RuleDependentRequired}}},
		{`{"rest":["x"]}`, []ruleAt{{"rest", RuleDependentRequired}, {"rest", RuleDependentRequired}}},
	}
	for _, c := range cases {
		got := v.Validate(decodeArgs(t, c.args))
		if r := rulesOf(got); len(r) != len(c.want) || (len(r) > 0 && !equalRules(r, c.want)) {
			t.Errorf("%s: problems %+v, want rules %v", c.args, got, c.want)
		}
	}
	p := v.Validate(decodeArgs(t, `{"color":false}`))
	if len(p) != 1 || !strings.Contains(p[0].Reason, "give true for the bare option") {
		t.Errorf("false for a bare option: %+v", p)
	}
	p = v.Validate(decodeArgs(t, `{"dst":"b"}`))
	if len(p) != 1 || len(p[0].Params) != 2 || p[0].Params[1] != "src" || !strings.Contains(p[0].Reason, `only together with "src"`) {
		t.Errorf("dependent positional: %+v", p)
	}
}

func equalRules(a, b []ruleAt) bool {
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// TestCLIRefusalTeaches: when the CLI refuses one argument at parse time
// and names it in its machine result (invalid_argument or usage_error with
// details.argument, by name or option string), the op fails with
// invalid_args on that parameter, with the schema, its fingerprint and the
// help call; an error naming no parameter passes through as cli_error.
func TestCLIRefusalTeaches(t *testing.T) {
	fx := newFixture(t)
	for _, tt := range []struct{ args, param string }{
		{`{"limit":-1}`, "limit"},
		{`{"status":"unknown"}`, "status"},
	} {
		r := result(t, fx.do(t, `{"ops":[{"op":"job.list","args":`+tt.args+`}]}`), 0)
		e, _ := r["error"].(map[string]any)
		if e == nil || e["code"] != CodeInvalidArgs || e["schema"] == nil || e["schema_fingerprint"] == nil || e["help_call"] == nil {
			t.Fatalf("%s: result %v", tt.args, r)
		}
		if got := rulesOf(problemsOf(t, r)); !reflect.DeepEqual(got, []ruleAt{{tt.param, RuleCLIRefused}}) {
			t.Errorf("%s: problems %v", tt.args, got)
		}
		if p := problemsOf(t, r)[0]; !strings.Contains(p.Reason, "the CLI refused this value: --") {
			t.Errorf("%s: reason %q", tt.args, p.Reason)
		}
	}
	// The CLI's error names no parameter: it passes through.
	r := result(t, fx.do(t, `{"ops":[{"op":"job.status","args":{"id":"nope"}}]}`), 0)
	if errCode(r) != CodeCLIError {
		t.Errorf("result %v", r)
	}
}
