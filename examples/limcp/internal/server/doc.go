//go:build unix

// Package server is limcp's MCP server face, `limcp mcp`: the packages of
// verbsurface assembled over limcp's own command tree.
//
// # What it serves
//
// One tool, "request" (package verbsurface), over stdio by default or
// streamable HTTP. The schemas of its verbs are projected live from the
// cobra tree compiled into this binary (projector/fromcobra), with the
// flags in [ExcludedFlags] left out of every schema: json (machine mode is
// the server's), home (a caller must not repoint the state directory),
// notify-url and notify-command (a caller must never attach a notify: a
// command would be arbitrary code execution). Every verb runs as a
// subprocess of the limcp executable the server resolved once at start
// (package dispatch, machine flag --json), with the state home in
// $LIMCP_HOME. If that executable changes on disk, every verb becomes
// unavailable until the server is restarted: the schemas describe the tree
// compiled into this process.
//
// The verb table (verbs.go) is the allowlist: spawn verbs agent.submit,
// fanout.submit, flow.submit and play.submit (fingerprint required; prompts
// snapshotted by dispatch.PromptSnapshots; play.submit's "playbook"
// injects the playbook's args through playbook.Inject), the observe verbs
// job.status, job.output, job.list, job.wait and the read-only long tail,
// and the control verbs job.kill, schedule.add|remove|tick, team.create|post.
// schedule.tick starts runs, so it is marked verbsurface.Verb.Spawns and
// pays for them: its handler counts the schedules due, takes that many
// tokens of the caller's spawn bucket and, under a policy's live_runs, no
// more than may still be live, and runs `limcp schedule tick
// --spawn-budget=N`, which starts at most N and defers the rest (still
// due); the unspent tokens go back. --now and --spawn-budget are in
// [ExcludedFlags]: no caller chooses the clock or the budget.
// state migrate, plugin trust and hooks trust are fenced
// (verbsurface.DefaultFence). The v1 tool names are synonyms until
// [SynonymSunset], already past: they are rejected naming the verb to use.
//
// # job.wait
//
// A handler over package wait whose Observer runs `limcp job observe
// --json -- IDS...` once per poll for every id. Two early-wake sources
// shorten the time from a run's end to the wait's return; polling stays
// the correctness path:
//
//   - a change signal on the store, read without opening it: kernel file
//     events on the state home (through fsnotify: inotify on Linux, kqueue
//     on macOS and FreeBSD) for writes to state.db and state.db-wal (a
//     session that only reads modifies neither), with a stat-polling
//     fallback;
//   - terminal notifications (issue 9): the server listens on a loopback
//     HTTP endpoint with an unguessable path and sets [NotifyURLEnv] in the
//     environment of every command it runs, so the runs it submits notify
//     it when they end. A notification only wakes waits: it is a prompt to
//     read state, not proof of it. A run submitted elsewhere carries no such
//     notify and is still observed correctly.
//
// # job.kill
//
// A handler over package kill: the record's kind comes from `limcp job
// status`, kill.Decide chooses, and the kill is delegated to `limcp kill`,
// which reaps transitively and records every end. No raw-signal fallback.
//
// # Secrets and paths
//
// The commands that start runs (agent, fanout, flow, play, schedule tick)
// get the variables providers.yaml passes through; every other command
// does not, and a run's worker gets them on a pipe, never in its
// environment. Every limcp process is undumpable (internal/nodump), and
// the bearer token leaves the server's environment once read. Every error
// a command returns is scrubbed of the server's paths before a caller
// reads it (the executable reads limcp, the home $LIMCP_HOME, the server's
// directory .). Each command carries the server's timeout and pid
// (LIMCP_COMMAND_TIMEOUT, LIMCP_PARENT_PID) and stops itself once the
// server is gone, where no parent-death signal reaches it.
//
// # One writer
//
// The server never writes the lifecycle store: it does not import the
// store package or any SQLite driver (a test holds its transitive imports
// to that), and every write — submit, kill, the fenced reap inside job
// observe, schedules, teams — is a limcp subprocess. The CLI is the one
// writer.
//
// # Transports
//
// `limcp mcp` (package cli) builds a [Server] with [New] and serves it with
// [Server.ServeStdio], or with [Listen] and [Server.ServeHTTP]. The HTTP
// face is package mcphttp's, shared with `verbsurface serve --http`; this
// package keeps limcp's names for it (TokenEnv, TokenFileName, the "limcp
// mcp" in refusals). It assumes a hostile network, loopback included
// (another local user can reach a loopback port):
//
//   - Every request carries the bearer token or gets 401 with
//     "WWW-Authenticate: Bearer". The token is $LIMCP_MCP_TOKEN or
//     --token-file ([ReadTokenFile]: the user's own file, no group or
//     other bits); with neither, [EnsureTokenFile] generates one into
//     HOME/mcp-token (0600). Every token is at least [MinTokenLength]
//     characters. Serving with no token at all (--insecure-no-auth) is
//     loopback only, which [Listen] enforces on the address actually bound.
//   - A browser page of a foreign Origin gets 403 on every method, unless
//     the operator lists the origin ([HTTPOptions].AllowOrigins,
//     --allow-origin); same-origin and Origin-less requests pass. The SDK's
//     DNS-rebinding check (a loopback connection with a foreign Host) stays on.
//   - Clients on protocol versions before 2026-07-28 open sessions: an idle
//     one closes after [HTTPOptions].SessionTimeout, and at most
//     [HTTPOptions].MaxSessions are open at once (the next initialize gets
//     503 saying why).
//
// [Server.HTTPHandler] lists the checks in the order a request meets them.
package server
