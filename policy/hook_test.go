package policy

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const hookPolicy = `
version: 1
default: deny
rules:
  - name: reads-are-free
    verbs: ["job.*"]
    decision: allow
  - name: big-fanouts
    verbs: [fanout.submit]
    when: {n: {min: 9}}
    decision: deny
    reason: fanouts above 8 are refused
  - name: cheap-agents
    verbs: [agent.submit]
    when: {model: {in: [haiku]}}
    decision: allow
  - name: spawns-need-my-ok
    verbs: ["*.submit"]
    decision: ask
    reason: starting agents costs money
`

// TestHookFixtures feeds PreToolUse inputs shaped exactly as Claude Code
// sends them (testdata/hook) and checks the decision and its reason.
func TestHookFixtures(t *testing.T) {
	p := mustParse(t, hookPolicy)
	for _, tc := range []struct {
		file     string
		decision string // "" : passes through, nothing printed
		reason   []string
	}{
		{"reads.json", Allow, []string{"op 0 job.status: allow (rule reads-are-free)", "op 1 job.list: allow"}},
		{"mixed.json", Ask, []string{"op 0 job.status: allow", "op 1 agent.submit: ask (rule spawns-need-my-ok): starting agents costs money"}},
		{"fanout.json", Deny, []string{"op 0 agent.submit: allow (rule cheap-agents)", "op 1 fanout.submit: deny (rule big-fanouts): fanouts above 8 are refused", "op 2 job.list: allow"}},
		{"help.json", Allow, []string{"discovery runs nothing"}},
		{"unknown-verb.json", Deny, []string{`"state.migrate" is not a verb this policy was checked against`}},
		{"synonym.json", Allow, []string{"op 0 submit_agent: allow (rule cheap-agents)"}},
		{"bad-envelope.json", Deny, []string{`op 0 has no string "op"`, "op 1 (job.list): args is not an object"}},
		{"truncated.json", Deny, []string{"the hook input is not JSON"}},
		{"bash.json", "", nil},
		{"other-mcp.json", "", nil},
	} {
		t.Run(tc.file, func(t *testing.T) {
			input, err := os.ReadFile(filepath.Join("testdata", "hook", tc.file))
			if err != nil {
				t.Fatal(err)
			}
			out := Hook(p, nil, input, nil)
			if tc.decision == "" {
				if out != nil {
					t.Fatalf("another tool's input got %+v; it must pass through", out)
				}
				return
			}
			if out == nil {
				t.Fatal("no decision")
			}
			hs := out.HookSpecificOutput
			if hs.HookEventName != "PreToolUse" || hs.PermissionDecision != tc.decision {
				t.Fatalf("got %+v, want %s", hs, tc.decision)
			}
			for _, want := range tc.reason {
				if !strings.Contains(hs.PermissionDecisionReason, want) {
					t.Errorf("reason %q lacks %q", hs.PermissionDecisionReason, want)
				}
			}
			// What is printed is exactly the documented shape.
			b, _ := json.Marshal(out)
			var shape map[string]map[string]string
			if err := json.Unmarshal(b, &shape); err != nil || len(shape) != 1 || len(shape["hookSpecificOutput"]) != 3 {
				t.Errorf("output %s is not {hookSpecificOutput: {hookEventName, permissionDecision, permissionDecisionReason}}", b)
			}
		})
	}
}

func TestHookWithoutPolicyDenies(t *testing.T) {
	input, err := os.ReadFile(filepath.Join("testdata", "hook", "reads.json"))
	if err != nil {
		t.Fatal(err)
	}
	out := Hook(nil, errors.New("policy: p.yaml:3: rule x: verbs: \"job.lsit\" matches no verb"), input, nil)
	if out == nil || out.HookSpecificOutput.PermissionDecision != Deny || !strings.Contains(out.HookSpecificOutput.PermissionDecisionReason, "job.lsit") {
		t.Fatalf("an unloadable policy gave %+v, want deny naming the load error", out)
	}
	// Another tool still passes through: a broken policy must not block
	// the client's unrelated tools.
	bash, _ := os.ReadFile(filepath.Join("testdata", "hook", "bash.json"))
	if out := Hook(nil, errors.New("x"), bash, nil); out != nil {
		t.Fatalf("Bash with no policy: %+v", out)
	}
}

func TestHookServerName(t *testing.T) {
	p := mustParse(t, hookPolicy)
	input, _ := os.ReadFile(filepath.Join("testdata", "hook", "reads.json"))
	if out := Hook(p, nil, input, &HookOptions{Server: "other"}); out != nil {
		t.Fatalf("a hook for server other judged mcp__limcp__request: %+v", out)
	}
	if out := Hook(p, nil, input, &HookOptions{Server: "limcp"}); out == nil || out.HookSpecificOutput.PermissionDecision != Allow {
		t.Fatalf("a hook for server limcp: %+v", out)
	}
	for _, name := range []string{"mcp____request", "request", "mcp__limcp__request2", "xmcp__limcp__request"} {
		if isRequestTool(name, nil) {
			t.Errorf("%q taken for the request tool", name)
		}
	}
	for _, in := range []string{`{"tool_name":"mcp__limcp__request","hook_event_name":"PostToolUse","tool_input":{"help":true}}`,
		`{"tool_name":"mcp__limcp__request","hook_event_name":"PreToolUse"}`, `{"tool_name":"mcp__limcp__request","tool_input":"ops"}`} {
		if out := Hook(p, nil, []byte(in), nil); out == nil || out.HookSpecificOutput.PermissionDecision != Deny {
			t.Errorf("%s: %+v, want deny", in, out)
		}
	}
}

func TestEvalEnvelope(t *testing.T) {
	p := mustParse(t, hookPolicy)
	e := EvalEnvelope(p, []byte(`{"ops":[{"op":"job.list"},{"op":"agent.submit","args":{"model":"opus"}}]}`))
	if e.Decision != Ask || len(e.Ops) != 2 || e.Ops[0].Decision.Decision != Allow || e.Ops[1].Rule != "spawns-need-my-ok" || e.Ops[1].Index != 1 {
		t.Fatalf("%+v", e)
	}
	if e := EvalEnvelope(p, []byte(`[1,2]`)); e.Decision != Deny {
		t.Fatalf("an array envelope: %+v", e)
	}
}
