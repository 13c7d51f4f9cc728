//go:build unix

// Command limcp is the reference CLI of verbsurface: it starts agent runs
// in the background, records their lifecycle durably in SQLite, and reports
// every result as one machine-readable JSON object with --json. See
// README.md for the commands, an example session and the error codes.
//
// The command tree and its machine mode live in internal/cli; the store in
// internal/store; submitting, the detached worker, observation (with the
// fenced reap) and transitive kill in internal/run; terminal notify (the
// setting, the delivery process) in internal/notify. The server face,
// `limcp mcp`, is internal/server (it never writes the store: every write
// is a limcp subprocess); `limcp call`, a one-request stdio MCP client, is
// internal/client; `limcp inventory` reports how much of a parser projects.
package main
