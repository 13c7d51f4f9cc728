//go:build unix

// Command verbsurface fronts any CLI that has a machine mode as exactly one
// MCP tool, configured by one YAML file and no Go:
//
//	verbsurface serve -c notes.yaml       # the one tool on stdin/stdout
//	verbsurface serve -c notes.yaml --http 127.0.0.1:8765   # streamable HTTP
//	verbsurface call -c notes.yaml '{"help":true}'
//	verbsurface check -c notes.yaml       # config and every verb; non-zero on any problem
//	verbsurface inventory -c notes.yaml   # what the server would really offer
//
// The configuration names the command to run, how to put it into machine
// mode (arguments, at the root or after the command path), where its
// parser comes from (an argparse or click target walked in Python, a
// cobra CLI's __verbsurface-tree command, or a tree file), the variables
// it may see, the parameters no caller may set, the fenced commands, the
// verbs (one of another class whose command starts runs, a scheduler's
// tick, says spawns: true, and each of its ops takes a token of the spawn
// rate), the roots under which callers may name files, and a policy file
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
// --session-timeout and at most --max-sessions are open (then 503). All
// token holders share one spawn rate, as limcp mcp's do: one token is one
// principal, and a bucket per session would let its holder multiply the
// rate by opening sessions. Callers may name
// files only under the configuration's roots: (none by default), and
// env.pass may not list VERBSURFACE_TOKEN. The token leaves the server's
// environment once read, and the server is undumpable from its first
// instruction (on Linux prctl(PR_SET_DUMPABLE, 0): no process of its user
// reads its /proc/PID/environ or memory; see the repository's SECURITY.md
// for macOS and FreeBSD).
package main
