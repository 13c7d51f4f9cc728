//go:build unix

package verbsurface

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"sync/atomic"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// countingRunner counts the commands that reached the real runner.
type countingRunner struct {
	inner Runner
	runs  atomic.Int64
}

func (c *countingRunner) Run(ctx context.Context, argv []string) (json.RawMessage, error) {
	c.runs.Add(1)
	return c.inner.Run(ctx, argv)
}

// Plan forwards to the real runner's, as limitedExec does.
func (c *countingRunner) Plan() (string, []string, string) {
	return c.inner.(planner).Plan()
}

// deciderFunc adapts a function to Decider.
type deciderFunc func(verb string, args map[string]any) (string, string, string)

func (f deciderFunc) Decide(verb string, args map[string]any) (string, string, string) {
	return f(verb, args)
}

// dryFixture is the fixture CLI behind a counting runner, with a policy
// that denies mode.set and asks about job.tag, and one spawn a minute.
func dryFixture(t *testing.T) (*fixture, *countingRunner) {
	t.Helper()
	var counter *countingRunner
	fx := newFixture(t, func(c *fixtureConfig) {
		c.wrap = func(r Runner) Runner {
			counter = &countingRunner{inner: r}
			return counter
		}
		c.opts.SpawnsPerMinute = 1
		c.opts.Decide = deciderFunc(func(verb string, _ map[string]any) (string, string, string) {
			switch verb {
			case "mode.set":
				return DecisionDeny, "no-modes", "modes are the operator's"
			case "job.tag":
				return DecisionAsk, "tags-need-ok", ""
			}
			return DecisionAllow, "default", ""
		})
	})
	return fx, counter
}

func stateFiles(t *testing.T, dir string) []string {
	t.Helper()
	var out []string
	_ = filepath.WalkDir(dir, func(path string, _ os.DirEntry, err error) error {
		if err == nil {
			out = append(out, path)
		}
		return nil
	})
	return out
}

// TestDryRunRunsNothing: a spawn op asked as a dry run passes every gate
// and shows what would run; no command runs, the preparer writes no
// snapshot, and the spawn token is counted, not taken: a real op after
// many dry runs still has its one token.
func TestDryRunRunsNothing(t *testing.T) {
	fx, counter := dryFixture(t)
	fp := fx.fingerprint(t, "agent.submit")
	before := stateFiles(t, fx.env.State)
	op := `{"op":"agent.submit","fingerprint":` + quote(fp) + `,"args":{"model":"m1","prompt":"review the diff","max_turns":3}`
	for range 3 {
		r := result(t, fx.do(t, `{"ops":[`+op+`,"dry_run":true}]}`), 0)
		if r["ok"] != true || r["dry_run"] != true {
			t.Fatalf("dry run: %v", r)
		}
		plan := r["result"].(map[string]any)
		if plan["runs"] != "command" || plan["decision"] != "allow" || plan["rule"] != "default" || plan["spawn_tokens"] != float64(1) {
			t.Errorf("plan %v", plan)
		}
		if diff := cmp.Diff([]any{"agent", "submit"}, plan["command"]); diff != "" {
			t.Errorf("command (-want +got):\n%s", diff)
		}
		if diff := cmp.Diff([]any{"--json", "--max-turns=3", "--model=m1", "--prompt=review the diff"}, plan["argv"]); diff != "" {
			t.Errorf("argv (-want +got):\n%s", diff)
		}
		if plan["output"] != "envelope" || plan["cwd"] == "" || len(anySlice(plan["env"])) == 0 {
			t.Errorf("cwd, env names and output missing: %v", plan)
		}
		for _, e := range anySlice(plan["env"]) {
			if s := e.(string); filepath.Base(s) != s || len(s) > 0 && s[len(s)-1] == '=' {
				t.Errorf("env shows more than a name: %q", s)
			}
		}
	}
	if n := counter.runs.Load(); n != 0 {
		t.Fatalf("dry runs ran %d commands", n)
	}
	if diff := cmp.Diff(before, stateFiles(t, fx.env.State)); diff != "" {
		t.Fatalf("dry runs wrote to the state (-before +after):\n%s", diff)
	}
	r := result(t, fx.do(t, `{"ops":[`+op+`}]}`), 0)
	if r["ok"] != true || r["dry_run"] != nil {
		t.Fatalf("the real op after three dry runs: %v (a dry run took the one spawn token?)", r)
	}
	if counter.runs.Load() != 1 {
		t.Fatalf("the real op ran %d commands", counter.runs.Load())
	}
	// Now the bucket is empty: the dry run answers what the real op would.
	dry := result(t, fx.do(t, `{"ops":[`+op+`,"dry_run":true}]}`), 0)
	real := result(t, fx.do(t, `{"ops":[`+op+`}]}`), 0)
	if errCode(dry) != CodeRateLimited || errCode(real) != CodeRateLimited {
		t.Fatalf("with no token left: dry %v, real %v", dry, real)
	}
}

// TestDryRunGatesAnswerAsTheRealOp: every refusal a real op gets, its dry
// run gets in the same words.
func TestDryRunGatesAnswerAsTheRealOp(t *testing.T) {
	fx, counter := dryFixture(t)
	for _, tt := range []struct{ name, op string }{
		{"unknown verb", `{"op":"job.stauts","args":{"id":"x"}`},
		{"fenced", `{"op":"state.migrate"`},
		{"invalid args", `{"op":"job.status","args":{"id":"x","nope":1}`},
		{"missing fingerprint", `{"op":"agent.submit","args":{"model":"m","prompt":"p"}`},
		{"stale fingerprint", `{"op":"agent.submit","fingerprint":"vs1:0000000000000000","args":{"model":"m","prompt":"p"}`},
		{"policy deny", `{"op":"mode.set","args":{"mode":"fast"}`},
		{"unavailable", `{"op":"net.allow","args":{}`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			real := result(t, fx.do(t, `{"ops":[`+tt.op+`}]}`), 0)
			dry := result(t, fx.do(t, `{"ops":[`+tt.op+`,"dry_run":true}]}`), 0)
			if real["ok"] != false {
				t.Fatalf("the real op was not refused: %v", real)
			}
			if dry["dry_run"] != true {
				t.Errorf("the dry run's refusal does not say dry_run: %v", dry)
			}
			delete(dry, "dry_run")
			if diff := cmp.Diff(real, dry); diff != "" {
				t.Errorf("dry run and real op differ (-real +dry):\n%s", diff)
			}
		})
	}
	if n := counter.runs.Load(); n != 0 {
		t.Fatalf("refused ops ran %d commands", n)
	}
}

// TestDryRunReportsAskWithoutAsking: an op the policy asks about is not
// asked about in a dry run (no confirmation is requested); its result says
// a real op would ask, and which rule.
func TestDryRunReportsAskWithoutAsking(t *testing.T) {
	fx, counter := dryFixture(t)
	req := `{"ops":[{"op":"job.tag","args":{"id":"j1","tags":["a"]}}],"dry_run":true}`
	if asks := fx.surface.Confirmations(context.Background(), json.RawMessage(req)); len(asks) != 0 {
		t.Fatalf("a dry run asked the person: %+v", asks)
	}
	if asks := fx.surface.Confirmations(context.Background(), json.RawMessage(`{"ops":[{"op":"job.tag","args":{"id":"j1","tags":["a"]}}]}`)); len(asks) != 1 {
		t.Fatalf("the real op must be asked about: %+v", asks)
	}
	r := result(t, fx.do(t, req), 0)
	plan, _ := r["result"].(map[string]any)
	if r["ok"] != true || plan["decision"] != "ask" || plan["rule"] != "tags-need-ok" {
		t.Fatalf("dry run of an ask: %v", r)
	}
	// The request's dry_run covers every op, and one op cannot opt out.
	resp := fx.do(t, `{"ops":[{"op":"job.list"},{"op":"job.status","args":{"id":"j1"},"dry_run":false}],"dry_run":true}`)
	for i := range 2 {
		if r := result(t, resp, i); r["dry_run"] != true || r["ok"] != true {
			t.Errorf("op %d of a dry-run request: %v", i, r)
		}
	}
	if n := counter.runs.Load(); n != 0 {
		t.Fatalf("dry runs ran %d commands", n)
	}
	// A handler verb is judged too, and says it runs the server's logic.
	r = result(t, fx.do(t, `{"ops":[{"op":"job.wait","args":{"id":"j1"},"dry_run":true}]}`), 0)
	if plan, _ := r["result"].(map[string]any); r["ok"] != true || plan["runs"] != "handler" {
		t.Errorf("dry run of a handler verb: %v", r)
	}
	select {
	case id := <-fx.waited:
		t.Fatalf("the handler ran for %s", id)
	default:
	}
}
