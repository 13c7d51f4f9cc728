//go:build unix

package verbsurface

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/verbsurface/verbsurface/dispatch"
)

// bigRunner answers job.watch of id "big" with a result that alone
// nearly fills a 64 KiB response, of id "inf" with a number beyond a
// double, and of id
// "fail" with a nonzero_exit quoting 1 MiB of output and of stderr; every
// other command runs for real.
func bigRunner(inner Runner) Runner {
	return RunnerFunc(func(ctx context.Context, argv []string) (json.RawMessage, error) {
		if slices.Contains(argv, "watch") {
			switch argv[len(argv)-1] {
			case "big":
				return json.Marshal(map[string]string{"pad": strings.Repeat("a", 64<<10-180)})
			case "inf":
				return json.RawMessage(`{"n":1e400}`), nil
			case "fail":
				out, _ := json.Marshal(strings.Repeat("\x00", 1<<20))
				return nil, &dispatch.Error{Kind: dispatch.KindNonzeroExit, Program: "/bin/watch", ExitCode: 1,
					Problem: "exited with status 1", Output: out, Stderr: strings.Repeat("e", 1<<20) + "the end"}
			}
		}
		return inner.Run(ctx, argv)
	})
}

// TestFailureCapped: failures too large for what the response has left
// keep their code with every quote cut to an excerpt (cut names each
// member and its size), stderr's tail kept; past that they become
// response_too_large naming their code; the whole answer stays within the
// cap plus a small refusal per op.
func TestFailureCapped(t *testing.T) {
	const limit = 64 << 10
	fx := newFixture(t, func(c *fixtureConfig) {
		c.opts.MaxResponseBytes = limit
		c.wrap = bigRunner
	})
	op := `{"op":"job.watch","args":{"id":"fail"}}`
	resp := fx.surface.Handle(context.Background(), json.RawMessage(`{"ops":[`+strings.Repeat(op+",", 15)+op+`]}`), nil)
	if n := len(resp.JSON()); n > limit+16*512 {
		t.Fatalf("the answer is %d bytes; the cap is %d", n, limit)
	}
	e := resp.Results[0].Error
	if e == nil || e.Code != CodeNonzeroExit || e.Cut["details.output"] < 6<<20 || e.Cut["details.stderr_tail"] <= 1<<20 {
		t.Fatalf("first result %+v; want nonzero_exit with output and stderr cut", e)
	}
	if s := e.Details["stderr_tail"].(string); len(s) > 2*quoteBytes || !strings.HasSuffix(s, "the end") {
		t.Fatalf("stderr_tail %.80q…; want its last kilobyte", s)
	}
	last := resp.Results[15].Error
	if last == nil || (last.Code != CodeNonzeroExit && (last.Code != CodeResponseTooLarge || last.Details["code"] != CodeNonzeroExit)) {
		t.Fatalf("last result %+v; want nonzero_exit, or response_too_large naming it", last)
	}
}

// TestSpawnResultClaimsItsRoom: a spawn's result is the only place its
// run's id is written, so when it arrives with no room left, an earlier
// observe result is cut for it, not the spawn's.
func TestSpawnResultClaimsItsRoom(t *testing.T) {
	fx := newFixture(t, func(c *fixtureConfig) {
		c.opts.MaxResponseBytes = 64 << 10
		c.wrap = bigRunner
	})
	fp := fx.fingerprint(t, "agent.submit")
	resp := fx.surface.Handle(context.Background(), json.RawMessage(`{"ops":[{"op":"job.watch","args":{"id":"big"}},`+
		`{"op":"agent.submit","fingerprint":"`+fp+`","args":{"model":"m","prompt":"p"}}]}`), nil)
	if e := resp.Results[0].Error; e == nil || e.Code != CodeResponseTooLarge {
		t.Fatalf("job.watch: ok %v, error %+v; want response_too_large", resp.Results[0].OK, e)
	}
	if r := resp.Results[1]; !r.OK || !strings.Contains(string(r.Result), `"job_id"`) {
		t.Fatalf("agent.submit: ok %v, error %+v; want its result, with the run's id", r.OK, r.Error)
	}
	if resp.Status != StatusPartial {
		t.Fatalf("status %s; want partial", resp.Status)
	}
}

// TestProblemsListedToABound: 1,000 unknown parameters are one
// invalid_args of 64 problems, the last counting those not listed; the
// message counts them all.
func TestProblemsListedToABound(t *testing.T) {
	fx := newFixture(t)
	var b strings.Builder
	for i := range 1000 {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(`"x` + strings.Repeat("y", i%7) + string(rune('a'+i%26)) + `_` + itoa(i) + `":1`)
	}
	resp := fx.surface.Handle(context.Background(), json.RawMessage(`{"ops":[{"op":"job.status","args":{`+b.String()+`}}]}`), nil)
	e := resp.Results[0].Error
	if e == nil || e.Code != CodeInvalidArgs || len(e.Problems) != maxListedProblems {
		t.Fatalf("%+v; want invalid_args listing %d problems", e, maxListedProblems)
	}
	// Every name is unknown, and the required id is missing: 1,001.
	if !strings.HasPrefix(e.Message, "1001 problems") {
		t.Fatalf("message %q; want it to count every problem", e.Message)
	}
	if p := e.Problems[len(e.Problems)-1]; p.Rule != RuleMoreProblems || !strings.Contains(p.Reason, "and 938 more") {
		t.Fatalf("last problem %+v; want more_problems counting the 938 not listed", p)
	}
}

func itoa(i int) string { b, _ := json.Marshal(i); return string(b) }

// TestBoundHelpers: head and tail cut on rune boundaries and say so.
func TestBoundHelpers(t *testing.T) {
	if got := head("héllo", 2); got != "h…" {
		t.Errorf("head = %q", got)
	}
	if got := tail("héllo", 4); got != "…llo" {
		t.Errorf("tail = %q", got)
	}
	if got := boundProblems(make([]Problem, 3), 3); len(got) != 3 || got[2].Rule != "" {
		t.Errorf("a list at its bound changed: %+v", got)
	}
}

// TestResultEveryClientCanRead: a runner's result that the go-sdk client
// cannot decode (a number beyond a double) is that op's invalid_result;
// the op beside it answers.
func TestResultEveryClientCanRead(t *testing.T) {
	fx := newFixture(t, func(c *fixtureConfig) { c.wrap = bigRunner })
	resp := fx.surface.Handle(context.Background(), json.RawMessage(`{"ops":[{"op":"job.watch","args":{"id":"inf"}},{"op":"job.watch","args":{"id":"aaaa"}}]}`), nil)
	if e := resp.Results[0].Error; e == nil || e.Code != CodeInvalidResult || !strings.Contains(e.Message, "beyond the range of a double") {
		t.Fatalf("first op: %+v; want invalid_result saying why", e)
	}
	if !resp.Results[1].OK {
		t.Fatalf("second op: %+v; want its result", resp.Results[1].Error)
	}
}

// TestCompactedProblemsCountThemAll: a list already cut at 64, compacted
// to 8, still counts every problem, in cut and in its last reason.
func TestCompactedProblemsCountThemAll(t *testing.T) {
	eo := &ErrorObject{Code: CodeInvalidArgs, Problems: boundProblems(make([]Problem, 1000), maxListedProblems)}
	c := compactError(eo)
	if c.Cut["problems"] != 1000 || len(c.Problems) != compactProblems || !strings.Contains(c.Problems[compactProblems-1].Reason, "and 993 more") {
		t.Fatalf("cut %v, %d problems, last %+v; want 1000 counted, 8 listed, the last counting 993", c.Cut, len(c.Problems), c.Problems[len(c.Problems)-1])
	}
}
