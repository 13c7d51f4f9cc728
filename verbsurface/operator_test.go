package verbsurface

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/verbsurface/verbsurface/projector"
)

// What a Go embedder says on a Verb that no parser states: constraints
// (in the schema, refused before anything runs), fixed values (withdrawn
// from the schema, rendered with the caller's), stated positionals (in
// place of the reader's); each mistake makes that verb unavailable, saying
// why.
func TestVerbOperatorFields(t *testing.T) {
	s, calls := frontSurface(t, nil,
		Verb{Name: "lint", Class: ClassObserve, Fixed: map[string]any{"format": "parsable"},
			Constraints: []projector.Constraint{{Param: "FILE_OR_DIR", NoDash: true}}},
		Verb{Name: "schedule", Class: ClassControl, Path: []string{"schedule"},
			Positionals: []*projector.Param{{Name: "job", Arity: projector.ArityOne}},
			Constraints: []projector.Constraint{{Param: "job", Enum: []any{"backup", "prune"}}}},
		Verb{Name: "lint.bad", Class: ClassObserve, Fixed: map[string]any{"format": "colored"}},
		Verb{Name: "lint.typo", Class: ClassObserve, Constraints: []projector.Constraint{{Param: "--formt", Enum: []any{"parsable"}}}},
	)
	problems := map[string]string{}
	for _, u := range s.Check(context.Background()) {
		problems[u.Verb] = u.Reason
	}
	if len(problems) != 2 || !strings.Contains(problems["lint.bad"], `fixed value for "format"`) || !strings.Contains(problems["lint.typo"], `constraint on "--formt": the command has no such parameter`) {
		t.Fatalf("Check: %v", problems)
	}
	if r := opResult(t, s, `{"ops":[{"op":"lint","args":{"files":["a", "b"]}}]}`); !r.OK {
		t.Fatalf("lint: %+v", r.Error)
	}
	if r := opResult(t, s, `{"ops":[{"op":"schedule","args":{"job":"backup","cron":"@daily"}}]}`); !r.OK {
		t.Fatalf("schedule: %+v", r.Error)
	}
	want := [][]string{{"--format=parsable", "--", "a", "b"}, {"schedule", "--cron=@daily", "--", "backup"}}
	if fmt.Sprint(*calls) != fmt.Sprint(want) {
		t.Errorf("argv %q; want %q", *calls, want)
	}
	for _, tc := range []struct{ op, param, rule string }{
		{`{"op":"lint","args":{"files":["-x"]}}`, "files", RulePattern},
		{`{"op":"lint","args":{"format":"standard"}}`, "format", RuleUnknownParameter},
		{`{"op":"schedule","args":{"job":"rm"}}`, "job", RuleNotInChoices},
		{`{"op":"schedule","args":{"job":"backup","command":["x"]}}`, "command", RuleUnknownParameter},
	} {
		r := opResult(t, s, `{"ops":[`+tc.op+`]}`)
		if r.OK || r.Error.Code != CodeInvalidArgs || r.Error.Problems[0].Param != tc.param || r.Error.Problems[0].Rule != tc.rule {
			t.Errorf("%s: %+v; want %s on %s", tc.op, r.Error, tc.rule, tc.param)
		}
	}
	if len(*calls) != 2 {
		t.Errorf("refused ops ran: %q", *calls)
	}
}
