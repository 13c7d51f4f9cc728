//go:build unix

// Command verbsurface fronts a CLI as exactly one MCP tool, configured by
// one YAML file and no Go: a program written for the machine-result
// contract, or one of the programs people already run (a linter, a
// formatter, a program printing a JSON listing), with its real output.
//
//	verbsurface serve -c yamllint.yaml       # the one tool on stdin/stdout
//	verbsurface serve -c yamllint.yaml --http 127.0.0.1:8765   # streamable HTTP
//	verbsurface call -c yamllint.yaml '{"help":true}'
//	verbsurface check -c yamllint.yaml       # errors: exit 1; warnings only: exit 0
//	verbsurface inventory -c yamllint.yaml   # what the server would really offer
//	verbsurface install claude -c yamllint.yaml   # connect a client (see install)
//	verbsurface version                      # the same line as --version
//
// call prints the response and exits as `limcp call` does: 0 when its
// status is "success", 2 when "partial" (some parts succeeded, some
// failed), 1 when "error" (nothing succeeded) or the request could not be
// answered at all.
//
// The configuration names the command to run; how it answers (output:
// envelope, the machine-result contract, or json, jsonl or text, with the
// exit statuses that mean success in ok_exit: a linter's findings exit 1);
// how to put it into machine mode where it has one (machine:, at the root
// or after the command path); where its parser comes from (an argparse or
// click target walked in Python, a cobra CLI's __verbsurface-tree command,
// an installed cobra binary read from its own completion protocol and
// --help (source: {cobra: [BINARY]}), or a tree file); the directory it
// runs in (cwd:); the variables it may see; the parameters no caller may
// set (exclude:); the fenced commands; the verbs (one of another class
// whose command starts runs, a scheduler's tick, says spawns: true, and
// each of its ops takes a token of the spawn rate); the roots under which
// callers may name files; a policy file (package policy: allow, ask or
// deny per verb and argument, loaded against the live verbs at start; limits.live_runs and
// limits.live_runs_per_subject are refused, since only limcp's server can count a CLI's live runs,
// unless the front has background verbs, whose runs it counts itself, by the subject each records); and, for a CLI with
// background runs, wait: and kill: (job.wait over package wait and the
// CLI's observe command, job.kill over package kill and the CLI's own
// kill: the keys are documented on WaitConfig and KillConfig).
//
// A verb names its command path ([] is the program's root command, so a
// single-command program is a verb) and may set its own output:, ok_exit:,
// cwd: and machine: (machine: {} says none), fixed args: that no caller
// sees or sets, its own exclude:, the files: its parameters name (path
// kinds read, write, dir, read_or_dir, or none for "not a path"), and a
// stored_command: guard for a parameter holding a command line the CLI
// stores and runs later (read with the parser model, and refused when it
// runs a command not allowed, or sets an excluded, machine, fixed or path
// parameter). A spawn verb may say background: true: its op starts the
// command detached under a supervisor (this binary, re-executed as the
// hidden __supervise-run) and answers at once with a run id, and the front
// keeps the runs' lifecycle in its state directory and offers job.status,
// job.list, job.output, job.wait and job.kill for them (package
// background; background.go opens it). Every key
// is documented in docs/fronting.md.
//
// # Output
//
// Under json, jsonl and text the program's output is data and never
// control: an op's result is {"output", "exit_code", "stderr",
// "replaced_bytes"} (contract C9 in CONTRACTS.md), whatever stdout says;
// an exit not in ok_exit is nonzero_exit carrying the exit code, the
// stderr tail and the output; stdout that is not what the mode says is
// invalid_result with an excerpt. machine: is optional there.
//
// # Names, paths and check
//
// The file is one YAML document; an unknown key is refused with its file,
// line and name. Every parameter the file names must exist: a top-level
// exclude: name on some command of the tree, a verb's exclude:, files: and
// stored_command: names on its command; otherwise check fails and serve
// refuses to start (even with --tolerate-unavailable: a misspelt name
// leaves open what the operator meant to close), naming the file, the line
// and the field. A verb that takes paths and sets cwd: must run inside a
// root: the CLI reads its own files relative to where it runs. check warns,
// naming the verb and the parameter, about every string parameter that
// looks like a path (projector.LooksLikePath: a name or metavar such as
// file, path, dir, output, config, FILE) and is neither marked nor
// excluded; warnings do not fail check (exit 0, "ok: N verbs offered, W
// warnings"); serve prints them on stderr and serves. The cwd is the
// operator's: no caller chooses the directory a program runs in (a
// program's own directory option, marked dir in files:, is how a caller
// names one, confined to the roots).
//
// Schemas stay live: the tree is read again when the executable, the
// script, the Python module or the cobra binary (size, mtime, inode)
// changes.
//
// # HTTP
//
// serve --http ADDR serves the tool at http://ADDR/mcp through package
// mcphttp, with the flags and rules of `limcp mcp --http`: every request
// carries the bearer token (else 401 with "WWW-Authenticate: Bearer"). The
// token is $VERBSURFACE_TOKEN or the first line of --token-file (owned by
// the server's user, no group or other bits, at least 32 characters); with
// neither, one is generated into $XDG_STATE_HOME/verbsurface/NAME/mcp-token
// (NAME is the configuration's name; XDG_STATE_HOME defaults to
// ~/.local/state), 0600 in a directory that must be 0700 and the server's
// user's, and reused on the next start. Never beside the configuration: a
// checkout or a shared directory is no place for a secret. The client line
// printed on stderr reads the token from where it is and never holds it.
// Without a configured token only loopback is served; --insecure-no-auth
// serves loopback with no token at all. A foreign browser Origin gets 403
// unless listed with --allow-origin; idle sessions close after
// --session-timeout and at most --max-sessions are open (then 503). Every
// connection is bounded as limcp mcp's are, with the same flags
// (--max-conns, --read-timeout, --write-timeout, --idle-timeout,
// --max-body-bytes, --max-decoding-bytes; see package mcphttp): a
// connection without the token is closed after its first refusal and first
// to make room, and the request bodies being decoded at once are capped. All
// token holders share one spawn rate, as limcp mcp's do: one token is one
// principal, and a bucket per session would let its holder multiply the
// rate by opening sessions. Callers may name
// files only under the configuration's roots: (none by default; a file
// with more than one name is refused there unless allow_hard_links:
// true), and env.pass may not list VERBSURFACE_TOKEN. The token leaves the
// server's environment once read, and the server is undumpable from its
// first instruction (on Linux prctl(PR_SET_DUMPABLE, 0): no process of its
// user reads its /proc/PID/environ or memory; see the repository's
// SECURITY.md for macOS and FreeBSD).
package main
