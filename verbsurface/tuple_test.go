//go:build unix

package verbsurface

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestValidateRepeatedTuples pins what the closed validation says about a
// repeated fixed-arity option (an array of arrays of exactly N scalars):
// a tuple of the wrong length, an item of the wrong type or out of range,
// and a tuple given twice under uniqueItems are each refused, naming the
// tuple and the item; integers inside tuples normalise as elsewhere.
func TestValidateRepeatedTuples(t *testing.T) {
	v, err := CompileValidator(c1ExtensionSchemas(t)["c1_extension_projected"])
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		args string
		want []ruleAt
		in   string // a reason must contain this
	}{
		{`{"pairs":[["a","b"],["c","d"]],"points":[[0,1,2]]}`, nil, ""},
		{`{"pairs":[]}`, nil, ""},
		{`{"pairs":[["a"]]}`, []ruleAt{{"pairs", RuleTooFewItems}}, `"pairs"[0] has 1 items, fewer than the minimum 2`},
		{`{"pairs":[["a","b","c"]]}`, []ruleAt{{"pairs", RuleTooManyItems}}, `"pairs"[0] has 3 items`},
		{`{"pairs":["a","b"]}`, []ruleAt{{"pairs", RuleWrongType}, {"pairs", RuleWrongType}}, `"pairs"[0] must be an array`},
		{`{"pairs":[["a",1]]}`, []ruleAt{{"pairs", RuleWrongType}}, `"pairs"[0][1] must be a string`},
		{`{"points":[[0,1,-1]]}`, []ruleAt{{"points", RuleBelowMinimum}}, `"points"[0][2] is -1`},
		{`{"points":[[0,1,2.5]]}`, []ruleAt{{"points", RuleWrongType}}, ""},
		{`{"pairs":[["a","b"],["c","d"],["a","b"]]}`, []ruleAt{{"pairs", RuleDuplicateItems}}, `"pairs"[0] and "pairs"[2]`},
		{`{"pairs":[["a","b"],["b","a"]]}`, nil, ""},
		{`{"pairs":[["a","b"],["c","d"],["e","f"],["g","h"],["i","j"]]}`, []ruleAt{{"pairs", RuleTooManyItems}}, "more than the maximum 4"},
		// Tuples whose positions differ (prefixItems).
		{`{"entries":[["a",1],["a",2]],"box":[2.5,"cm"]}`, nil, ""},
		{`{"entries":[[1,"a"]]}`, []ruleAt{{"entries", RuleWrongType}, {"entries", RuleWrongType}}, `"entries"[0][0] must be a string`},
		{`{"entries":[["a",10]]}`, []ruleAt{{"entries", RuleAboveMaximum}}, `"entries"[0][1] is 10`},
		{`{"entries":[["a",1],["a",1.0]]}`, []ruleAt{{"entries", RuleDuplicateItems}}, `"entries"[0] and "entries"[1]`},
		{`{"entries":[["a",1,2]]}`, []ruleAt{{"entries", RuleTooManyItems}}, ""},
		{`{"box":[2.5,"mm"]}`, []ruleAt{{"box", RuleNotInChoices}}, `"box"[1] is "mm"`},
		{`{"box":[2.5]}`, []ruleAt{{"box", RuleTooFewItems}}, ""},
	}
	for _, c := range cases {
		got := v.Validate(decodeArgs(t, c.args))
		if diff := cmp.Diff(c.want, rulesOf(got)); diff != "" {
			t.Errorf("%s: problems (-want +got):\n%s\nall: %+v", c.args, diff, got)
			continue
		}
		if c.in != "" && !strings.Contains(got[0].Reason, c.in) {
			t.Errorf("%s: reason %q does not say %q", c.args, got[0].Reason, c.in)
		}
	}
	args := decodeArgs(t, `{"points":[[0,1.0,9007199254740991]]}`)
	if p := v.Validate(args); len(p) != 0 {
		t.Fatalf("valid points refused: %+v", p)
	}
	norm := v.normalizeArgs(args)
	if diff := cmp.Diff([]any{[]any{int64(0), int64(1), int64(9007199254740991)}}, norm["points"]); diff != "" {
		t.Errorf("normalised points (-want +got):\n%s", diff)
	}
}
