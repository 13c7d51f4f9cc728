//go:build unix

package verbsurface

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/verbsurface/verbsurface/policy"
)

// as is ctx carrying a caller as the MCP binding gives it from a verified
// token.
func as(subject string, scopes ...string) context.Context {
	return context.WithValue(context.Background(), clientInfoKey{}, ClientInfo{Subject: subject, ClientID: subject + "-app", Scopes: scopes})
}

func (fx *fixture) doAs(t testing.TB, ctx context.Context, req string) *Response {
	t.Helper()
	return fx.surface.Handle(ctx, json.RawMessage(req), nil)
}

// TestSubjectSpawnBuckets: each verified subject has its own bucket beside
// the total one: alice spending hers does not stop bob, the total still
// holds for everyone together, and a caller without a subject draws on the
// total only. Concurrent callers, under -race.
func TestSubjectSpawnBuckets(t *testing.T) {
	now := time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)
	fx := newFixture(t, func(c *fixtureConfig) {
		c.opts.SpawnsPerMinute = 5 // ClientKey is nil: one bucket for everyone
		c.opts.SubjectSpawnsPerMinute = 2
		c.opts.Now = func() time.Time { return now }
	})
	fp := fx.fingerprint(t, "agent.submit")
	op := `{"op":"agent.submit","fingerprint":"` + fp + `","args":{"model":"m","prompt":"p"}}`
	req := `{"ops":[` + op + `,` + op + `,` + op + `]}`
	started := map[string]int{}
	var mu sync.Mutex
	var wg sync.WaitGroup
	for _, who := range []string{"alice", "alice", "bob", "bob"} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for _, r := range fx.doAs(t, as(who), req).Results {
				mu.Lock()
				switch {
				case r.OK:
					started[who]++
				case r.Error.Code != CodeRateLimited || r.Error.Limit != 2 || !strings.Contains(r.Error.Message, "the caller's subject may start 2 runs a minute"):
					t.Errorf("%s: %+v; want rate_limited by the subject's limit of 2", who, r.Error)
				}
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	if started["alice"] != 2 || started["bob"] != 2 {
		t.Fatalf("started %v; want 2 each: one subject's spending does not stop another", started)
	}
	// carol has her bucket full, but the total has one token left.
	res := fx.doAs(t, as("carol"), req).Results
	if !res[0].OK || res[1].OK || res[1].Error.Limit != 5 || !strings.Contains(res[1].Error.Message, "this client may start 5") {
		t.Fatalf("carol: %+v, %+v; want one started, then rate_limited by the total of 5", res[0], res[1].Error)
	}
	// A caller without a subject draws on the total, which is spent.
	if r := fx.doAs(t, context.Background(), `{"ops":[`+op+`]}`).Results[0]; r.OK || r.Error.Limit != 5 {
		t.Fatalf("no subject: %+v; want rate_limited by the total", r.Error)
	}
	// A dry run counts both: carol's bucket has a token, the total none.
	if r := fx.doAs(t, as("carol"), `{"ops":[`+strings.Replace(op, `{"op"`, `{"dry_run":true,"op"`, 1)+`]}`).Results[0]; r.OK || r.Error.Limit != 5 {
		t.Fatalf("dry run: %+v; want rate_limited by the total", r.Error)
	}
	now = now.Add(time.Minute)
	if r := fx.doAs(t, as("alice"), `{"ops":[`+op+`]}`).Results[0]; !r.OK {
		t.Fatalf("a minute later: %+v; want alice's spawn started", r.Error)
	}
}

// TestSpawnTokensPerSubject: a handler's tokens come from both buckets, and
// what it gives back returns to both.
func TestSpawnTokensPerSubject(t *testing.T) {
	now := time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)
	clock := func() time.Time { return now }
	total := &spawnLimiter{perMinute: 5, now: clock, buckets: map[string]*bucket{}}
	sub := &spawnLimiter{perMinute: 3, now: clock, buckets: map[string]*bucket{}}
	alice := &SpawnTokens{buckets: spawnBuckets{total: total, subject: sub, subjectKey: "alice"}, verb: "fanout"}
	if got := alice.Take(4); got != 3 {
		t.Fatalf("Take(4) = %d; want alice's 3", got)
	}
	if err := alice.Refusal(); !strings.Contains(err.Error(), "the caller's subject may start 3") {
		t.Errorf("Refusal() = %v; want the subject's limit named", err)
	}
	alice.Return(2)
	bob := &SpawnTokens{buckets: spawnBuckets{total: total, subject: sub, subjectKey: "bob"}, verb: "fanout"}
	if got := bob.Take(3); got != 3 {
		t.Fatalf("bob Take(3) = %d; want 3 (the total has 4 after alice gave 2 back)", got)
	}
	if got := bob.Take(3); got != 0 || !strings.Contains(bob.Refusal().Error(), "start 3") {
		t.Fatalf("bob's second Take(3) = %d, %v; want 0 by his own limit", got, bob.Refusal())
	}
	carol := &SpawnTokens{buckets: spawnBuckets{total: total, subject: sub, subjectKey: "carol"}, verb: "fanout"}
	if got := carol.Take(3); got != 1 || !strings.Contains(carol.Refusal().Error(), "this client may start 5") {
		t.Fatalf("carol Take(3) = %d, %v; want the total's last 1", got, carol.Refusal())
	}
	if tokens, _ := sub.peek("carol"); tokens != 2 {
		t.Fatalf("carol's bucket holds %d; want 2 (what the total refused went back)", tokens)
	}
}

// TestClassScopes: a class may need scopes. An op of it whose caller's
// token lacks one is insufficient_scope naming it, before its args are
// read, and the other ops of the batch run; a caller without an identity
// is the operator's and is not judged.
func TestClassScopes(t *testing.T) {
	var ran []string
	var mu sync.Mutex
	fx := newFixture(t, func(c *fixtureConfig) {
		c.opts.ClassScopes = map[Class][]string{ClassControl: {"verbsurface:write"}, ClassSpawn: {"verbsurface:write", "verbsurface:spawn"}}
		c.wrap = func(inner Runner) Runner {
			return RunnerFunc(func(ctx context.Context, argv []string) (json.RawMessage, error) {
				mu.Lock()
				ran = append(ran, strings.Join(argv, " "))
				mu.Unlock()
				return inner.Run(ctx, argv)
			})
		}
	})
	req := `{"ops":[{"op":"job.list"},{"op":"mode.set","args":{"mode":"bogus"}},{"op":"agent.submit","args":{}}]}`
	resp := fx.doAs(t, as("reader", "verbsurface:read"), req)
	if resp.Status != "partial" || !resp.Results[0].OK {
		t.Fatalf("status %s, first op %+v; want partial with job.list run", resp.Status, resp.Results[0])
	}
	for i, want := range [][]string{nil, {"verbsurface:write"}, {"verbsurface:write", "verbsurface:spawn"}} {
		if i == 0 {
			continue
		}
		e := resp.Results[i].Error
		if e == nil || e.Code != CodeInsufficientScope || !slices.Equal(e.Scopes, want) || !strings.Contains(e.Message, strings.Join(want, " ")) || e.Problems != nil {
			t.Errorf("op %d: %+v; want insufficient_scope naming %v, and no word of its (invalid) args", i, e, want)
		}
	}
	if len(ran) != 1 || !strings.HasPrefix(ran[0], "job list") {
		t.Errorf("commands run: %q; want only job list", ran)
	}
	if got := fx.surface.OpScopes("job_kill"); !slices.Equal(got, []string{"verbsurface:write"}) {
		t.Errorf("OpScopes(job_kill) = %v; a synonym needs its verb's scopes", got)
	}
	if got := fx.surface.OpScopes("job.list"); got != nil {
		t.Errorf("OpScopes(job.list) = %v; want none", got)
	}
	// With the scope, and without an identity, the op goes on.
	for name, ctx := range map[string]context.Context{"granted": as("writer", "verbsurface:write"), "operator": context.Background()} {
		if r := fx.doAs(t, ctx, `{"ops":[{"op":"mode.set","args":{"mode":"fast"}}]}`).Results[0]; !r.OK {
			t.Errorf("%s: %+v; want mode.set run", name, r.Error)
		}
	}
}

// TestDecideAsThroughSurface: a policy file with who rules, enforced by a
// surface: two subjects, the same op, different outcomes; a caller
// without an identity matches no who rule.
func TestDecideAsThroughSurface(t *testing.T) {
	fx := newFixture(t)
	pol, err := policy.Parse("who.yaml", []byte(`
version: 1
default: deny
rules:
  - name: oncall-sets-mode
    verbs: [mode.set]
    who: {groups: [oncall]}
    decision: allow
`), fx.surface.PolicyVerbs(context.Background()))
	if err != nil {
		t.Fatal(err)
	}
	fx = newFixture(t, func(c *fixtureConfig) { c.opts.Decide = pol })
	oncall := context.WithValue(context.Background(), clientInfoKey{}, ClientInfo{Subject: "alice", Claims: map[string][]string{"groups": {"oncall"}}})
	req := `{"ops":[{"op":"mode.set","args":{"mode":"fast"}}]}`
	if r := fx.doAs(t, oncall, req).Results[0]; !r.OK {
		t.Errorf("alice (oncall): %+v; want allowed", r.Error)
	}
	for name, ctx := range map[string]context.Context{"bob": as("bob"), "no identity": context.Background()} {
		if r := fx.doAs(t, ctx, req).Results[0]; r.OK || r.Error.Code != CodePolicyRefused || r.Error.Rule != policy.RuleDefault {
			t.Errorf("%s: %+v; want policy_refused by the default", name, r.Error)
		}
	}
}

// TestRunIdentity: the operator's identity env and args reach the
// command (env in the context the runner gets, args after the fixed ones,
// before the caller's), checked against the pattern; a value that fails
// refuses the op and nothing runs; a caller without an identity gets
// none; the exchange seam's env reaches the run and its failure never
// quotes it.
func TestRunIdentity(t *testing.T) {
	type call struct {
		argv []string
		env  []string
	}
	var calls []call
	var mu sync.Mutex
	var exchanged http.Header
	exchangeErr := error(nil)
	fx := newFixture(t, func(c *fixtureConfig) {
		c.opts.Identity = &RunIdentity{
			Env:     map[string]string{"RUN_SUBJECT": "subject", "RUN_GROUPS": "groups"},
			Args:    []string{"--as={subject}"},
			Pattern: regexp.MustCompile(`^[a-z0-9@._]+$`),
			Exchange: func(_ context.Context, who ClientInfo, h http.Header) ([]string, error) {
				exchanged = h
				if exchangeErr != nil {
					return nil, exchangeErr
				}
				return []string{"BACKEND_TOKEN=exchanged-for-" + who.Subject}, nil
			},
		}
		c.wrap = func(inner Runner) Runner {
			return RunnerFunc(func(ctx context.Context, argv []string) (json.RawMessage, error) {
				mu.Lock()
				calls = append(calls, call{argv, IdentityEnv(ctx)})
				mu.Unlock()
				return json.RawMessage(`{}`), nil
			})
		}
	})
	ctx := context.WithValue(context.Background(), clientInfoKey{}, ClientInfo{Subject: "alice@example.org", Claims: map[string][]string{"groups": {"oncall", "dev"}}})
	header := http.Header{"Authorization": {"Bearer the-callers-token"}}
	ctx = context.WithValue(ctx, requestHeaderKey{}, header)
	if r := fx.doAs(t, ctx, `{"ops":[{"op":"job.list","args":{"limit":3}}]}`).Results[0]; !r.OK {
		t.Fatalf("job.list: %+v", r.Error)
	}
	want := call{argv: []string{"job", "list", "--json", "--as=alice@example.org", "--limit=3"},
		env: []string{"RUN_GROUPS=oncall,dev", "RUN_SUBJECT=alice@example.org", "BACKEND_TOKEN=exchanged-for-alice@example.org"}}
	if len(calls) != 1 || !slices.Equal(calls[0].argv, want.argv) || !slices.Equal(calls[0].env, want.env) {
		t.Fatalf("ran %+v; want %+v", calls, want)
	}
	if exchanged.Get("Authorization") != "Bearer the-callers-token" {
		t.Errorf("the exchange got header %v; want the request's", exchanged)
	}

	calls = nil
	bad := context.WithValue(context.Background(), clientInfoKey{}, ClientInfo{Subject: "Mallory --all", Claims: map[string][]string{"groups": {"x"}}})
	if r := fx.doAs(t, bad, `{"ops":[{"op":"job.list"}]}`).Results[0]; r.OK || r.Error.Code != CodePolicyRefused || r.Error.Rule != "identity" ||
		!strings.Contains(r.Error.Message, `subject "Mallory --all" does not match the operator's pattern`) {
		t.Errorf("a subject failing the pattern: %+v; want policy_refused by rule identity naming it", r.Error)
	}
	dashed := context.WithValue(context.Background(), clientInfoKey{}, ClientInfo{Subject: "-rf", Claims: map[string][]string{"groups": {"x"}}})
	fx.surface.opts.Identity.Pattern = regexp.MustCompile(`^[a-z0-9@._-]+$`) // admits a dash: the value is refused anyway
	if r := fx.doAs(t, dashed, `{"ops":[{"op":"job.list"}]}`).Results[0]; r.OK || !strings.Contains(r.Error.Message, `subject "-rf" begins with a dash`) {
		t.Errorf("a subject beginning with a dash: %+v; want refused", r.Error)
	}
	nogroups := context.WithValue(context.Background(), clientInfoKey{}, ClientInfo{Subject: "bob"})
	if r := fx.doAs(t, nogroups, `{"ops":[{"op":"job.list"}]}`).Results[0]; r.OK || !strings.Contains(r.Error.Message, "has no groups") {
		t.Errorf("a token without the claim: %+v; want refused naming the claim", r.Error)
	}
	exchangeErr = errors.New("issuer said no to the-callers-token")
	if r := fx.doAs(t, ctx, `{"ops":[{"op":"job.list"}]}`).Results[0]; r.OK || strings.Contains(r.Error.Message, "the-callers-token") {
		t.Errorf("a failed exchange: %+v; want refused without quoting the exchanger's error", r.Error)
	}
	if len(calls) != 0 {
		t.Errorf("ran %+v; a refused identity runs nothing", calls)
	}
	if r := fx.doAs(t, context.Background(), `{"ops":[{"op":"job.list"}]}`).Results[0]; !r.OK || len(calls) != 1 || len(calls[0].env) != 0 || slices.ContainsFunc(calls[0].argv, func(a string) bool { return strings.HasPrefix(a, "--as") }) {
		t.Errorf("no identity: %+v, ran %+v; want the command with no identity env or args", r.Error, calls)
	}
}

// TestRunIdentityChecked: New refuses identity declarations that break the
// rendering rules.
func TestRunIdentityChecked(t *testing.T) {
	for _, c := range []struct {
		name string
		ri   RunIdentity
		want string
	}{
		{"a positional", RunIdentity{Args: []string{"{subject}"}}, "is not an option and its value in one word"},
		{"an option apart from its value", RunIdentity{Args: []string{"--as", "{subject}"}}, `"--as" is not an option`},
		{"no field", RunIdentity{Args: []string{"--as=root"}}, "refers to no field"},
		{"a bad variable", RunIdentity{Env: map[string]string{"A-B": "subject"}}, "is not an environment variable's name"},
	} {
		t.Run(c.name, func(t *testing.T) {
			reg, _ := NewRegistry(nil)
			_, err := New(reg, &Options{Source: StaticTree(nil), Runner: RunnerFunc(nil), Identity: &c.ri})
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("New = %v; want an error containing %q", err, c.want)
			}
		})
	}
}
