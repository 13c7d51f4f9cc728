// Package requestlog opens the log of MCP requests both fronts keep
// (`limcp mcp` and `verbsurface serve`): one line per request, through
// [verbsurface.LogRequests], on stderr in the format the --log flag names
// (text or json; off writes none), and, when $VERBSURFACE_LOG_FILE names a
// file, also there as JSON lines.
//
// The file is for a server a client starts: its stderr belongs to the
// client (Claude Code keeps it in its own debug log, Gemini CLI drops it),
// while the environment reaches the server (Claude Code and Gemini CLI
// pass theirs on; Codex CLI passes the variables a server's env_vars
// names). It is opened O_APPEND with mode 0600 and refused when others
// may read it, as the audit is: it names the clients and what they asked.
package requestlog
