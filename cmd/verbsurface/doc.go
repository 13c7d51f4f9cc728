//go:build unix

// Command verbsurface fronts any CLI that has a machine mode as exactly one
// MCP tool, configured by one YAML file and no Go:
//
//	verbsurface serve -c notes.yaml       # the one tool on stdin/stdout
//	verbsurface call -c notes.yaml '{"help":true}'
//	verbsurface check -c notes.yaml       # config and every verb; non-zero on any problem
//	verbsurface inventory -c notes.yaml   # what the server would really offer
//
// The configuration names the command to run, how to put it into machine
// mode (arguments, at the root or after the command path), where its
// parser comes from (an argparse or click target walked in Python, a
// cobra CLI's __verbsurface-tree command, or a tree file), the variables
// it may see, the parameters no caller may set, the fenced commands, the
// verbs, the roots under which callers may name files, and a policy file
// (package policy: allow, ask or deny per verb and argument, loaded against
// the live verbs at start; limits.live_runs is refused, since only limcp's
// server can count a CLI's live runs), and, for a CLI with background
// runs, wait: and kill: (job.wait over package wait and the CLI's observe
// command, job.kill over package kill and the CLI's own kill: the keys are
// documented on WaitConfig and KillConfig). The file is
// one YAML document; an unknown key is refused with its file, line and
// name. Schemas stay live: the tree is read again when the executable, the
// script or the Python module changes. See "Front your CLI in five
// minutes" in the README.
package main
