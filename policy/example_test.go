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

func ExampleOpenAudit() {
	dir, _ := os.MkdirTemp("", "audit")
	defer os.RemoveAll(dir)
	path := dir + "/audit.jsonl"
	a, err := policy.OpenAudit(path, &policy.AuditOptions{Args: true})
	if err != nil {
		fmt.Println(err)
		return
	}
	args := map[string]any{"model": "sonnet", "prompt": "summarize the repository"}
	a.Write(&policy.AuditRecord{Index: 0, Verb: "agent.submit", ArgsSHA256: "…", Args: policy.RedactArgs(args),
		Decision: policy.Ask, Rule: "spawns-need-my-ok", Confirmed: "accept", Result: "ok", RunIDs: []string{"d62cd0c5c7ca9b5d"}})
	a.Close()
	st, _ := os.Stat(path)
	b, _ := os.ReadFile(path)
	fmt.Println(st.Mode().Perm())
	fmt.Print(string(b))
	// Output:
	// -rw-------
	// {"time":"0001-01-01T00:00:00Z","index":0,"verb":"agent.submit","args_sha256":"…","args":{"model":"sonnet","prompt":{"size":24,"sha256":"0bdf1fe6979c66d56b11f5aa686267892e26e9263d1e312e14a8ccaf8d7339f4"}},"decision":"ask","rule":"spawns-need-my-ok","confirmed":"accept","result":"ok","duration_ms":0,"run_ids":["d62cd0c5c7ca9b5d"]}
}
