package verbsurface

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/jsonschema-go/jsonschema"
)

// everyKeywordSchema uses every keyword of contract C1 at least once.
const everyKeywordSchema = `{
 "type":"object","description":"every keyword",
 "properties":{
   "name":{"type":"string","description":"a name","minLength":1,"pattern":"^[a-z]+$"},
   "mode":{"type":"string","enum":["fast","safe"],"default":"safe"},
   "count":{"type":"integer","minimum":0,"maximum":10,"default":3},
   "ratio":{"type":"number","minimum":-1.5,"maximum":1.5},
   "flag":{"type":"boolean"},
   "tags":{"type":"array","items":{"type":"string","not":{"enum":["--","-h"]}},"minItems":1,"maxItems":3},
   "nums":{"type":"array","items":{"type":"integer","enum":[1,2,3]}},
   "prompt":{"type":"string"},
   "prompt_file":{"type":"string"}
 },
 "required":["name"],
 "additionalProperties":false,
 "allOf":[{"not":{"required":["prompt","prompt_file"]}},{"anyOf":[{"required":["prompt"]},{"required":["prompt_file"]}]}]
}`

var everyKeywordOrder = []string{"name", "mode", "count", "ratio", "flag", "tags", "nums", "prompt", "prompt_file"}

func mustSchema(t testing.TB, src string, order []string) *jsonschema.Schema {
	t.Helper()
	var s jsonschema.Schema
	if err := json.Unmarshal([]byte(src), &s); err != nil {
		t.Fatalf("schema: %v", err)
	}
	s.PropertyOrder = order
	return &s
}

// decodeArgs decodes a JSON object the way the surface does (UseNumber).
func decodeArgs(t testing.TB, src string) map[string]any {
	t.Helper()
	dec := json.NewDecoder(strings.NewReader(src))
	dec.UseNumber()
	var m map[string]any
	if err := dec.Decode(&m); err != nil {
		t.Fatalf("args %s: %v", src, err)
	}
	return m
}

type ruleAt struct{ Param, Rule string }

func rulesOf(ps []Problem) []ruleAt {
	var out []ruleAt
	for _, p := range ps {
		out = append(out, ruleAt{p.Param, p.Rule})
	}
	return out
}

func TestValidatorRules(t *testing.T) {
	v, err := CompileValidator(mustSchema(t, everyKeywordSchema, everyKeywordOrder))
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		args string
		want []ruleAt
	}{
		{"valid minimal args pass", `{"name":"abc","prompt":"p"}`, nil},
		{"valid full args pass", `{"name":"abc","mode":"fast","count":10,"ratio":-1.5,"flag":false,"tags":["a","b"],"nums":[1,3],"prompt_file":"/x"}`, nil},
		{"an integer written 3.0 is an integer", `{"name":"a","prompt":"p","count":3.0}`, nil},
		{"an integer written 3e0 is an integer", `{"name":"a","prompt":"p","count":3e0}`, nil},
		{"an integer is a number", `{"name":"a","prompt":"p","ratio":1}`, nil},
		{"unknown parameter is echoed exactly", `{"name":"a","prompt":"p","Name ":"x"}`, []ruleAt{{"Name ", RuleUnknownParameter}}},
		{"unknown parameters are reported sorted", `{"name":"a","prompt":"p","zz":1,"--help":true,"":0}`,
			[]ruleAt{{"", RuleUnknownParameter}, {"--help", RuleUnknownParameter}, {"zz", RuleUnknownParameter}}},
		{"missing required", `{"prompt":"p"}`, []ruleAt{{"name", RuleMissingRequired}}},
		{"wrong type: string given a number", `{"name":5,"prompt":"p"}`, []ruleAt{{"name", RuleWrongType}}},
		{"wrong type: null is not a value", `{"name":null,"prompt":"p"}`, []ruleAt{{"name", RuleWrongType}}},
		{"wrong type: nested object", `{"name":{"a":1},"prompt":"p"}`, []ruleAt{{"name", RuleWrongType}}},
		{"wrong type: 3.5 is not an integer", `{"name":"a","prompt":"p","count":3.5}`, []ruleAt{{"count", RuleWrongType}}},
		{"wrong type: string is not a boolean", `{"name":"a","prompt":"p","flag":"true"}`, []ruleAt{{"flag", RuleWrongType}}},
		{"wrong type: scalar is not an array", `{"name":"a","prompt":"p","tags":"a"}`, []ruleAt{{"tags", RuleWrongType}}},
		{"wrong type: number out of double range", `{"name":"a","prompt":"p","ratio":1e400}`, []ruleAt{{"ratio", RuleWrongType}}},
		{"not in choices", `{"name":"a","prompt":"p","mode":"FAST"}`, []ruleAt{{"mode", RuleNotInChoices}}},
		{"item not in choices", `{"name":"a","prompt":"p","nums":[1,4]}`, []ruleAt{{"nums", RuleNotInChoices}}},
		{"item choices compare numbers by value", `{"name":"a","prompt":"p","nums":[1.0,2e0]}`, nil},
		{"forbidden literal value", `{"name":"a","prompt":"p","tags":["--"]}`, []ruleAt{{"tags", RuleForbiddenValue}}},
		{"too short", `{"name":"","prompt":"p"}`, []ruleAt{{"name", RuleTooShort}, {"name", RulePattern}}},
		{"pattern", `{"name":"ABC","prompt":"p"}`, []ruleAt{{"name", RulePattern}}},
		{"below minimum", `{"name":"a","prompt":"p","count":-1}`, []ruleAt{{"count", RuleBelowMinimum}}},
		{"above maximum", `{"name":"a","prompt":"p","count":11}`, []ruleAt{{"count", RuleAboveMaximum}}},
		{"huge number above maximum", `{"name":"a","prompt":"p","count":1e300}`, []ruleAt{{"count", RuleAboveMaximum}}},
		{"too few items", `{"name":"a","prompt":"p","tags":[]}`, []ruleAt{{"tags", RuleTooFewItems}}},
		{"too many items", `{"name":"a","prompt":"p","tags":["a","b","c","d"]}`, []ruleAt{{"tags", RuleTooManyItems}}},
		{"item of the wrong type", `{"name":"a","prompt":"p","tags":["a",1]}`, []ruleAt{{"tags", RuleWrongType}}},
		{"mutually exclusive pair", `{"name":"a","prompt":"p","prompt_file":"/f"}`, []ruleAt{{"prompt", RuleMutuallyExclusive}}},
		{"required group", `{"name":"a"}`, []ruleAt{{"prompt", RuleRequiredGroup}}},
		{"every problem at once, in order", `{"zeta":1,"alpha":2,"mode":"x","count":"3","tags":[1,"--","ok","a","b"],"prompt":"p","prompt_file":"q"}`,
			[]ruleAt{
				{"alpha", RuleUnknownParameter}, {"zeta", RuleUnknownParameter},
				{"name", RuleMissingRequired},
				{"mode", RuleNotInChoices},
				{"count", RuleWrongType},
				{"tags", RuleTooManyItems}, // over maxItems: refused on its length, its items unexamined
				{"prompt", RuleMutuallyExclusive},
			}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := v.Validate(decodeArgs(t, tt.args))
			if diff := cmp.Diff(tt.want, rulesOf(got)); diff != "" {
				t.Errorf("problems (-want +got):\n%s\nall: %+v", diff, got)
			}
			for _, p := range got {
				if p.Reason == "" {
					t.Errorf("problem %+v has no reason", p)
				}
			}
		})
	}
}

func TestValidatorIsDeterministic(t *testing.T) {
	v, err := CompileValidator(mustSchema(t, everyKeywordSchema, everyKeywordOrder))
	if err != nil {
		t.Fatal(err)
	}
	args := decodeArgs(t, `{"z":1,"y":2,"x":3,"w":4,"count":"a","mode":1,"tags":[1,2,3,4],"prompt":"a","prompt_file":"b"}`)
	first, _ := json.Marshal(v.Validate(args))
	for range 50 { // map iteration order varies run to run
		again, _ := json.Marshal(v.Validate(args))
		if !bytes.Equal(first, again) {
			t.Fatalf("problems differ between runs:\n%s\n%s", first, again)
		}
	}
}

func TestValidatorUsesSortedOrderWithoutPropertyOrder(t *testing.T) {
	v, err := CompileValidator(mustSchema(t, everyKeywordSchema, nil))
	if err != nil {
		t.Fatal(err)
	}
	got := rulesOf(v.Validate(decodeArgs(t, `{"name":1,"count":"x","flag":3,"prompt":"p"}`)))
	want := []ruleAt{{"count", RuleWrongType}, {"flag", RuleWrongType}, {"name", RuleWrongType}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

func TestValidatorReasonsNameTheProblem(t *testing.T) {
	v, err := CompileValidator(mustSchema(t, everyKeywordSchema, everyKeywordOrder))
	if err != nil {
		t.Fatal(err)
	}
	long := strings.Repeat("é", 5000)
	ps := v.Validate(map[string]any{"name": long, "prompt": "p", "Bogus\n": 1})
	if len(ps) != 2 {
		t.Fatalf("want 2 problems, got %+v", ps)
	}
	if !strings.Contains(ps[0].Reason, `"Bogus\n"`) {
		t.Errorf("unknown-parameter reason does not echo the exact name: %q", ps[0].Reason)
	}
	if len(ps[1].Reason) > 300 {
		t.Errorf("a hostile value is echoed in full (%d bytes)", len(ps[1].Reason))
	}
}

func TestCompileValidatorRejectsKeywordsOutsideC1(t *testing.T) {
	base := func(prop string) string {
		return `{"type":"object","properties":{"p":` + prop + `},"additionalProperties":false}`
	}
	tests := []struct{ name, schema string }{
		{"const", base(`{"type":"string","const":"a"}`)},
		{"maxLength", base(`{"type":"string","maxLength":3}`)},
		{"format", base(`{"type":"string","format":"email"}`)},
		{"exclusiveMinimum", base(`{"type":"integer","exclusiveMinimum":0}`)},
		{"oneOf on a property", base(`{"oneOf":[{"type":"string"}]}`)},
		{"object-typed property", base(`{"type":"object"}`)},
		{"type list", base(`{"type":["string","null"]}`)},
		{"items inside items of no fixed length", base(`{"type":"array","items":{"type":"array","items":{"type":"string"}}}`)},
		{"items three deep", base(`{"type":"array","items":{"type":"array","minItems":1,"maxItems":1,"items":{"type":"array","minItems":1,"maxItems":1,"items":{"type":"string"}}}}`)},
		{"items of a scalar item", base(`{"type":"array","items":{"type":"string","items":{"type":"string"}}}`)},
		{"prefixItems of no fixed length", base(`{"type":"array","prefixItems":[{"type":"string"}]}`)},
		{"prefixItems holding an array", base(`{"type":"array","minItems":1,"maxItems":1,"prefixItems":[{"type":"array","items":{"type":"string"}}]}`)},
		{"prefixItems inside a tuple's item", base(`{"type":"array","items":{"type":"array","minItems":1,"maxItems":1,"prefixItems":[{"type":"array","minItems":1,"maxItems":1,"prefixItems":[{"type":"string"}]}]}}`)},
		{"type list on an item", base(`{"type":"array","items":{"type":["boolean","string"],"not":{"enum":[false]}}}`)},
		{"not with more than enum", base(`{"type":"string","not":{"enum":["a"],"pattern":"x"}}`)},
		{"not without enum", base(`{"type":"string","not":{"pattern":"x"}}`)},
		{"unknown extra keyword", base(`{"type":"string","x-hint":1}`)},
		{"open object", `{"type":"object","properties":{}}`},
		{"additionalProperties true", `{"type":"object","additionalProperties":true}`},
		{"root minProperties", `{"type":"object","additionalProperties":false,"minProperties":1}`},
		{"root $ref", `{"type":"object","additionalProperties":false,"$ref":"#"}`},
		{"allOf member of another shape", `{"type":"object","additionalProperties":false,"allOf":[{"required":["a"]}]}`},
		{"not.required of three", `{"type":"object","additionalProperties":false,"allOf":[{"not":{"required":["a","b","c"]}}]}`},
		{"anyOf member requiring two", `{"type":"object","additionalProperties":false,"allOf":[{"anyOf":[{"required":["a","b"]}]}]}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var s jsonschema.Schema
			if err := json.Unmarshal([]byte(tt.schema), &s); err != nil {
				t.Fatal(err)
			}
			if _, err := CompileValidator(&s); err == nil {
				t.Errorf("compiled a schema outside C1: %s", tt.schema)
			}
		})
	}
}

func TestNormalizeArgsKeepsIntegerDigits(t *testing.T) {
	v, err := CompileValidator(mustSchema(t, `{"type":"object","properties":{"n":{"type":"integer"},"f":{"type":"number"},"a":{"type":"array","items":{"type":"integer"}}},"additionalProperties":false}`, nil))
	if err != nil {
		t.Fatal(err)
	}
	args := decodeArgs(t, `{"n":9007199254740993,"f":2,"a":[3.0,1e2,-0]}`)
	if ps := v.Validate(args); ps != nil {
		t.Fatal(ps)
	}
	got := v.normalizeArgs(args)
	want := map[string]any{"n": int64(9007199254740993), "f": float64(2), "a": []any{int64(3), int64(100), int64(0)}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	big := decodeArgs(t, `{"n":123456789012345678901234567890}`)
	if got := v.normalizeArgs(big)["n"]; got != json.Number("123456789012345678901234567890") {
		t.Errorf("huge integer normalised to %#v", got)
	}
}
