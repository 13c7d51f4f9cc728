//go:build unix

package mcphttp

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/oauthex"
)

// MetadataPath is where the Protected Resource Metadata (RFC 9728) of a
// server with [OAuth] is served, followed by the path of its resource
// (so "/.well-known/oauth-protected-resource/mcp" for a resource
// "https://host/mcp"; the bare path is served too).
const MetadataPath = "/.well-known/oauth-protected-resource"

// OAuth makes [Handler] an OAuth 2.1 resource server in place of the
// static token: every request to [Path] must carry a bearer access token
// that Verify accepts and that grants every one of Scopes. Package
// mcphttp/oauth gives Verify and Metadata for JWTs of one issuer.
type OAuth struct {
	// Verify validates a token; a refusal wraps auth.ErrInvalidToken.
	Verify auth.TokenVerifier
	// Metadata is served at [MetadataPath]; its Resource, this server's
	// canonical URL, places it and is named in every challenge.
	Metadata *oauthex.ProtectedResourceMetadata
	// Scopes must all be granted by a token (else 403 naming them).
	Scopes []string
	// Leeway is the clock skew allowed on the token's expiration.
	Leeway time.Duration
	// OpScopes, when set, gives the scopes a token must grant to run an
	// op, by its name (verbsurface.Surface.OpScopes): a tools/call none of
	// whose ops the token may run gets 403 insufficient_scope naming them
	// before anything runs (see the package documentation).
	OpScopes func(op string) []string
}

// ListenOAuth is [Listen] for a server whose requests are authenticated
// by [OAuth]: any address may be served, since no request passes without
// a token its issuer signed for this server.
func ListenOAuth(addr string) (net.Listener, error) {
	return listen(addr, true)
}

// metadataURL is where the metadata of resource is served (RFC 9728
// section 3.1: the well-known path inserted before the resource's path).
func metadataURL(resource string) (string, string, error) {
	u, err := url.Parse(resource)
	if err != nil || u.Host == "" {
		return "", "", fmt.Errorf("mcphttp: OAuth resource %q is not an absolute URL", resource)
	}
	path := MetadataPath + strings.TrimSuffix(u.Path, "/")
	return u.Scheme + "://" + u.Host + path, path, nil
}

// serveMetadata serves o's metadata on mux, at the resource's path and at
// the bare well-known path. It is public, as RFC 9728 means it to be: a
// client reads it before it has a token.
func serveMetadata(mux *http.ServeMux, o *OAuth) {
	h := auth.ProtectedResourceMetadataHandler(o.Metadata)
	_, path, err := metadataURL(o.Metadata.Resource)
	if err != nil {
		panic(err) // a front checks the audience before it builds a handler
	}
	mux.Handle(path, h)
	if path != MetadataPath {
		mux.Handle(MetadataPath, h)
	}
}

// requireOAuth is the SDK's auth.RequireBearerToken (which puts the token's
// information in the request's context for the MCP handler: a session is
// then bound to its subject) with the challenges of RFC 6750 section 3 and
// RFC 9728 section 5.1: every 401 and 403 carries "WWW-Authenticate:
// Bearer" with resource_metadata; a 401 for a token that was presented
// adds error="invalid_token", a 403 error="insufficient_scope" and the
// scope wanted. A refusal closes the connection, as with the static token.
func requireOAuth(o *OAuth, realm string, next http.Handler) http.Handler {
	base := challengeBase(o, realm)
	passed := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if cw, ok := w.(*challengeWriter); ok {
			w = cw.ResponseWriter
		}
		refuse(r, "")
		keepOpen(w)
		next.ServeHTTP(w, r)
	})
	// A verifier's error that is neither a refusal nor a protocol error
	// means the token could not be checked (the issuer's keys or its
	// introspection endpoint out of reach): the SDK answers 500, which
	// the challengeWriter turns into 503, so a caller knows to retry and
	// an operator where to look. It is never a pass.
	verify := func(ctx context.Context, token string, r *http.Request) (*auth.TokenInfo, error) {
		info, err := o.Verify(ctx, token, r)
		if err != nil && !errors.Is(err, auth.ErrInvalidToken) && !errors.Is(err, auth.ErrOAuth) {
			if cw, ok := ctx.Value(challengeKey{}).(*challengeWriter); ok {
				cw.unavailable = true
			}
		}
		return info, err
	}
	check := auth.RequireBearerToken(verify, &auth.RequireBearerTokenOptions{Scopes: o.Scopes, ClockSkew: o.Leeway})(passed)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		refuse(r, RefusedToken) // undone by passed, as is this:
		closeAfter(w)
		presented := r.Header.Get("Authorization") != ""
		cw := &challengeWriter{ResponseWriter: w, base: base, scopes: o.Scopes, presented: presented}
		check.ServeHTTP(cw, r.WithContext(context.WithValue(r.Context(), challengeKey{}, cw)))
	})
}

// challengeBase is the start of every challenge of o: the scheme, the
// realm and the resource metadata's URL.
func challengeBase(o *OAuth, realm string) string {
	meta, _, err := metadataURL(o.Metadata.Resource)
	if err != nil {
		panic(err) // a front checks the audience before it builds a handler
	}
	base := "Bearer "
	if realm != "" {
		base += "realm=" + strconv.Quote(realm) + ", "
	}
	return base + "resource_metadata=" + strconv.Quote(meta)
}

// challengeKey is the request's challengeWriter in its context, for the
// verifier to mark a token that could not be checked.
type challengeKey struct{}

// challengeWriter sets the challenge of a 401 or 403 as it is written,
// replacing the SDK's.
type challengeWriter struct {
	http.ResponseWriter
	base        string
	scopes      []string
	presented   bool
	unavailable bool // the verifier could not check the token
}

func (c *challengeWriter) WriteHeader(code int) {
	switch {
	case code == http.StatusInternalServerError && c.unavailable:
		code = http.StatusServiceUnavailable
		c.Header().Set("Retry-After", "5")
	case code == http.StatusForbidden:
		c.Header().Set("WWW-Authenticate", c.base+`, error="insufficient_scope", scope=`+strconv.Quote(strings.Join(c.scopes, " ")))
	case code == http.StatusUnauthorized && c.presented:
		c.Header().Set("WWW-Authenticate", c.base+`, error="invalid_token"`)
	case code == http.StatusUnauthorized:
		c.Header().Set("WWW-Authenticate", c.base)
	}
	c.ResponseWriter.WriteHeader(code)
}

func (c *challengeWriter) Unwrap() http.ResponseWriter { return c.ResponseWriter }
