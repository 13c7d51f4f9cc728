// Package mcphttp serves an MCP server (any *mcp.Server of the go-sdk,
// typically one that holds verbsurface's one tool) over Streamable HTTP,
// hardened for a hostile network, loopback included: another local user
// can reach a loopback port, and a browser page can reach it through DNS
// rebinding. Both fronts of this repository use it, `verbsurface serve
// --http` and `limcp mcp --http`, so they share one set of rules.
//
// The rules, in the order a front applies them:
//
//  1. A token. The front reads it from an environment variable or a token
//     file the operator names ([ReadTokenFile]: a regular file owned by
//     the server's user, no group or other bits; refused otherwise with the
//     command that fixes it), or generates one with [EnsureTokenFile] into
//     a private directory (0600 file, linked into place, so servers
//     starting at once agree on one token). Names of variables, files and
//     flags are the front's: this package knows none of them.
//  2. The bind. [Listen] refuses a token shorter than [MinTokenLength] on
//     any address and, without a configured token, any address that is
//     not loopback ([ErrNonLoopback]), checked on the address actually
//     bound. Serving with no token at all (a front's --insecure-no-auth) is
//     therefore loopback only.
//  3. Each request ([Handler]): a foreign Origin gets 403 on every method
//     unless listed ([Options].AllowOrigins, checked with [ParseOrigin]);
//     a missing or wrong bearer token gets 401 with "WWW-Authenticate:
//     Bearer"; an initialize beyond [Options].MaxSessions gets 503 saying
//     why; the SDK's DNS-rebinding check stays on; an idle session closes
//     after [Options].SessionTimeout.
//  4. Per-client limits: [ClientKey] keys a verbsurface surface's spawn
//     rate by MCP session.
//
// What it does not do: TLS (put a reverse proxy in front for a network
// beyond the host), OAuth (one static bearer token is the whole model: the
// operator who holds it is the client), or per-token identities.
//
// The refusals a client reads name the front ([Options].Name) and the
// flags both fronts offer for them (--allow-origin, --max-sessions,
// --session-timeout): a front that serves this handler offers those flags
// under those names.
package mcphttp
