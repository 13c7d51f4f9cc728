package verbsurface

import (
	"encoding/json"
	"strings"
	"testing"
)

// uniqueItemsSchema exercises uniqueItems and maxItems for the differential
// test: items drawn from few values, so duplicates are common, and numbers
// written differently (3 and 3.0) that are one number.
const uniqueItemsSchema = `{
 "type":"object",
 "properties":{
   "ids":{"type":"array","items":{"type":"string","enum":["fast","safe","abc"]},"minItems":1,"maxItems":4,"uniqueItems":true},
   "nums":{"type":"array","items":{"type":"number"},"uniqueItems":true}
 },
 "required":["ids"],
 "additionalProperties":false
}`

var uniqueItemsOrder = []string{"ids", "nums"}

// TestUniqueAndMaxItems pins the two array limits, one row per rule.
func TestUniqueAndMaxItems(t *testing.T) {
	v, err := CompileValidator(mustSchema(t, uniqueItemsSchema, uniqueItemsOrder))
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name   string
		args   string
		rule   string // "" accepts
		reason string
	}{
		{"distinct items within the bound are accepted", `{"ids":["fast","safe"],"nums":[1,2.5]}`, "", ""},
		{"a repeated item is one problem naming both places", `{"ids":["fast","safe","fast"]}`, RuleDuplicateItems, `"ids"[0] and "ids"[2] are both "fast"`},
		{"3 and 3.0 are one number", `{"ids":["abc"],"nums":[3,3.0]}`, RuleDuplicateItems, `"nums"[0] and "nums"[1]`},
		{"over maxItems is one problem, the items unexamined", `{"ids":["x","y","z","w","v"]}`, RuleTooManyItems, "5 items, more than the maximum 4"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			problems := v.Validate(decodeArgs(t, tt.args))
			if tt.rule == "" {
				if len(problems) != 0 {
					t.Fatalf("problems %+v; want none", problems)
				}
				return
			}
			if len(problems) != 1 || problems[0].Rule != tt.rule || !strings.Contains(problems[0].Reason, tt.reason) {
				t.Fatalf("problems %+v; want one %s containing %q", problems, tt.rule, tt.reason)
			}
		})
	}
}

// TestHugeArrayIsOneProblem: 300,000 copies of one value and 10,000
// distinct ones each cost exactly one problem (the bound), however many
// items would fail on their own.
func TestHugeArrayIsOneProblem(t *testing.T) {
	v, err := CompileValidator(mustSchema(t, uniqueItemsSchema, uniqueItemsOrder))
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range []int{10000, 300000} {
		ids := make([]string, n)
		for i := range ids {
			ids[i] = "not-a-choice"
		}
		b, _ := json.Marshal(map[string]any{"ids": ids})
		problems := v.Validate(decodeArgs(t, string(b)))
		if len(problems) != 1 || problems[0].Rule != RuleTooManyItems {
			t.Fatalf("%d ids: %d problems (first %+v); want one too_many_items", n, len(problems), problems[0])
		}
	}
}
