//go:build unix

package server

import (
	"context"
	"net"

	"github.com/verbsurface/verbsurface/mcphttp"
	"github.com/verbsurface/verbsurface/mcphttp/oauth"
)

// OAuth returns the HTTP options' OAuth for access tokens of issuer
// meant for audience (this server's canonical URL), each granting every
// one of scopes. The issuer's metadata and keys are read now (package
// mcphttp/oauth), so a wrong issuer stops the server before it serves.
//
// The claims named reach the caller's identity (policy, runs); with class
// scopes (Options.ClassScopes), a tools/call none of whose ops the token
// may run is answered 403 naming them, and the metadata publishes them.
// With a clientID, opaque tokens are accepted too, by the issuer's
// introspection endpoint as that client, whose secret is in secretFile
// (mcphttp.ReadSecretFile: the user's own file, mode 0600).
func (s *Server) OAuth(ctx context.Context, issuer, audience string, scopes, claims []string, clientID, secretFile string) (*mcphttp.OAuth, error) {
	cfg := &oauth.Config{Issuer: issuer, Audience: audience, Scopes: s.surface.ScopesSupported(scopes), Claims: claims}
	if clientID != "" {
		secret, err := mcphttp.ReadSecretFile(secretFile)
		if err != nil {
			return nil, err
		}
		cfg.Introspection = &oauth.Credentials{ClientID: clientID, Secret: secret}
	}
	v, err := oauth.New(ctx, cfg)
	if err != nil {
		return nil, err
	}
	o := &mcphttp.OAuth{Verify: v.Verify, Metadata: v.Metadata(), Scopes: scopes, Leeway: v.Leeway()}
	if len(s.opts.ClassScopes) > 0 {
		o.OpScopes = s.surface.OpScopes
	}
	return o, nil
}

// ListenOAuth opens the HTTP listener of a server with OAuth (any
// address: every request needs a token its issuer signed for it).
func ListenOAuth(addr string) (net.Listener, error) { return mcphttp.ListenOAuth(addr) }
