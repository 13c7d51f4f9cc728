//go:build unix

package mcphttp

import (
	"context"
	"crypto/sha256"
	"crypto/subtle"
	"errors"
	"fmt"
	"net"
	"net/http"
	"path"
	"strconv"
	"time"

	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/verbsurface/verbsurface/verbsurface"
)

// Path is where the streamable HTTP endpoint is served.
const Path = "/mcp"

// MinTokenLength is the shortest bearer token accepted, on every address: a
// token is the only thing between the network (or another local user) and
// the tool. One floor for loopback and beyond keeps the rule simple to
// state; the generated token (see [EnsureTokenFile]) is longer.
const MinTokenLength = 32

// DefaultSessionTimeout is how long an idle Streamable HTTP session lives
// when [Options.SessionTimeout] is zero.
const DefaultSessionTimeout = 30 * time.Minute

// DefaultMaxSessions is how many Streamable HTTP sessions may be live at
// once when [Options.MaxSessions] is zero.
const DefaultMaxSessions = 64

// DefaultMaxConns is how many connections may be open at once when
// [Options.MaxConns] is zero: a quarter of the common descriptor limit of
// 1,024 per process, yet more than the clients one operator runs.
const DefaultMaxConns = 256

// DefaultReadHeaderTimeout bounds how long a request's headers may take to
// arrive when [Options.ReadHeaderTimeout] is zero; a connection that sends
// none is closed after it.
const DefaultReadHeaderTimeout = 10 * time.Second

// DefaultReadTimeout bounds how long a request's body may take to arrive,
// once it is read, when [Options.ReadTimeout] is zero.
const DefaultReadTimeout = 30 * time.Second

// DefaultWriteTimeout bounds each write of a response when
// [Options.WriteTimeout] is zero: a client that takes nothing for this
// long loses the connection.
const DefaultWriteTimeout = 30 * time.Second

// DefaultIdleTimeout is how long a connection may sit idle between
// requests (a keep-alive) when [Options.IdleTimeout] is zero. It is not the
// session's idle time ([DefaultSessionTimeout]): a session outlives its
// connections.
const DefaultIdleTimeout = 60 * time.Second

// DefaultMaxBodyBytes caps one request's body when [Options.MaxBodyBytes]
// is zero: 4 MiB, the SDK's own default, room for a batch of prompts near
// the 1 MiB each a prompt may hold.
const DefaultMaxBodyBytes = 4 << 20

// DefaultMaxDecodingBytes caps the bodies of the requests being decoded
// and served at once when [Options.MaxDecodingBytes] is zero: 8 MiB, two of
// the largest requests, or thousands of small ones. Each byte of a body
// being served costs about six of memory (the package documentation gives
// the arithmetic), so this keeps a server under about 100 MB.
const DefaultMaxDecodingBytes = 8 << 20

// ErrNonLoopback is returned by [Listen] when the address is not a
// loopback one and no token is configured.
var ErrNonLoopback = errors.New("mcphttp: refusing to serve MCP on a non-loopback address without a bearer token")

// ErrShortToken is returned by [Listen] for a token shorter than
// [MinTokenLength].
var ErrShortToken = errors.New("mcphttp: the bearer token is too short")

// Options configures the handler. A nil *Options means no token and the
// defaults below.
type Options struct {
	// Token is the bearer token every request must carry. Empty means no
	// authentication at all: a front allows that only on loopback and only
	// when the operator asked for it (--insecure-no-auth); [Listen]
	// enforces the loopback part.
	Token string
	// AllowOrigins are browser origins ("https://app.example:8443") admitted
	// besides same-origin ones (see [Handler]). Check each with
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
	// MaxConns caps the connections open at once (see [Serve] for how
	// room is made for a token holder). Zero means DefaultMaxConns.
	MaxConns int
	// ReadHeaderTimeout, ReadTimeout, WriteTimeout and IdleTimeout bound,
	// on every connection, the headers of a request, its body, each write
	// of a response, and the idle time between requests. Zero means the
	// Default of each.
	ReadHeaderTimeout, ReadTimeout, WriteTimeout, IdleTimeout time.Duration
	// MaxBodyBytes caps one request's body (413 beyond); MaxDecodingBytes
	// caps the bodies of the requests being decoded and served at once,
	// the rest waiting their turn (see [Handler]). Zero means the Default
	// of each; MaxDecodingBytes below MaxBodyBytes is raised to it, so any
	// request that may be sent can pass.
	MaxBodyBytes, MaxDecodingBytes int64
	// Name is how the refusals a client reads name the server ("limcp
	// mcp: Forbidden: ..."); empty means "mcphttp". It is the front, not
	// this package, that the reader knows.
	Name string
	// Realm is the realm of the "WWW-Authenticate: Bearer" challenge;
	// empty leaves the parameter out.
	Realm string
	// OAuth, when set, authenticates requests by OAuth 2.1 access tokens
	// instead of Token (which is then ignored; a front refuses both).
	OAuth *OAuth
	// OnRefused, when set, is called once for every request refused, and
	// every connection refused for MaxConns, with the reason (RefusedOrigin,
	// RefusedToken, ...): a metrics counter's. It must not block.
	OnRefused func(reason string)
}

func (o *Options) withDefaults() Options {
	var v Options
	if o != nil {
		v = *o
	}
	if v.SessionTimeout <= 0 {
		v.SessionTimeout = DefaultSessionTimeout
	}
	if v.MaxSessions <= 0 {
		v.MaxSessions = DefaultMaxSessions
	}
	if v.Name == "" {
		v.Name = "mcphttp"
	}
	if v.MaxConns <= 0 {
		v.MaxConns = DefaultMaxConns
	}
	for _, d := range []struct {
		v   *time.Duration
		def time.Duration
	}{{&v.ReadHeaderTimeout, DefaultReadHeaderTimeout}, {&v.ReadTimeout, DefaultReadTimeout},
		{&v.WriteTimeout, DefaultWriteTimeout}, {&v.IdleTimeout, DefaultIdleTimeout}} {
		if *d.v <= 0 {
			*d.v = d.def
		}
	}
	if v.MaxBodyBytes <= 0 {
		v.MaxBodyBytes = DefaultMaxBodyBytes
	}
	if v.MaxDecodingBytes <= 0 {
		v.MaxDecodingBytes = DefaultMaxDecodingBytes
	}
	v.MaxDecodingBytes = max(v.MaxDecodingBytes, v.MaxBodyBytes)
	return v
}

// Listen opens the TCP listener for addr and enforces the bind policy: a
// token shorter than MinTokenLength is refused on any address
// ([ErrShortToken]); without a token only a loopback address is served
// (127.0.0.0/8, ::1; an empty host or 0.0.0.0 means every interface and is
// refused with [ErrNonLoopback]). The check is made on the address
// actually bound, so a host name that resolves to a public address is
// refused too. A front that generates its token after listening passes ""
// here: a generated token is never a reason to serve beyond loopback,
// since nobody configured it for the network.
func Listen(addr, token string) (net.Listener, error) {
	if token != "" && len(token) < MinTokenLength {
		return nil, fmt.Errorf("%w: it is %d characters; use at least %d random ones (head -c 24 /dev/urandom | base64)", ErrShortToken, len(token), MinTokenLength)
	}
	return listen(addr, token != "")
}

// listen is Listen once the token is checked: authenticated says whether
// a request needs a credential to pass.
func listen(addr string, authenticated bool) (net.Listener, error) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("mcphttp: Listen: %w", err)
	}
	ta, ok := ln.Addr().(*net.TCPAddr)
	if !authenticated && (!ok || !ta.IP.IsLoopback()) {
		ln.Close()
		return nil, fmt.Errorf("%w: %s is not loopback; configure a bearer token or bind 127.0.0.1", ErrNonLoopback, addr)
	}
	return ln, nil
}

// Handler returns the streamable HTTP handler of srv, at [Path]. Every
// write of every response it gives has WriteTimeout to complete. A request
// passes, in this order:
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
//     length leaks; with [OAuth] instead, the access-token check (see
//     there), whose 401 and 403 name the resource metadata;
//  3. the connection is admitted (under [Serve]: off probation, see
//     there);
//  4. the body gate: a POST declaring a body over MaxBodyBytes gets 413;
//     otherwise it waits, reading nothing, until the bodies of the
//     requests past this point and not yet answered leave room for its
//     own within MaxDecodingBytes, holds that room until it is answered,
//     and must then deliver its body within ReadTimeout (a body that
//     turns out larger than it said, or than MaxBodyBytes, gets the SDK's
//     413);
//  5. with [OAuth].OpScopes, the scope gate: a tools/call none of whose
//     ops the token may run gets 403 insufficient_scope naming the scopes
//     (one of whose ops may run goes on, the surface refusing the rest);
//  6. the version route: a request on protocol 2026-07-28 or later
//     (its MCP-Protocol-Version header, or without one the version in
//     its _meta) goes to the SDK's stateless handler, which opens no
//     session, so straight to step 8; any other goes on to step 7;
//  7. the session cap: a request that would open a session beyond
//     MaxSessions gets 503 saying so (checked after the token, so a
//     client without it cannot fill the table);
//  8. the SDK's handler, whose DNS-rebinding protection (a loopback
//     connection with a non-loopback Host gets 403) stays on, and whose
//     idle timer closes sessions after SessionTimeout; a request on a
//     closed session gets its 404 "session not found".
//
// Every refusal before the SDK (403, 401, 413, 503, and 404 for a path
// other than [Path], an unclean spelling of it such as "//mcp" included,
// which is answered before the checks) closes the connection once it is
// written.
//
// Handler adds to srv what protocol 2026-07-28 asks of a server beyond
// the SDK: the caching hints of tools/list (ttlMs [ToolsTTL]) and, in
// server/discover, the capabilities the SDK honours (docs/http.md says
// why each).
//
// So the memory requests hold while decoded is bounded by what
// MaxDecodingBytes admits at once, times what the SDK and the surface make
// of a body (the package documentation gives the arithmetic).
func Handler(srv *mcp.Server, opts *Options) http.Handler {
	o := opts.withDefaults()
	srv.AddReceivingMiddleware(newerProtocol)
	getServer := func(*http.Request) *mcp.Server { return srv }
	stateful := mcp.NewStreamableHTTPHandler(getServer,
		&mcp.StreamableHTTPOptions{SessionTimeout: o.SessionTimeout, MaxRequestBodyBytes: o.MaxBodyBytes})
	stateless := mcp.NewStreamableHTTPHandler(getServer,
		&mcp.StreamableHTTPOptions{Stateless: true, MaxRequestBodyBytes: o.MaxBodyBytes})
	var h http.Handler = &versionRouter{
		stateful:  newSessionGate(srv, o.MaxSessions, o.SessionTimeout, o.Name).wrap(stateful),
		stateless: stateless,
		maxBody:   o.MaxBodyBytes,
		name:      o.Name,
	}
	if o.OAuth != nil && o.OAuth.OpScopes != nil {
		h = scopeGate(o.OAuth, o.Realm, h)
	}
	h = (&bodyGate{maxBody: o.MaxBodyBytes, readTimeout: o.ReadTimeout, budget: newByteBudget(o.MaxDecodingBytes), name: o.Name}).wrap(h)
	h = admitConn(h)
	if o.OAuth != nil {
		h = requireOAuth(o.OAuth, o.Realm, h)
	} else if o.Token != "" {
		h = requireBearer(o.Token, o.Realm, h)
	}
	h = newOriginPolicy(o.AllowOrigins, o.Name).wrap(h)
	notFound := func(w http.ResponseWriter, r *http.Request) {
		refuse(r, RefusedPath)
		closeAfter(w)
		http.Error(w, fmt.Sprintf("%s: Not Found: the MCP endpoint is %s", o.Name, Path), http.StatusNotFound)
	}
	mux := http.NewServeMux()
	mux.Handle(Path, h)
	if o.OAuth != nil {
		serveMetadata(mux, o.OAuth)
	}
	mux.HandleFunc("/", notFound)
	return writeDeadlines(o.WriteTimeout, countRefusals(o.OnRefused, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		// ServeMux answers an unclean spelling of a path ("//mcp",
		// "/./mcp", "/x/../mcp") with a 307 to the clean one before any
		// handler runs, so before the Origin and token checks, and keeps
		// the connection. Only the exact spelling reaches the checks; any
		// other is a 404 that closes its connection, like every refusal.
		if p := r.URL.Path; p != Path && (p == "" || p[0] != '/' || path.Clean(p) != p) {
			notFound(w, r)
			return
		}
		mux.ServeHTTP(w, r)
	})))
}

// requireBearer is the SDK's auth.RequireBearerToken with a challenge: the
// SDK writes WWW-Authenticate only when it has parameters to give
// (resource_metadata, scope), and RFC 6750 section 3 wants the scheme
// named on every 401. The header is set before the check and removed once
// the request passes, so only a refusal carries it; so is the closing of
// the connection ([closeAfter]): a 401 ends it.
func requireBearer(token, realm string, next http.Handler) http.Handler {
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
		refuse(r, "")
		keepOpen(w)
		next.ServeHTTP(w, r)
	})
	check := auth.RequireBearerToken(verify, &auth.RequireBearerTokenOptions{AllowMissingExpiration: true})(passed)
	challenge := "Bearer"
	if realm != "" {
		challenge += " realm=" + strconv.Quote(realm)
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("WWW-Authenticate", challenge)
		refuse(r, RefusedToken) // undone by passed, as is this:
		closeAfter(w)
		check.ServeHTTP(w, r)
	})
}

// Serve serves [Handler] on ln until ctx ends, then shuts down (in-flight
// requests get a few seconds). It closes ln. A nil error means ctx ended.
//
// Every connection is bounded in time: its request headers must arrive
// within ReadHeaderTimeout, a body within ReadTimeout, each write of a
// response within WriteTimeout, and it may sit idle between requests for
// IdleTimeout; past any of them it is closed. At most MaxConns are open at
// once. A new connection is on probation until a request on it passes the
// Origin and token checks; when the cap is reached, room is made by
// closing the oldest connection on probation, else the oldest admitted
// one idle between requests, else the newcomer is answered 503 naming
// --max-conns. So clients without the token, whose connections are closed
// after their first refusal and after ReadHeaderTimeout at the latest,
// cannot keep a token holder out however many connections they open.
func Serve(ctx context.Context, ln net.Listener, srv *mcp.Server, opts *Options) error {
	hs, lim := newServer(ln, srv, opts)
	errc := make(chan error, 1)
	go func() { errc <- hs.Serve(lim) }()
	select {
	case err := <-errc:
		return fmt.Errorf("mcphttp: Serve: %w", err)
	case <-ctx.Done():
		sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		if err := hs.Shutdown(sctx); err != nil {
			hs.Close()
		}
		<-errc
		return nil
	}
}

// newServer is the http.Server of Serve and the limiter it serves on.
func newServer(ln net.Listener, srv *mcp.Server, opts *Options) (*http.Server, *connLimiter) {
	o := opts.withDefaults()
	lim := newConnLimiter(ln, o.MaxConns, o.Name)
	lim.onRefused = o.OnRefused
	return &http.Server{Handler: Handler(srv, &o), ReadHeaderTimeout: o.ReadHeaderTimeout, IdleTimeout: o.IdleTimeout,
		ConnState: lim.connState, ConnContext: connContext}, lim
}

// ClientKey is a [verbsurface.Options].ClientKey for a surface served
// here: the MCP session of the request, so each session has its own spawn
// bucket and one client cannot spend another's. Requests without a
// session (stateless clients, protocol 2026-07-28 and later) share the
// bucket "". Sessions are capped ([Options].MaxSessions), so the spawns a
// token holder can start a minute stay bounded by MaxSessions times the
// per-client rate; the surface's MaxInFlight bounds what runs at once.
func ClientKey(ctx context.Context) string {
	return verbsurface.RequestClient(ctx).Session
}
