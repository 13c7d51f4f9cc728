//go:build unix

package server

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"

	"github.com/verbsurface/verbsurface/mcphttp"
)

// The HTTP face is package mcphttp's, shared with `verbsurface serve
// --http`; this file keeps limcp's names and defaults for it.

// HTTPPath is where the streamable HTTP endpoint is served.
const HTTPPath = mcphttp.Path

// TokenEnv is the environment variable holding the bearer token of the
// HTTP transport (--token-file is the other way to give it).
const TokenEnv = "LIMCP_MCP_TOKEN"

// TokenFileName is the file in the state home that holds the generated
// bearer token of `limcp mcp --http` (see [EnsureTokenFile]).
const TokenFileName = "mcp-token"

// MinTokenLength is the shortest bearer token accepted, on every address
// (mcphttp.MinTokenLength).
const MinTokenLength = mcphttp.MinTokenLength

// DefaultSessionTimeout is how long an idle Streamable HTTP session lives
// when [HTTPOptions.SessionTimeout] is zero.
const DefaultSessionTimeout = mcphttp.DefaultSessionTimeout

// DefaultMaxSessions is how many Streamable HTTP sessions may be live at
// once when [HTTPOptions.MaxSessions] is zero.
const DefaultMaxSessions = mcphttp.DefaultMaxSessions

// The connection and body bounds of the HTTP face, when the
// [HTTPOptions] fields are zero (mcphttp's defaults; --max-conns,
// --read-timeout, --write-timeout, --idle-timeout, --max-body-bytes,
// --max-decoding-bytes).
const (
	DefaultMaxConns          = mcphttp.DefaultMaxConns
	DefaultReadTimeout       = mcphttp.DefaultReadTimeout
	DefaultWriteTimeout      = mcphttp.DefaultWriteTimeout
	DefaultIdleTimeout       = mcphttp.DefaultIdleTimeout
	DefaultMaxBodyBytes      = mcphttp.DefaultMaxBodyBytes
	DefaultMaxDecodingBytes  = mcphttp.DefaultMaxDecodingBytes
	DefaultReadHeaderTimeout = mcphttp.DefaultReadHeaderTimeout
)

// ErrNonLoopback is returned by Listen when the address is not a loopback
// one and no token is configured.
var ErrNonLoopback = mcphttp.ErrNonLoopback

// HTTPOptions configures the HTTP face (mcphttp.Options; Name and Realm
// default to limcp's). A nil *HTTPOptions means no token and the defaults.
type HTTPOptions = mcphttp.Options

// httpName and httpRealm name limcp in the refusals a client reads and in
// the Bearer challenge.
const httpName, httpRealm = "limcp mcp", "limcp"

func limcpHTTP(opts *HTTPOptions) *HTTPOptions {
	var o HTTPOptions
	if opts != nil {
		o = *opts
	}
	if o.Name == "" {
		o.Name = httpName
	}
	if o.Realm == "" {
		o.Realm = httpRealm
	}
	return &o
}

// Listen opens the HTTP listener for addr and enforces the bind policy of
// mcphttp.Listen; without a token on a non-loopback address the error
// also says how limcp is given one.
func Listen(addr, token string) (net.Listener, error) {
	ln, err := mcphttp.Listen(addr, token)
	if errors.Is(err, mcphttp.ErrNonLoopback) {
		return nil, fmt.Errorf("%w; set %s (or --token-file)", err, TokenEnv)
	}
	return ln, err
}

// HTTPHandler returns the streamable HTTP handler of the one tool, at
// HTTPPath, with every check of mcphttp.Handler (in its order: Origin,
// bearer token, body gate, session cap, the SDK's DNS-rebinding check and
// idle timer).
func (s *Server) HTTPHandler(opts *HTTPOptions) http.Handler {
	return mcphttp.Handler(s.mcp, limcpHTTP(opts))
}

// ServeHTTP serves streamable HTTP on ln until ctx ends, then shuts down
// (in-flight requests get a few seconds), with mcphttp.Serve's bounds on
// every connection (timeouts, the connection cap).
func (s *Server) ServeHTTP(ctx context.Context, ln net.Listener, opts *HTTPOptions) error {
	return mcphttp.Serve(ctx, ln, s.mcp, limcpHTTP(opts))
}

// ReadTokenFile returns the bearer token in path (mcphttp.ReadTokenFile:
// a regular file of the server's user, no group or other bits).
func ReadTokenFile(path string) (string, error) { return mcphttp.ReadTokenFile(path) }

// EnsureTokenFile returns the bearer token kept in HOME/mcp-token,
// generating it (0600, the home 0700 if missing) when there is none
// (mcphttp.EnsureTokenFile).
func EnsureTokenFile(home string) (path, token string, generated bool, err error) {
	return mcphttp.EnsureTokenFile(home, TokenFileName)
}

// ParseOrigin checks an --allow-origin value and returns it canonical
// (mcphttp.ParseOrigin).
func ParseOrigin(s string) (string, error) { return mcphttp.ParseOrigin(s) }
