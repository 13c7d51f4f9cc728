// Package policy is one policy file and its evaluator: what the agents
// behind a verbsurface may do, decided per op on the verb and its
// validated arguments, the same way in the server, in a client's hooks and
// in any other tool that reads the file.
//
// # The file
//
// A policy is one YAML document with ordered rules; the first rule whose
// verbs match and whose conditions all hold decides allow, ask or deny,
// with a reason shown to the caller. When no rule matches, the default
// decides (deny unless the file says otherwise). Limits sit beside the
// rules: runs started per minute and live runs at once. [Parse] documents
// every key.
//
//	version: 1
//	default: deny
//	limits: {runs_per_minute: 30, live_runs: 8}
//	rules:
//	  - name: reads-are-free
//	    verbs: ["job.*", "inventory.*"]
//	    decision: allow
//	  - name: no-big-fanouts
//	    verbs: [flow.submit]
//	    when: {max_agents: {min: 9}}
//	    decision: deny
//	    reason: fanouts above 8 agents are refused
//	  - name: spawns-need-my-ok
//	    verbs: ["*.submit"]
//	    decision: ask
//	    reason: starting agents costs money
//
// # Failing loudly
//
// A policy is checked against the live surface's verbs when it loads
// ([Load], [Parse]): a rule naming a verb the surface does not have (a
// glob that matches none), or a parameter a matched verb's schema does not
// have, is a load error naming the file, line and field. With one tool, a
// policy that silently stops matching would fail open; here it fails at
// start. At evaluation, a verb the policy was not checked against is
// denied whatever the default says.
//
// # Where it is enforced
//
// [Policy.Decide] has the shape verbsurface.Options.Decide takes, so a
// surface enforces the file in the server (ask becomes an MCP elicitation
// there). [Hook] turns a Claude Code PreToolUse hook input into the hook's
// decision, and [EvalEnvelope] gives per-op decisions for any other
// client's hooks. [Audit] writes one JSON line per op. The package imports
// no MCP code and builds on every platform.
package policy
