//go:build unix

// Package runenv is limcp's environment rule: the one environment every
// process limcp starts on a caller's behalf begins from.
//
// A process gets, from its parent's environment, only the variables
// [dispatch.DefaultEnvAllowlist] names (PATH, HOME, USER, LANG, LC_*, TZ,
// TMPDIR, TERM), every LIMCP_* variable except [Withheld] (the MCP
// server's bearer token), and the names a caller of [Build] passes on
// (what providers.yaml declares under a provider's env). Nothing else: a
// cloud key or token in the environment of `limcp mcp`, or of a person's
// shell, never reaches a CLI command the server runs, a worker, a provider
// command or a notify command unless providers.yaml names it.
//
// The rule is applied at every hop (server → CLI command → worker →
// provider), so a hop that forgets it cannot widen what the next one sees.
package runenv
