package policy_test

import (
	"fmt"

	"github.com/verbsurface/verbsurface/policy"
)

// Two callers, the same op: the verified caller (from an OAuth token) is
// judged beside the verb and its arguments.
func ExamplePolicy_EvaluateAs() {
	p, err := policy.Parse("policy.yaml", []byte(`version: 1
default: deny
rules:
  - name: oncall-submits
    verbs: [agent.submit]
    who: {groups: [oncall]}
    scopes: [verbsurface:write]
    decision: allow
`), verbs)
	if err != nil {
		fmt.Println(err)
		return
	}
	alice := &policy.Who{Subject: "alice", Scopes: []string{"verbsurface:write"}, Claims: map[string][]string{"groups": {"oncall"}}}
	bob := &policy.Who{Subject: "bob", Scopes: []string{"verbsurface:write"}, Claims: map[string][]string{"groups": {"dev"}}}
	args := map[string]any{"model": "echo", "prompt": "hi"}
	fmt.Println(p.EvaluateAs(alice, "agent.submit", args).Decision)
	fmt.Println(p.EvaluateAs(bob, "agent.submit", args).Decision)
	fmt.Println(p.EvaluateAs(nil, "agent.submit", args).Decision)
	fmt.Println(p.Claims())
	// Output:
	// allow
	// deny
	// deny
	// [groups]
}
