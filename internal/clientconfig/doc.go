// Package clientconfig connects an MCP client to a server in one step: it
// adds the server to the client's user-wide configuration through the
// client's own command-line program where it has one, and writes the
// client's documented configuration file where it does not. limcp's
// `limcp mcp install CLIENT` and `verbsurface install CLIENT -c FILE` are
// its two fronts; it is internal because its only callers are those two.
//
// # Clients
//
// Each is pinned to the version whose syntax was read (the reference is
// in the comment beside its code):
//
//   - claude (Claude Code 2.1): `claude mcp add NAME --scope user --env
//     K=V -- COMMAND ARGS...`, or `--transport http URL --header "..."`;
//     user scope, so the server is there in every directory, not only the
//     one it was added in. An existing name is found with `claude mcp get`.
//   - codex (Codex CLI 0.171): `codex mcp add NAME --env K=V -- COMMAND
//     ARGS...`, or `--url URL --bearer-token-env-var VAR`; Codex has one
//     (global) scope, and its add replaces an existing name silently, so
//     the name is looked up first with `codex mcp get NAME --json`.
//   - gemini (Gemini CLI 0.61): `gemini mcp add --scope user --env K=V
//     NAME COMMAND -- ARGS...`, or `--transport http --header "..." NAME
//     URL`; an existing name (which gemini would update silently) is found
//     in ~/.gemini/settings.json. With folder trust on, Gemini runs the
//     servers only in folders it trusts.
//   - cursor (Cursor): no command-line program adds a server, so the entry
//     is merged into ~/.cursor/mcp.json ("mcpServers").
//   - vscode (VS Code): `code --add-mcp JSON` when `code` is on PATH,
//     else the entry is merged into the user profile's mcp.json
//     ("servers", "inputs").
//
// # Reading the clients' answers
//
// A client's look-up (`claude mcp get`, `codex mcp get --json`) is read by
// its exit status and shape, not by one sentence (the clients reword them
// between releases). An answer of another shape, or a client program that
// fails, is a [ClientError] carrying what it said and, where Install could
// not tell whether the server is there, the lines to run by hand.
//
// # Checking
//
// [Check] does what a client does first with the configured server: it
// starts it (the same command, arguments and environment) or reaches it
// (with the token from the variable the client reads), then initialize and
// tools/list, and says in one line whether a client will see the one tool.
// Both fronts run it after Install, and alone as `verbsurface doctor` and
// `limcp mcp doctor`.
//
// # What is stored
//
// A stdio server is stored as its absolute command, its arguments and its
// environment (limcp's LIMCP_HOME), so the client starts the same server
// whatever directory it runs in. An HTTP server's bearer token is never
// stored: each client is given a reference it resolves when it connects —
// Claude Code's and Gemini CLI's ${VAR} in the header, Codex's
// bearer_token_env_var, Cursor's ${env:VAR} — so the token lives only in
// the environment the client starts in. VS Code cannot read a variable of
// the environment it was started from for this, so it gets an input
// variable (${input:ID}, a password prompt): it asks once and keeps the
// token in its secret storage, not in mcp.json.
//
// # Files
//
// A configuration file is changed only by merging: the file is read as
// JSON (a file that is not valid JSON, or whose servers member is not an
// object, is refused and left as it is), the one entry is added or, with
// Force, replaced in place, every other member is kept with its value as
// written and in its order, and the result is written to a temporary file
// in the same directory and renamed over the original (which keeps its
// mode; a symbolic link is followed, so the link stays a link). A reader
// therefore sees the old file or the new one, never half of one.
package clientconfig
