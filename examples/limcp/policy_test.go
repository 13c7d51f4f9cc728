//go:build unix

package main

import (
	"bufio"
	"context"
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// e2ePolicy: reads are free, echo agents need the person's OK, big
// fanouts are refused.
const e2ePolicy = `version: 1
default: deny
rules:
  - name: reads-are-free
    verbs: ["job.*", monitor, stats]
    decision: allow
  - name: no-big-fanouts
    verbs: [fanout.submit]
    when: {count: {min: 9}}
    decision: deny
    reason: fanouts above 8 are refused
  - name: spawns-need-my-ok
    verbs: ["*.submit"]
    decision: ask
    reason: starting agents costs money
`

// secretPrompt must never reach the audit file.
const secretPrompt = "SECRET-PROMPT-TEXT please summarize the repository"

func (e *env) runCount() int {
	e.t.Helper()
	var st struct {
		Total int `json:"total"`
	}
	e.ok(&st, "stats")
	return st.Total
}

// dialPolicy starts `limcp mcp ARGS...` over stdio and opens a session on
// protocol version with the given client options.
func (e *env) dialPolicy(version string, opts *mcp.ClientOptions, args ...string) *mcpClient {
	e.t.Helper()
	cmd := execLimcp(e, nil, append([]string{"--home", e.home, "mcp"}, args...)...)
	log := &serverLog{}
	cmd.Stderr = log
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "e2e-policy", Version: "v1.2.3"}, opts).
		Connect(context.Background(), &mcp.CommandTransport{Command: cmd, TerminateDuration: 2 * time.Second},
			&mcp.ClientSessionOptions{ProtocolVersion: version})
	if err != nil {
		e.t.Fatalf("starting limcp mcp: %v\n%s", err, log)
	}
	if got := cs.InitializeResult().ProtocolVersion; got != version {
		e.t.Fatalf("negotiated %s, want %s", got, version)
	}
	e.t.Cleanup(func() { cs.Close() })
	return &mcpClient{t: e.t, cs: cs, home: e.home}
}

// dialPolicyHTTP is dialPolicy over streamable HTTP: `limcp mcp --http
// ARGS...` with its generated token, one server per client.
func (e *env) dialPolicyHTTP(version string, opts *mcp.ClientOptions, args ...string) *mcpClient {
	e.t.Helper()
	url := e.startHTTP("", args...)
	token, err := os.ReadFile(filepath.Join(e.home, "mcp-token"))
	if err != nil {
		e.t.Fatal(err)
	}
	tr := &mcp.StreamableClientTransport{Endpoint: url, HTTPClient: &http.Client{Transport: bearer{token: strings.TrimSpace(string(token)), base: http.DefaultTransport}}}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "e2e-policy", Version: "v1.2.3"}, opts).
		Connect(context.Background(), tr, &mcp.ClientSessionOptions{ProtocolVersion: version})
	if err != nil {
		e.t.Fatalf("connecting to limcp mcp --http: %v", err)
	}
	if got := cs.InitializeResult().ProtocolVersion; got != version {
		e.t.Fatalf("negotiated %s, want %s", got, version)
	}
	e.t.Cleanup(func() { cs.Close() })
	return &mcpClient{t: e.t, cs: cs, home: e.home}
}

// person answers elicitations.
type person struct {
	mu     sync.Mutex
	action string
	delay  time.Duration
	asked  []string
}

func (p *person) answer(_ context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
	p.mu.Lock()
	p.asked = append(p.asked, req.Params.Message)
	action, delay := p.action, p.delay
	p.mu.Unlock()
	time.Sleep(delay)
	if action == "accept" {
		return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"confirm": true}}, nil
	}
	return &mcp.ElicitResult{Action: action}, nil
}

func (p *person) questions() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]string(nil), p.asked...)
}

// TestPolicyConfirmE2E: limcp mcp --policy, on protocol 2026-07-28 (the
// input-required round trip) and 2025-11-25 (elicitation/create), with
// go-sdk clients that implement elicitation: accept runs the op and the
// run exists; decline and an answer past --confirm-within leave no run; a
// client without elicitation gets the documented refusal. Every op of the
// journey has exactly one audit line, refused ones included, and the
// prompt's text is nowhere in the audit.
func TestPolicyConfirmE2E(t *testing.T) {
	for _, c := range []struct{ version, transport string }{
		{"2026-07-28", "stdio"}, {"2025-11-25", "stdio"}, {"2026-07-28", "HTTP"}, {"2025-11-25", "HTTP"},
	} {
		version := c.version
		t.Run(version+"/"+c.transport, func(t *testing.T) {
			e := newEnv(t)
			dial := e.dialPolicy
			if c.transport == "HTTP" {
				dial = e.dialPolicyHTTP
			}
			pol := e.writeFile("policy.yaml", e2ePolicy)
			audit := filepath.Join(e.home, "audit.jsonl")
			p := &person{action: "accept"}
			c := dial(version, &mcp.ClientOptions{ElicitationHandler: p.answer},
				"--policy", pol, "--audit", audit, "--audit-args", "--confirm-within", "2s", "--no-notify")
			fp := c.help("agent.submit").SchemaFingerprint
			ops := 0 // ops sent in requests that ran (help is not an op)
			submit := func() mcpResp {
				ops += 2
				return c.request(map[string]any{"ops": []any{
					map[string]any{"op": "job.list", "args": map[string]any{}},
					map[string]any{"op": "agent.submit", "args": map[string]any{"model": "echo", "prompt": secretPrompt}, "fingerprint": fp}}})
			}

			// Accept: the op runs and its run exists.
			r := submit()
			if len(r.Results) != 2 || !r.Results[0].OK || !r.Results[1].OK {
				t.Fatalf("accepted: %s", r.raw)
			}
			var s submitted
			json.Unmarshal(r.Results[1].Result, &s)
			if rec := e.status(s.ID); rec.ID != s.ID {
				t.Fatalf("the accepted run %s does not exist", s.ID)
			}
			e.waitTerminal(s.ID)
			q := p.questions()
			if len(q) != 1 || !strings.Contains(q[0], "agent.submit (rule spawns-need-my-ok: starting agents costs money)") || !strings.Contains(q[0], "model: echo") {
				t.Fatalf("questions: %q", q)
			}
			runs := e.runCount()

			// Decline and expiry: nothing runs.
			for _, tc := range []struct {
				action, want string
				delay        time.Duration
			}{{"decline", "declined", 0}, {"cancel", "cancelled", 0}, {"accept", "expired", 2500 * time.Millisecond}} {
				p.mu.Lock()
				p.action, p.delay = tc.action, tc.delay
				p.mu.Unlock()
				r := submit()
				o := r.Results[1]
				if o.OK || o.Error.Code != "policy_refused" || !strings.Contains(string(o.raw), `"confirmation":"`+tc.want+`"`) {
					t.Fatalf("%s: %s", tc.want, r.raw)
				}
				if !r.Results[0].OK {
					t.Fatalf("%s: job.list did not run: %s", tc.want, r.raw)
				}
				if n := e.runCount(); n != runs {
					t.Fatalf("%s left %d runs, want %d", tc.want, n, runs)
				}
			}

			// Deny: refused with the rule and reason, nobody asked.
			before := len(p.questions())
			ops++
			o := c.fail("policy_refused", "fanout.submit", map[string]any{"count": 20, "prompt": "x", "model": "echo"}, c.help("fanout.submit").SchemaFingerprint)
			if !strings.Contains(o.Error.Message, "fanouts above 8 are refused") || !strings.Contains(string(o.raw), `"rule":"no-big-fanouts"`) || len(p.questions()) != before {
				t.Fatalf("deny: %s", o.raw)
			}

			// A client without elicitation: the documented refusal.
			bare := dial(version, nil, "--policy", pol, "--audit", audit, "--no-notify")
			ops++
			o = bare.fail("policy_refused", "agent.submit", map[string]any{"model": "echo", "prompt": secretPrompt}, fp)
			if !strings.Contains(o.Error.Message, "cannot ask its person") || !strings.Contains(o.Error.Message, "rule spawns-need-my-ok") {
				t.Fatalf("no elicitation: %s", o.raw)
			}
			if n := e.runCount(); n != runs {
				t.Fatalf("runs %d, want %d", n, runs)
			}
			bare.cs.Close()
			c.cs.Close()

			// The audit: one line per op, the refused included; no prompt text.
			raw, err := os.ReadFile(audit)
			if err != nil {
				t.Fatal(err)
			}
			if strings.Contains(string(raw), "SECRET-PROMPT") {
				t.Fatal("the prompt's text is in the audit")
			}
			st, _ := os.Stat(audit)
			if st.Mode().Perm() != 0o600 {
				t.Errorf("audit mode %v", st.Mode().Perm())
			}
			var lines []map[string]any
			sc := bufio.NewScanner(strings.NewReader(string(raw)))
			for sc.Scan() {
				var l map[string]any
				if err := json.Unmarshal(sc.Bytes(), &l); err != nil {
					t.Fatalf("audit line %q: %v", sc.Text(), err)
				}
				lines = append(lines, l)
			}
			if len(lines) != ops {
				t.Fatalf("%d audit lines for %d ops:\n%s", len(lines), ops, raw)
			}
			first := lines[1]
			if first["verb"] != "agent.submit" || first["decision"] != "ask" || first["confirmed"] != "accept" || first["result"] != "ok" ||
				first["client"] != "e2e-policy" || first["client_version"] != "v1.2.3" || len(first["args_sha256"].(string)) != 64 {
				t.Errorf("accepted op's line: %v", first)
			}
			if ids, _ := first["run_ids"].([]any); len(ids) != 1 || ids[0] != s.ID {
				t.Errorf("run_ids %v, want [%s]", first["run_ids"], s.ID)
			}
			if args, _ := first["args"].(map[string]any); args["model"] != "echo" || args["prompt"].(map[string]any)["size"] != float64(len(secretPrompt)) {
				t.Errorf("--audit-args line args: %v", first["args"])
			}
			last := lines[len(lines)-1]
			if last["result"] != "policy_refused" || last["confirmed"] != "unavailable" {
				t.Errorf("last line %v", last)
			}
		})
	}
}

// TestPolicyForgedStateE2E: on 2026-07-28 with the rounds driven by hand,
// an altered requestState runs nothing, and the genuine one runs the op.
func TestPolicyForgedStateE2E(t *testing.T) {
	e := newEnv(t)
	pol := e.writeFile("policy.yaml", e2ePolicy)
	c := e.dialPolicy("2026-07-28", &mcp.ClientOptions{ElicitationHandler: (&person{action: "accept"}).answer,
		MultiRoundTrip: &mcp.MultiRoundTripOptions{Disabled: true}}, "--policy", pol, "--no-notify")
	fp := c.help("agent.submit").SchemaFingerprint
	args := map[string]any{"ops": []any{map[string]any{"op": "agent.submit", "args": map[string]any{"model": "echo", "prompt": "hi"}, "fingerprint": fp}}}
	ctx := context.Background()
	res, err := c.cs.CallTool(ctx, &mcp.CallToolParams{Name: "request", Arguments: args})
	if err != nil || !res.NeedsInput() || res.RequestState == "" {
		t.Fatalf("first round: %v %+v", err, res)
	}
	if n := e.runCount(); n != 0 {
		t.Fatalf("the first round ran %d", n)
	}
	accept := mcp.InputResponseMap{"confirm": &mcp.ElicitResult{Action: "accept", Content: map[string]any{"confirm": true}}}
	altered := []byte(res.RequestState)
	altered[10] ^= 2
	for _, state := range []string{string(altered), res.RequestState[:len(res.RequestState)-2]} {
		r, err := c.cs.CallTool(ctx, &mcp.CallToolParams{Name: "request", Arguments: args, RequestState: state, InputResponses: accept})
		if err != nil {
			t.Fatal(err)
		}
		b, _ := json.Marshal(r.StructuredContent)
		if !strings.Contains(string(b), `"confirmation":"invalid"`) || e.runCount() != 0 {
			t.Fatalf("altered state: %s", b)
		}
	}
	r, err := c.cs.CallTool(ctx, &mcp.CallToolParams{Name: "request", Arguments: args, RequestState: res.RequestState, InputResponses: accept})
	if err != nil || r.IsError {
		t.Fatalf("genuine retry: %v %+v", err, r)
	}
	if n := e.runCount(); n != 1 {
		t.Fatalf("%d runs after the genuine retry, want 1", n)
	}
}

// TestPolicyLimitsConcurrentSessions: a policy file's runs_per_minute and
// live_runs hold across 8 clients of one HTTP server submitting at once,
// four with a session and four on protocol 2026-07-28 without one:
// exactly the limit's worth of runs start, the rest are refused and start
// nothing.
func TestPolicyLimitsConcurrentSessions(t *testing.T) {
	const token = "policy-limits-token-0123456789abcdef"
	for _, tc := range []struct {
		name, limits, model, code string
		want                      int
	}{
		{"runs_per_minute", "{runs_per_minute: 3}", "echo", "rate_limited", 3},
		{"live_runs", "{live_runs: 2}", "echo:delay=60s", "policy_refused", 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := newEnv(t)
			pol := e.writeFile("policy.yaml", "version: 1\nlimits: "+tc.limits+"\nrules:\n  - verbs: [\"*\"]\n    decision: allow\n")
			url := e.startHTTP(token, "--policy", pol, "--no-notify")
			clients := make([]*mcpClient, 8)
			for i := range clients { // half with a session, half on 2026-07-28 without one
				clients[i] = e.dialHTTPAt(url, token, protocolPaths[i%len(protocolPaths)].version)
			}
			fp := clients[0].help("agent.submit").SchemaFingerprint
			results := make([]*mcpOp, len(clients))
			var wg sync.WaitGroup
			for i, c := range clients {
				wg.Add(1)
				go func() {
					defer wg.Done()
					r := c.request(map[string]any{"ops": []any{map[string]any{"op": "agent.submit",
						"args": map[string]any{"model": tc.model, "prompt": "p"}, "fingerprint": fp}}})
					results[i] = r.Results[0]
				}()
			}
			wg.Wait()
			ok := 0
			for _, o := range results {
				switch {
				case o.OK:
					ok++
				case o.Error.Code != tc.code:
					t.Errorf("refused with %s, want %s: %s", o.Error.Code, tc.code, o.raw)
				case tc.code == "policy_refused" && !strings.Contains(o.Error.Message, "allows 2 live runs at once"):
					t.Errorf("refusal does not name the limit: %s", o.Error.Message)
				}
			}
			if ok != tc.want {
				t.Fatalf("%d of 8 concurrent submits started, want %d", ok, tc.want)
			}
			if n := e.runCount(); n != tc.want {
				t.Fatalf("%d runs in the store, want %d", n, tc.want)
			}
		})
	}
}

// TestPolicyCommandsE2E: limcp policy check, hook and eval through the
// binary. The hook is fed the PreToolUse inputs of package policy's
// fixtures (shaped as Claude Code sends them).
func TestPolicyCommandsE2E(t *testing.T) {
	e := newEnv(t)
	pol := e.writeFile("policy.yaml", e2ePolicy)
	e.ok(nil, "policy", "check", pol)
	bad := e.writeFile("bad.yaml", strings.Replace(e2ePolicy, "{count: {min: 9}}", "{agents: {min: 9}}", 1))
	r := e.fail("invalid_argument", "policy", "check", bad)
	if !strings.Contains(r.Error.Message, "bad.yaml:7: rule no-big-fanouts: when: agents: verb fanout.submit has no parameter \"agents\"") {
		t.Fatalf("check of a stale file: %s", r.Error.Message)
	}
	hook := func(input string, args ...string) (string, int) {
		cmd := execLimcp(e, nil, append([]string{"--home", e.home, "policy", "hook"}, args...)...)
		cmd.Stdin = strings.NewReader(input)
		out, err := cmd.Output()
		code := 0
		if err != nil {
			code = -1
		}
		return string(out), code
	}
	fixture := func(name string) string {
		b, err := os.ReadFile(filepath.Join("..", "..", "policy", "testdata", "hook", name))
		if err != nil {
			t.Fatal(err)
		}
		return strings.ReplaceAll(string(b), `"n":20`, `"count":20`)
	}
	for _, tc := range []struct {
		fixture, decision string
		args              []string
	}{
		{"reads.json", "allow", []string{"--policy", pol}},
		{"mixed.json", "ask", []string{"--policy", pol}},
		{"fanout.json", "deny", []string{"--policy", pol}},
		{"truncated.json", "deny", []string{"--policy", pol}},
		{"reads.json", "deny", []string{"--policy", bad}},
		{"reads.json", "allow", []string{"--read-only"}},
		{"mixed.json", "deny", []string{"--read-only"}},
		{"bash.json", "", []string{"--policy", pol}},
		{"bash.json", "", []string{"--policy", bad}},
	} {
		out, code := hook(fixture(tc.fixture), tc.args...)
		if code != 0 {
			t.Errorf("%s %v: exit %d", tc.fixture, tc.args, code)
		}
		if tc.decision == "" {
			if out != "" {
				t.Errorf("%s: another tool's input got %q", tc.fixture, out)
			}
			continue
		}
		var ho struct {
			HookSpecificOutput struct {
				HookEventName, PermissionDecision, PermissionDecisionReason string
			} `json:"hookSpecificOutput"`
		}
		if err := json.Unmarshal([]byte(out), &ho); err != nil || ho.HookSpecificOutput.PermissionDecision != tc.decision || ho.HookSpecificOutput.HookEventName != "PreToolUse" {
			t.Errorf("%s %v: %q, want %s", tc.fixture, tc.args, out, tc.decision)
		}
	}
	var d struct {
		Decision string `json:"decision"`
		Ops      []struct {
			Op, Decision, Rule string
		} `json:"ops"`
	}
	e.ok(&d, "policy", "eval", pol, `{"ops":[{"op":"job.list"},{"op":"fanout.submit","args":{"count":20}}]}`)
	if d.Decision != "deny" || len(d.Ops) != 2 || d.Ops[1].Rule != "no-big-fanouts" || d.Ops[0].Decision != "allow" {
		t.Fatalf("eval: %+v", d)
	}
	// Nothing of this wrote the store.
	if _, err := os.Stat(filepath.Join(e.home, "state.db")); err == nil {
		t.Error("the policy commands created the store")
	}
}
