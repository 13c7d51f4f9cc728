// Package playbook loads limcp playbooks and injects their declared
// arguments into the CLI's `play` command as real flags.
//
// A playbook is <home>/playbooks/NAME.playbook.yaml:
//
//	description: Audit a code base
//	args:
//	  - name: depth
//	    type: int          # str, int, float or bool
//	    default: 2
//	    help: how deep to look
//	    choices: [1, 2, 3] # optional
//	  - name: target
//	    type: str
//	    required: true
//	flow:
//	  steps:
//	    - id: scan
//	      model: echo
//	      prompt: "Scan {{.args.target}} to depth {{.args.depth}}: {{.prompt}}"
//
// An arg with choices needs a default among them, or required: true: an
// omitted flag never reaches the run as a value the parser would refuse.
//
// # Injection
//
// [Inject] is the one place a playbook's args become flags: the CLI calls it
// before parsing `limcp play NAME ...`, and the MCP server's dynamic-parameter
// hook calls it on a fresh command tree before projecting, so help and
// execution see the same flags. It also pins the playbook content it read on
// the command (see [Injected]), so the run executes exactly the playbook the
// flags were built from, and returns the content fingerprint: "pf1-" and the
// first 16 hex digits of SHA-256 of the file's bytes (contract C2).
//
// What Inject does not do: it never runs anything and never reads the store.
package playbook
