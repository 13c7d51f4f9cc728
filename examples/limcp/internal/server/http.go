//go:build unix

package server

import (
	"context"
	"crypto/sha256"
	"crypto/subtle"
	"errors"
	"fmt"
	"net"
	"net/http"
	"time"

	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// HTTPPath is where the streamable HTTP endpoint is served.
const HTTPPath = "/mcp"

// TokenEnv is the environment variable holding the bearer token of the
// HTTP transport (--token-file is the other way to give it).
const TokenEnv = "LIMCP_MCP_TOKEN"

// MinTokenLength is the shortest bearer token accepted, on every address: a
// token is the only thing between the network (or another local user) and
// starting agent runs. One floor for loopback and beyond keeps the rule
// simple to state; the generated token (see [EnsureTokenFile]) is longer.
const MinTokenLength = 32

// DefaultSessionTimeout is how long an idle Streamable HTTP session lives
// when [HTTPOptions.SessionTimeout] is zero.
const DefaultSessionTimeout = 30 * time.Minute

// DefaultMaxSessions is how many Streamable HTTP sessions may be live at
// once when [HTTPOptions.MaxSessions] is zero.
const DefaultMaxSessions = 64

// ErrNonLoopback is returned by Listen when the address is not a loopback
// one and no token is configured.
var ErrNonLoopback = errors.New("refusing to serve MCP on a non-loopback address without a bearer token")

// HTTPOptions configures the HTTP face. A nil *HTTPOptions means no token
// and the defaults below.
type HTTPOptions struct {
	// Token is the bearer token every request must carry. Empty means no
	// authentication at all: `limcp mcp` allows that only on loopback and
	// only with --insecure-no-auth (Listen enforces the loopback part).
	Token string
	// AllowOrigins are browser origins ("https://app.example:8443") admitted
	// besides same-origin ones (see [Server.HTTPHandler]). Check each with
	// [ParseOrigin] first: one that does not parse admits nothing.
	AllowOrigins []string
	// SessionTimeout closes a session (of a client on a protocol version
	// before 2026-07-28) after this long without a request. Zero means
	// DefaultSessionTimeout; it is never unlimited, since every live
	// session holds server memory a client chose to allocate.
	SessionTimeout time.Duration
	// MaxSessions caps the sessions live at once; the next initialize gets
	// 503 until one closes or expires. Zero means DefaultMaxSessions.
	MaxSessions int
}

func (o *HTTPOptions) withDefaults() HTTPOptions {
	var v HTTPOptions
	if o != nil {
		v = *o
	}
	if v.SessionTimeout <= 0 {
		v.SessionTimeout = DefaultSessionTimeout
	}
	if v.MaxSessions <= 0 {
		v.MaxSessions = DefaultMaxSessions
	}
	return v
}

// Listen opens the HTTP listener for addr and enforces the bind policy:
// a token shorter than MinTokenLength is refused on any address; without
// a token only a loopback address is served (127.0.0.0/8, ::1; an empty
// host or 0.0.0.0 means every interface and is refused). The check is
// made on the address actually bound, so a host name that resolves to a
// public address is refused too.
func Listen(addr, token string) (net.Listener, error) {
	if token != "" && len(token) < MinTokenLength {
		return nil, fmt.Errorf("the bearer token is %d characters; use at least %d random ones (head -c 24 /dev/urandom | base64)", len(token), MinTokenLength)
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, err
	}
	ta, ok := ln.Addr().(*net.TCPAddr)
	if token == "" && (!ok || !ta.IP.IsLoopback()) {
		ln.Close()
		return nil, fmt.Errorf("%w: %s is not loopback; set %s (or --token-file) or bind 127.0.0.1", ErrNonLoopback, addr, TokenEnv)
	}
	return ln, nil
}

// HTTPHandler returns the streamable HTTP handler of the one tool, at
// HTTPPath. A request passes, in this order:
//
//  1. the Origin check: a request without Origin passes (not a browser
//     page), and so does a same-origin one (scheme http, the port the
//     connection arrived on, host localhost, a loopback address or the
//     address the connection arrived on) and one listed in AllowOrigins;
//     any other gets 403 naming the origin and --allow-origin. It covers
//     every method, GET and DELETE included;
//  2. with a token, the bearer check: a request without "Authorization:
//     Bearer TOKEN" gets 401 with "WWW-Authenticate: Bearer"; the
//     comparison is constant-time over SHA-256 digests, so not even the
//     length leaks;
//  3. the session cap: a request that would open a session beyond
//     MaxSessions gets 503 saying so (checked after the token, so a
//     client without it cannot fill the table);
//  4. the SDK's handler, whose DNS-rebinding protection (a loopback
//     connection with a non-loopback Host gets 403) stays on, and whose
//     idle timer closes sessions after SessionTimeout; a request on a
//     closed session gets its 404 "session not found".
func (s *Server) HTTPHandler(opts *HTTPOptions) http.Handler {
	o := opts.withDefaults()
	sdk := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s.mcp },
		&mcp.StreamableHTTPOptions{SessionTimeout: o.SessionTimeout})
	var h http.Handler = newSessionGate(s.mcp, o.MaxSessions, o.SessionTimeout).wrap(sdk)
	if o.Token != "" {
		h = requireBearer(o.Token, h)
	}
	h = newOriginPolicy(o.AllowOrigins).wrap(h)
	mux := http.NewServeMux()
	mux.Handle(HTTPPath, h)
	return mux
}

// requireBearer is the SDK's auth.RequireBearerToken with a challenge: the
// SDK writes WWW-Authenticate only when it has parameters to give
// (resource_metadata, scope), and RFC 6750 section 3 wants the scheme
// named on every 401. The header is set before the check and removed once
// the request passes, so only a refusal carries it.
func requireBearer(token string, next http.Handler) http.Handler {
	want := sha256.Sum256([]byte(token))
	verify := func(_ context.Context, got string, _ *http.Request) (*auth.TokenInfo, error) {
		sum := sha256.Sum256([]byte(got))
		if subtle.ConstantTimeCompare(sum[:], want[:]) != 1 {
			return nil, auth.ErrInvalidToken
		}
		return &auth.TokenInfo{}, nil
	}
	passed := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Del("WWW-Authenticate")
		next.ServeHTTP(w, r)
	})
	check := auth.RequireBearerToken(verify, &auth.RequireBearerTokenOptions{AllowMissingExpiration: true})(passed)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("WWW-Authenticate", `Bearer realm="limcp"`)
		check.ServeHTTP(w, r)
	})
}

// ServeHTTP serves streamable HTTP on ln until ctx ends, then shuts down
// (in-flight requests get a few seconds).
func (s *Server) ServeHTTP(ctx context.Context, ln net.Listener, opts *HTTPOptions) error {
	srv := &http.Server{Handler: s.HTTPHandler(opts), ReadHeaderTimeout: 10 * time.Second}
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
		sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		if err := srv.Shutdown(sctx); err != nil {
			srv.Close()
		}
		<-errc
		return nil
	}
}
