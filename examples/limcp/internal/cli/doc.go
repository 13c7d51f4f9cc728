//go:build unix

// Package cli is limcp's command line: the cobra tree, machine mode, and
// the mapping of every failure to one machine-result error.
//
// [NewRoot] returns a fresh cobra tree on every call — the very tree
// [Main] parses — so the MCP server can project it (projector/fromcobra)
// and inject a playbook's flags into a fresh copy (playbook.Inject) without
// touching the tree another request uses. Building the tree does no I/O.
//
// # Machine mode
//
// With the persistent --json flag, every command — including cobra's own
// usage errors (unknown command or flag, wrong argument count, a bad flag
// value), help, and group commands run without a subcommand — prints
// exactly one machine result on stdout and nothing else there;
// human text goes to stderr. A failure exits non-zero with a valid error
// object: exit status 2 for usage_error, 1 for every other code. The codes
// are the closed set of package machine.
//
// Without --json, results are human text on stdout and errors go to stderr.
//
// # State home
//
// The home is --home, else $LIMCP_HOME, else $XDG_STATE_HOME/limcp, else
// ~/.local/state/limcp. It holds state.db (the store), runs/ (one directory
// per run: prompt.txt, stdout, stderr, worker.log), playbooks/,
// providers.yaml, config.yaml (the default notify setting) and notify.log.
//
// # Terminal notify
//
// The spawn commands take --notify-url and --notify-command (see package
// notify), privileged flags the MCP server excludes by name
// (notify.Flags); without them the run takes $LIMCP_NOTIFY_URL and
// config.yaml's default. Every store this binary opens starts the delivery
// of a run's end (notify.Hook) after the transition commits, in whichever
// command made it; `job observe` also restarts deliveries nobody is
// working on (notify.Sweep); the hidden __notify command is the delivery
// process.
//
// # Server, client and inventory
//
// `limcp mcp` serves the tree as one MCP tool through package server, which
// receives [NewRoot] as a function (it must not import this package: this
// package links the store). `limcp call` runs one request through package
// client. `limcp inventory` walks this tree as the server does (or an
// argparse CLI) and reports what projects and why not the rest.
// `limcp mcp install CLIENT` adds the server to an MCP client's user-wide
// configuration (the module's internal/clientconfig, which `verbsurface
// install` shares). `limcp mcp` started on a terminal says on stderr what
// it is and what to run instead, and serves on.
package cli
