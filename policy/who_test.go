package policy

import (
	"slices"
	"strings"
	"testing"
)

const whoPolicy = `
version: 1
default: deny
rules:
  - name: contractors-never-kill
    verbs: [job.kill]
    who: {groups: [contractors]}
    decision: deny
    reason: contractors may not stop runs
  - name: oncall-kills
    verbs: [job.kill]
    who: {groups: [oncall]}
    scopes: [ops:write]
    decision: allow
  - name: bob-asks
    verbs: [job.kill]
    who: {subject: [bob]}
    decision: ask
  - name: ci-bot-big-fanouts
    verbs: [fanout.submit]
    who: {client_id: [ci-bot]}
    when: {n: {min: 9}}
    decision: allow
  - name: reads
    verbs: [job.status, job.list]
    decision: allow
`

// TestEvaluateAs: who (subject, client_id, a named claim) and scopes sit
// beside verb and argument conditions; two subjects get different
// decisions for the same op, and a rule on who never matches a caller
// without an identity.
func TestEvaluateAs(t *testing.T) {
	p := mustParse(t, whoPolicy)
	kill := map[string]any{"id": "r1"}
	alice := &Who{Subject: "alice", Scopes: []string{"ops:write"}, Claims: map[string][]string{"groups": {"dev", "oncall"}}}
	for _, tc := range []struct {
		name     string
		who      *Who
		verb     string
		args     map[string]any
		decision string
		rule     string
	}{
		{"a group member with the scope is allowed", alice, "job.kill", kill, Allow, "oncall-kills"},
		{"the group without the scope is not", &Who{Subject: "alice", Claims: alice.Claims}, "job.kill", kill, Deny, RuleDefault},
		{"another subject, the same op, another decision", &Who{Subject: "bob"}, "job.kill", kill, Ask, "bob-asks"},
		{"a deny on a group comes first", &Who{Subject: "bob", Scopes: []string{"ops:write"}, Claims: map[string][]string{"groups": {"oncall", "contractors"}}}, "job.kill", kill, Deny, "contractors-never-kill"},
		{"no identity matches no who rule", nil, "job.kill", kill, Deny, RuleDefault},
		{"a subject named like a group is not in it", &Who{Subject: "oncall"}, "job.kill", kill, Deny, RuleDefault},
		{"client_id with an argument condition", &Who{Subject: "svc", ClientID: "ci-bot"}, "fanout.submit", map[string]any{"n": num("12")}, Allow, "ci-bot-big-fanouts"},
		{"client_id, the argument condition fails", &Who{Subject: "svc", ClientID: "ci-bot"}, "fanout.submit", map[string]any{"n": num("2")}, Deny, RuleDefault},
		{"rules without who hold for everyone", nil, "job.status", map[string]any{}, Allow, "reads"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d := p.EvaluateAs(tc.who, tc.verb, tc.args)
			if d.Decision != tc.decision || d.Rule != tc.rule {
				t.Errorf("EvaluateAs = %s by %s; want %s by %s", d.Decision, d.Rule, tc.decision, tc.rule)
			}
		})
	}
	if got := p.Claims(); !slices.Equal(got, []string{"groups"}) {
		t.Errorf("Claims() = %q; want [groups]", got)
	}
}

// TestParseWhoRefuses: a who or scopes the loader cannot hold to is a
// load error naming the rule.
func TestParseWhoRefuses(t *testing.T) {
	for _, tc := range []struct{ name, rule, want string }{
		{"an empty list", `who: {groups: []}`, "groups: list at least one value"},
		{"an empty who", `who: {}`, "who: empty"},
		{"a key that is no claim name", `who: {"my groups": [a]}`, `"my groups" is not subject, client_id or a claim's name`},
		{"a scope with a space", `scopes: ["a b"]`, `"a b" is not a scope`},
		{"who is a map of lists", `who: [oncall]`, "cannot unmarshal"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Parse("test.yaml", []byte("version: 1\nrules:\n  - name: r\n    verbs: [job.kill]\n    decision: allow\n    "+tc.rule+"\n"), testVerbs())
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("got %v; want an error containing %q", err, tc.want)
			}
		})
	}
}
