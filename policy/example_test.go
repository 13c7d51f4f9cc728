package policy_test

import (
	"encoding/json"
	"fmt"
	"os"

	"github.com/verbsurface/verbsurface/policy"
)

// verbs is what a surface reports (verbsurface's Surface.PolicyVerbs).
var verbs = []policy.Verb{
	{Name: "agent.submit", Class: "spawn", Params: map[string]string{"model": "string", "prompt": "string"}},
	{Name: "fanout.submit", Class: "spawn", Params: map[string]string{"count": "integer", "prompt": "string"}},
	{Name: "job.status", Class: "observe", Params: map[string]string{"ids": "array"}},
}

const file = `version: 1
rules:
  - name: reads-are-free
    verbs: ["job.*"]
    decision: allow
  - name: no-big-fanouts
    verbs: [fanout.submit]
    when: {count: {min: 9}}
    decision: deny
    reason: fanouts above 8 are refused
  - name: spawns-need-my-ok
    verbs: ["*.submit"]
    decision: ask
`

func ExampleParse() {
	p, err := policy.Parse("policy.yaml", []byte(file), verbs)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(p.Evaluate("fanout.submit", map[string]any{"count": json.Number("20")}))
	fmt.Println(p.Evaluate("fanout.submit", map[string]any{"count": json.Number("4")}))
	fmt.Println(p.Evaluate("job.status", nil))
	fmt.Println(p.Evaluate("state.migrate", nil).Decision)

	_, err = policy.Parse("policy.yaml", []byte("version: 1\nrules:\n  - verbs: [job.stauts]\n    decision: allow\n"), verbs)
	fmt.Println(err)
	// Output:
	// {deny no-big-fanouts fanouts above 8 are refused}
	// {ask spawns-need-my-ok }
	// {allow reads-are-free }
	// deny
	// policy: policy.yaml:3: rule rules[0]: verbs: "job.stauts" matches no verb of this surface (its verbs: agent.submit, fanout.submit, job.status)
}

func ExampleHook() {
	p, _ := policy.Parse("policy.yaml", []byte(file), verbs)
	input := `{"session_id":"abc","hook_event_name":"PreToolUse","tool_name":"mcp__limcp__request",
	  "tool_input":{"ops":[{"op":"job.status","args":{"ids":["d62cd0c5"]}},{"op":"agent.submit","args":{"model":"sonnet","prompt":"hi"}}]}}`
	out := policy.Hook(p, nil, []byte(input), &policy.HookOptions{Server: "limcp"})
	json.NewEncoder(os.Stdout).Encode(out)

	// Another tool passes through: nothing to print.
	fmt.Println(policy.Hook(p, nil, []byte(`{"tool_name":"Bash","tool_input":{"command":"ls"}}`), nil) == nil)
	// Output:
	// {"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"ask","permissionDecisionReason":"policy: op 0 job.status: allow (rule reads-are-free); op 1 agent.submit: ask (rule spawns-need-my-ok)"}}
	// true
}

func ExampleEvalEnvelope() {
	p, _ := policy.Parse("policy.yaml", []byte(file), verbs)
	d := policy.EvalEnvelope(p, []byte(`{"ops":[{"op":"job.status"},{"op":"fanout.submit","args":{"count":12}}]}`))
	fmt.Println(d.Decision)
	for _, op := range d.Ops {
		fmt.Println(op.Index, op.Op, op.Decision.Decision, op.Rule)
	}
	// Output:
	// deny
	// 0 job.status allow reads-are-free
	// 1 fanout.submit deny no-big-fanouts
}
