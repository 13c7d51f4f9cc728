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
//     flags are the front's: this package knows none of them. Or, in its
//     place, OAuth ([Options].OAuth, [OAuth]): access tokens a verifier
//     (package mcphttp/oauth) accepts, the resource's metadata served at
//     [MetadataPath], and [ListenOAuth] for the bind. A verifier error
//     that is neither a refusal nor a protocol error (the issuer out of
//     reach) is answered 503 with Retry-After, never a pass or a 401.
//     [ReadSecretFile] reads the server's own client secret for the
//     verifier by the token file's rules.
//  2. The bind. [Listen] refuses a token shorter than [MinTokenLength] on
//     any address and, without a configured token, any address that is
//     not loopback ([ErrNonLoopback]), checked on the address actually
//     bound. Serving with no token at all (a front's --insecure-no-auth) is
//     therefore loopback only.
//  3. Each connection ([Serve]): its headers must arrive within
//     [Options].ReadHeaderTimeout, a body within ReadTimeout, each write
//     of an answer within WriteTimeout, and it may idle between requests
//     for IdleTimeout; at most MaxConns are open, and a connection that
//     has not yet carried a request with the token is closed first to make
//     room, so clients without the token cannot keep a token holder out.
//  4. Each request ([Handler]): a foreign Origin gets 403 on every method
//     unless listed ([Options].AllowOrigins, checked with [ParseOrigin]);
//     a missing or wrong bearer token gets 401 with "WWW-Authenticate:
//     Bearer"; a body over MaxBodyBytes gets 413, and a body waits, unread,
//     until the bodies being decoded and answered leave room for it within
//     MaxDecodingBytes; an initialize beyond [Options].MaxSessions gets 503
//     saying why; the SDK's DNS-rebinding check stays on; an idle session
//     closes after [Options].SessionTimeout. Every refusal before the
//     session closes its connection.
//  5. Per-client limits: [ClientKey] keys a verbsurface surface's spawn
//     rate by MCP session.
//
// # Memory
//
// What requests hold while they are decoded and answered is bounded by
// MaxDecodingBytes: a request holds its body's length from before the
// body is read until its answer is written, and one that does not fit
// waits, reading nothing. Each byte of a body being served costs about
// seven bytes of the server's memory: the SDK reads the body, decodes the
// JSON-RPC message and then the tool's arguments, the surface decodes the
// envelope and validates it, and the garbage collector lets the heap grow
// to about twice what is live. So a server's resident set stays under
// about its idle size + 30 MB + 7 × MaxDecodingBytes: with the defaults
// (8 MiB), about 20 + 30 + 56 ≈ 106 MB; measured, 64 concurrent 4 MiB
// tools/call on one session peak at 89 MB (at 4 MiB: 64 MB; at 32 MiB:
// 263 MB). Connections cost little beside it (a goroutine and two 4 KiB
// buffers each: MaxConns × ~20 KiB, 5 MB at the default 256).
//
// What it does not bound: the answers. An answer holds what the ops'
// commands printed, at most the surface's response cap (4 MiB by default,
// sent twice, as structured and as text content) for each request being
// answered; a client holding the token and many connections can have
// that many answers in flight. The surface's cap on commands at once
// (verbsurface.Options.MaxInFlight) slows that, it does not bound it.
//
// What the connection cap does not promise: a client without the token
// that reconnects as fast as it can keeps replacing the connections on
// probation, so a token holder's new connection is safe only until
// MaxConns newer ones have arrived (its first request normally comes
// within a millisecond; on a loaded host or across a slow network, its
// client may have to retry). Keep MaxConns below the server's descriptor
// limit (ulimit -n) less the few dozen it needs for itself.
//
// What it does not do: TLS (put a reverse proxy in front for a network
// beyond the host), OAuth (one static bearer token is the whole model: the
// operator who holds it is the client), or per-token identities.
//
// The refusals a client reads name the front ([Options].Name) and the
// flags both fronts offer for them (--allow-origin, --max-sessions,
// --session-timeout, --max-conns, --max-body-bytes): a front that serves
// this handler offers those flags under those names, and the same for the
// other bounds (--read-timeout, --write-timeout, --idle-timeout,
// --max-decoding-bytes).
package mcphttp
