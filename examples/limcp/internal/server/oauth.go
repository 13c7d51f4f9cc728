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
func OAuth(ctx context.Context, issuer, audience string, scopes []string) (*mcphttp.OAuth, error) {
	return OAuthIntrospecting(ctx, issuer, audience, scopes, "", "")
}

// OAuthIntrospecting is [OAuth] accepting opaque tokens too, by the
// issuer's introspection endpoint as the client clientID whose secret is
// in secretFile (mcphttp.ReadSecretFile: the user's own file, mode 0600);
// an empty clientID is OAuth.
func OAuthIntrospecting(ctx context.Context, issuer, audience string, scopes []string, clientID, secretFile string) (*mcphttp.OAuth, error) {
	cfg := &oauth.Config{Issuer: issuer, Audience: audience, Scopes: scopes}
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
	return &mcphttp.OAuth{Verify: v.Verify, Metadata: v.Metadata(), Scopes: scopes, Leeway: v.Leeway()}, nil
}

// ListenOAuth opens the HTTP listener of a server with OAuth (any
// address: every request needs a token its issuer signed for it).
func ListenOAuth(addr string) (net.Listener, error) { return mcphttp.ListenOAuth(addr) }
