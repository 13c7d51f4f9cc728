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
// # Conditions on paths
//
// A condition on a parameter that names a file or directory (limcp's cwd,
// prompt_file and spec; a fork's path parameters) is judged, in the
// server, on the real path the op will run with: verbsurface opens every
// path argument inside the operator's roots before it asks the policy,
// and hands the policy the real path of what it opened. "/srv/./prod",
// "/srv/dev/../prod", "/srv//prod" and a symlink to /srv/prod all reach a
// rule as "/srv/prod", so a pattern such as "^/srv/prod(/|$)" cannot be
// bypassed by spelling the path another way. Write path patterns against
// real paths: if the root itself sits behind a symlink (/home → /usr/home),
// its real path is what the rule sees. An op whose path confinement
// refuses (outside the roots, missing, of the wrong type) is refused as
// invalid_args before any rule is asked, so the caller learns whether a
// path under a root exists even where a rule would deny it: a policy is no
// way to hide files under a root; leave them out of the roots.
//
// A condition that tests one value (in, not_in, pattern) on an array
// parameter, a linter's list of files, judges each element as if it were
// the op's only value, and the op gets the most restrictive decision: one
// file under prod denies the op (see [Policy.Evaluate]).
//
// A client's hook ([Hook], [EvalEnvelope]) sees only what the caller sent,
// before the server has opened anything: there a path condition judges the
// caller's string and can be bypassed by another spelling. The server's
// policy is the one that holds; a hook's path rules are advice.
//
// # Who is calling
//
// Over HTTP with OAuth, every op comes from a verified caller ([Who]: the
// token's subject, client id, scopes, and the claims the operator names).
// A rule may test it beside the verb and the arguments: who: lists values
// of subject, client_id or a named claim (groups, roles), and holds when
// the caller has one of them for every key; scopes: lists scopes the
// caller's token must all grant.
//
//	rules:
//	  - name: oncall-restarts
//	    verbs: [service.restart]
//	    who: {groups: [oncall]}
//	    scopes: [ops:write]
//	    decision: allow
//
// A rule with who or scopes never holds for a caller without an identity
// (stdio, the static token, a client's hook): [Policy.Evaluate] judges such
// a caller, [Policy.EvaluateAs] a named one. Limits may be set per subject
// too (runs_per_minute_per_subject, live_runs_per_subject).
//
// # Where it is enforced
//
// [Policy.Decide] (and [Policy.DecideAs], with the caller) has the shape verbsurface.Options.Decide takes, so a
// surface enforces the file in the server (ask becomes an MCP elicitation
// there). [Hook] turns a Claude Code PreToolUse hook input into the hook's
// decision, and [EvalEnvelope] gives per-op decisions for any other
// client's hooks. [Audit] writes one JSON line per op. The package imports
// no MCP code and builds on every platform.
package policy
