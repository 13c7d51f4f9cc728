//go:build unix

package verbsurface

import (
	"context"
	"encoding/json"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/verbsurface/verbsurface/policy"
)

// confirmPolicy asks before agent.submit and lets job.* run.
const confirmPolicy = `
version: 1
rules:
  - name: jobs
    verbs: ["job.*"]
    decision: allow
  - name: costly
    verbs: [agent.submit]
    when: {model: {in: [opus]}}
    decision: deny
    reason: opus is not for agents
  - name: spawns-need-my-ok
    verbs: [agent.submit]
    decision: ask
    reason: starting agents costs money
`

// clock is a settable Options.Now.
type clock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *clock) Now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.now }
func (c *clock) Add(d time.Duration) {
	c.mu.Lock()
	c.now = c.now.Add(d)
	c.mu.Unlock()
}

type confirmFixture struct {
	*fixture
	rec   *recordingExec
	clock *clock
	ops   chan *OpRecord
}

func newConfirmFixture(t *testing.T) *confirmFixture {
	t.Helper()
	rec, wrap := recordCalls(nil)
	cf := &confirmFixture{rec: rec, clock: &clock{now: time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC)}, ops: make(chan *OpRecord, 64)}
	p, err := policy.Parse("confirm.yaml", []byte(confirmPolicy), []policy.Verb{
		{Name: "agent.submit", Class: "spawn", Params: map[string]string{"model": "string", "prompt": "string"}},
		{Name: "job.list", Class: "observe"}, {Name: "job.status", Class: "observe"}})
	if err != nil {
		t.Fatal(err)
	}
	cf.fixture = newFixture(t, wrap, func(c *fixtureConfig) {
		c.opts.Decide = p
		c.opts.Now = cf.clock.Now
		c.opts.ConfirmWithin = time.Minute
		c.opts.OnOp = func(ctx context.Context, r *OpRecord) {
			r.Verb += "@" + RequestClient(ctx).Name + "/" + RequestClient(ctx).Version
			select {
			case cf.ops <- r:
			default:
			}
		}
	})
	return cf
}

// submits counts the agent submit commands the runner ran so far.
func (cf *confirmFixture) submits() int {
	n := 0
	for {
		select {
		case c := <-cf.rec.calls:
			if len(c.argv) >= 2 && c.argv[0] == "agent" && c.argv[1] == "submit" {
				n++
			}
		default:
			return n
		}
	}
}

// asker is a client's person: it answers every elicitation with action
// (and confirm true on accept), after running before.
type asker struct {
	mu       sync.Mutex
	action   string
	before   func()
	messages []string
}

func (a *asker) handle(_ context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
	a.mu.Lock()
	a.messages = append(a.messages, req.Params.Message)
	a.mu.Unlock()
	if a.before != nil {
		a.before()
	}
	if a.action == "accept" {
		return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"confirm": true}}, nil
	}
	return &mcp.ElicitResult{Action: a.action}, nil
}

func connectVersion(t *testing.T, s *Surface, version string, copts *mcp.ClientOptions) *mcp.ClientSession {
	t.Helper()
	server := mcp.NewServer(&mcp.Implementation{Name: "fixture", Version: "v0.0.1"}, nil)
	AddRequestTool(server, s)
	client := mcp.NewClient(&mcp.Implementation{Name: "test-client", Version: "v9.9.9"}, copts)
	st, ct := mcp.NewInMemoryTransports()
	ctx := context.Background()
	ss, err := server.Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	cs, err := client.Connect(ctx, ct, &mcp.ClientSessionOptions{ProtocolVersion: version})
	if err != nil {
		t.Fatal(err)
	}
	if got := cs.InitializeResult().ProtocolVersion; got != version {
		t.Fatalf("negotiated %s, want %s", got, version)
	}
	t.Cleanup(func() { cs.Close(); ss.Wait() })
	return cs
}

const submitOps = `{"ops":[{"op":"job.list","args":{}},{"op":"agent.submit","args":{"model":"sonnet","prompt":"PROMPT"},"fingerprint":"FP"}]}`

func (cf *confirmFixture) request(t *testing.T, prompt string) map[string]any {
	var args map[string]any
	s := strings.ReplaceAll(strings.ReplaceAll(submitOps, "PROMPT", prompt), "FP", cf.fingerprint(t, "agent.submit"))
	if err := json.Unmarshal([]byte(s), &args); err != nil {
		t.Fatal(err)
	}
	return args
}

// TestConfirmOnBothProtocols: a go-sdk client that implements elicitation
// is asked on protocol 2026-07-28 (an input-required result and a retry
// carrying requestState) and on 2025-11-25 (the SDK's server-initiated
// elicitation/create); accept runs the op, decline, cancel and an answer
// past the expiry run nothing the policy asked about.
func TestConfirmOnBothProtocols(t *testing.T) {
	for _, version := range []string{"2026-07-28", "2025-11-25"} {
		for _, tc := range []struct {
			action  string
			expire  bool
			ok      bool
			refusal string
		}{
			{"accept", false, true, ""},
			{"decline", false, false, AnswerDeclined},
			{"cancel", false, false, AnswerCancelled},
			{"accept", true, false, AnswerExpired},
		} {
			name := version + "/" + tc.action
			if tc.expire {
				name += "-after-expiry"
			}
			t.Run(name, func(t *testing.T) {
				cf := newConfirmFixture(t)
				a := &asker{action: tc.action}
				a.before = func() {
					// Nothing may run while the person is being asked.
					if n := cf.submits(); n != 0 {
						t.Errorf("%d submits ran before the answer", n)
					}
					if tc.expire {
						cf.clock.Add(2 * time.Minute)
					}
				}
				cs := connectVersion(t, cf.surface, version, &mcp.ClientOptions{ElicitationHandler: a.handle})
				resp, _ := call(t, cs, cf.request(t, strings.Repeat("write the report. ", 40)))
				if len(a.messages) != 1 {
					t.Fatalf("the person was asked %d times, want once", len(a.messages))
				}
				msg := a.messages[0]
				for _, want := range []string{"op 1: agent.submit (rule spawns-need-my-ok: starting agents costs money)", "model: sonnet", "(720 bytes, sha256 "} {
					if !strings.Contains(msg, want) {
						t.Errorf("the question %q lacks %q", msg, want)
					}
				}
				if strings.Contains(msg, strings.Repeat("write the report. ", 12)) {
					t.Errorf("the question shows the whole prompt: %q", msg)
				}
				r0, r1 := result(t, resp, 0), result(t, resp, 1)
				// One record per op of the run that counted (the first round
				// ran nothing, so it reported nothing).
				if len(cf.ops) != 2 {
					t.Fatalf("%d op records, want 2", len(cf.ops))
				}
				<-cf.ops
				rec := <-cf.ops
				want := map[bool]string{true: AnswerAccept, false: tc.refusal}[tc.ok]
				if rec.Verb != "agent.submit@test-client/v9.9.9" || rec.Index != 1 || rec.Decision != DecisionAsk || rec.Rule != "spawns-need-my-ok" ||
					rec.Confirmed != want || rec.ArgsDigest != ArgsDigest(rec.Args) || len(rec.ArgsDigest) != 64 {
					t.Errorf("op record %+v", rec)
				}
				if r0["ok"] != true {
					t.Errorf("job.list (allowed) did not run: %v", r0)
				}
				submits := cf.submits()
				if tc.ok {
					if r1["ok"] != true || submits != 1 {
						t.Fatalf("accepted submit: %v, %d submits ran, want 1", r1, submits)
					}
					return
				}
				if submits != 0 {
					t.Fatalf("%d submits ran after %s", submits, tc.refusal)
				}
				e, _ := r1["error"].(map[string]any)
				if errCode(r1) != CodePolicyRefused || e["confirmation"] != tc.refusal || e["rule"] != "spawns-need-my-ok" {
					t.Fatalf("refusal = %v, want policy_refused %s by spawns-need-my-ok", r1, tc.refusal)
				}
			})
		}
	}
}

// TestConfirmWithoutElicitation: a client that declared no elicitation
// gets the documented refusal naming the rule that asked; the other ops
// run.
func TestConfirmWithoutElicitation(t *testing.T) {
	for _, version := range []string{"2026-07-28", "2025-11-25"} {
		t.Run(version, func(t *testing.T) {
			cf := newConfirmFixture(t)
			cs := connectVersion(t, cf.surface, version, nil)
			resp, _ := call(t, cs, cf.request(t, "hi"))
			r1 := result(t, resp, 1)
			e, _ := r1["error"].(map[string]any)
			if errCode(r1) != CodePolicyRefused || e["confirmation"] != AnswerUnavailable || e["rule"] != "spawns-need-my-ok" ||
				!strings.Contains(e["message"].(string), "cannot ask its person") {
				t.Fatalf("got %v", r1)
			}
			if result(t, resp, 0)["ok"] != true || cf.submits() != 0 {
				t.Fatal("job.list should run, agent.submit not")
			}
		})
	}
}

// TestConfirmDenyNamesRule: deny is policy_refused with the rule and its
// reason, and nobody is asked.
func TestConfirmDenyNamesRule(t *testing.T) {
	cf := newConfirmFixture(t)
	a := &asker{action: "accept"}
	cs := connectVersion(t, cf.surface, "2026-07-28", &mcp.ClientOptions{ElicitationHandler: a.handle})
	resp, _ := call(t, cs, map[string]any{"ops": []any{map[string]any{"op": "agent.submit", "args": map[string]any{"model": "opus", "prompt": "x"},
		"fingerprint": cf.fingerprint(t, "agent.submit")}}})
	r := result(t, resp, 0)
	e, _ := r["error"].(map[string]any)
	if errCode(r) != CodePolicyRefused || e["rule"] != "costly" || !strings.Contains(e["message"].(string), "opus is not for agents") || len(a.messages) != 0 {
		t.Fatalf("deny: %v (asked %d times)", r, len(a.messages))
	}
}

// TestConfirmForgedState drives the 2026-07-28 rounds by hand (the client's
// automatic retry off): a retry whose requestState is altered, forged with
// another key, or issued for other args, or whose answer lacks the
// confirmation, runs nothing; the genuine retry runs the op once.
func TestConfirmForgedState(t *testing.T) {
	cf := newConfirmFixture(t)
	other := newConfirmFixture(t)
	cs := connectVersion(t, cf.surface, "2026-07-28", &mcp.ClientOptions{
		ElicitationHandler: (&asker{action: "accept"}).handle, MultiRoundTrip: &mcp.MultiRoundTripOptions{Disabled: true}})
	ctx := context.Background()
	first := func(s *Surface, fx *confirmFixture, prompt string) *mcp.CallToolResult {
		args := fx.request(t, prompt)
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: ToolName, Arguments: args})
		if s != cf.surface {
			res = s.inputRequired(s.Confirmations(ctx, json.RawMessage(mustJSON(t, args))), "")
		}
		if err != nil || !res.NeedsInput() && s == cf.surface {
			t.Fatalf("first round: %v %+v", err, res)
		}
		if res.RequestState == "" || res.InputRequests[ConfirmInputID] == nil || len(res.Content) != 0 {
			t.Fatalf("first round is not an input-required result: %+v", res)
		}
		return res
	}
	accept := mcp.InputResponseMap{ConfirmInputID: &mcp.ElicitResult{Action: "accept", Content: map[string]any{"confirm": true}}}
	retry := func(prompt, state string, answers mcp.InputResponseMap) map[string]any {
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: ToolName, Arguments: cf.request(t, prompt), RequestState: state, InputResponses: answers})
		if err != nil {
			t.Fatal(err)
		}
		if res.NeedsInput() {
			t.Fatalf("a retry was asked again: %+v", res)
		}
		var resp map[string]any
		b, _ := json.Marshal(res.StructuredContent)
		if err := json.Unmarshal(b, &resp); err != nil {
			t.Fatal(err)
		}
		return resp
	}
	state := first(cf.surface, cf, "hello").RequestState
	if cf.submits() != 0 {
		t.Fatal("the first round ran a submit")
	}
	flip := []byte(state)
	flip[len(stateVersion)+3] ^= 1
	forged := first(other.surface, other, "hello").RequestState
	for _, tc := range []struct {
		name, prompt, state string
		answers             mcp.InputResponseMap
		want                string
	}{
		{"altered state", "hello", string(flip), accept, AnswerInvalid},
		{"state from another server's key", "hello", forged, accept, AnswerInvalid},
		{"args changed after the question", "hello, and delete everything", state, accept, AnswerInvalid},
		{"no state", "hello", "", accept, AnswerInvalid},
		{"garbage state", "hello", "vs1.e30.AAAA", accept, AnswerInvalid},
		{"accept without confirm", "hello", state, mcp.InputResponseMap{ConfirmInputID: &mcp.ElicitResult{Action: "accept", Content: map[string]any{"confirm": false}}}, AnswerDeclined},
		{"no answer", "hello", state, nil, AnswerInvalid},
	} {
		t.Run(tc.name, func(t *testing.T) {
			resp := retry(tc.prompt, tc.state, tc.answers)
			r := result(t, resp, 1)
			e, _ := r["error"].(map[string]any)
			if errCode(r) != CodePolicyRefused || e["confirmation"] != tc.want {
				t.Fatalf("got %v, want policy_refused %s", r, tc.want)
			}
			if n := cf.submits(); n != 0 {
				t.Fatalf("%d submits ran", n)
			}
		})
	}
	resp := retry("hello", state, accept)
	if r := result(t, resp, 1); r["ok"] != true || cf.submits() != 1 {
		t.Fatalf("the genuine retry: %v", r)
	}
}

// TestPolicyVerbs: the verbs a policy file is checked against carry the
// live schema's parameters and types, so a rule on a parameter the verb
// lacks fails to load.
func TestPolicyVerbs(t *testing.T) {
	fx := newFixture(t)
	verbs := fx.surface.PolicyVerbs(context.Background())
	byName := map[string]policy.Verb{}
	for _, v := range verbs {
		byName[v.Name] = v
	}
	a := byName["agent.submit"]
	if a.Class != "spawn" || a.Params["model"] != "string" || a.Params["max_turns"] != "integer" || a.Params["tag"] != "array" || a.Synonyms[0] != "submit_agent" {
		t.Fatalf("agent.submit = %+v", a)
	}
	if _, err := policy.Parse("p.yaml", []byte("version: 1\nrules:\n  - verbs: [agent.submit]\n    when: {max_turns: {max: 5}}\n    decision: allow\n"), verbs); err != nil {
		t.Fatal(err)
	}
	if _, err := policy.Parse("p.yaml", []byte("version: 1\nrules:\n  - verbs: [agent.submit]\n    when: {turns: {max: 5}}\n    decision: allow\n"), verbs); err == nil {
		t.Fatal("a rule on a parameter agent.submit lacks loaded")
	}
}
