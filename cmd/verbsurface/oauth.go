//go:build unix

package main

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/spf13/cobra"
	"github.com/verbsurface/verbsurface/mcphttp"
	"github.com/verbsurface/verbsurface/mcphttp/oauth"
)

// OAuthConfig is the configuration's oauth section: the HTTP face accepts
// OAuth 2.1 access tokens of Issuer for Audience instead of the static
// token. The flags --oauth-issuer, --oauth-audience and --oauth-scope
// override it. A stdio server does not read it; Claims and ClassScopes
// (configuration only, no flags) are the surface's: the claims of a token
// that reach policy and runs (groups, roles), and the scopes a token
// needs to run a verb of a class (control: [verbsurface:write]).
type OAuthConfig struct {
	Issuer      string              `yaml:"issuer"`
	Audience    string              `yaml:"audience"`
	Scopes      []string            `yaml:"scopes"`
	Claims      []string            `yaml:"claims"`
	ClassScopes map[string][]string `yaml:"class_scopes"`
}

// oauthFlags are serve's OAuth flags.
type oauthFlags struct {
	issuer, audience string
	scopes           []string
}

var oauthFlagNames = []string{"oauth-issuer", "oauth-audience", "oauth-scope"}

func (f *oauthFlags) register(c *cobra.Command) {
	fs := c.Flags()
	fs.StringVar(&f.issuer, "oauth-issuer", "", "accept OAuth 2.1 access tokens (JWTs) of this issuer instead of the bearer token (with --oauth-audience)")
	fs.StringVar(&f.audience, "oauth-audience", "", "this server's canonical URL (https://host/mcp): the audience a token must be issued for")
	fs.StringArrayVar(&f.scopes, "oauth-scope", nil, "a scope every token must grant (repeatable; 403 naming it otherwise)")
}

// resolve is the OAuth configuration in force: the flags over the
// configuration's section; nil when neither names an issuer or audience.
func (f *oauthFlags) resolve(cfg *OAuthConfig) (*OAuthConfig, error) {
	var r OAuthConfig
	if cfg != nil {
		r = *cfg
	}
	if f.issuer != "" {
		r.Issuer = f.issuer
	}
	if f.audience != "" {
		r.Audience = f.audience
	}
	if f.scopes != nil {
		r.Scopes = f.scopes
	}
	switch {
	case r.Issuer == "" && r.Audience == "" && len(r.Scopes) == 0:
		return nil, nil
	case r.Issuer == "" || r.Audience == "":
		return nil, errors.New("OAuth needs both an issuer and an audience (--oauth-issuer and --oauth-audience, or oauth: {issuer, audience})")
	}
	return &r, nil
}

// serveOAuth is serveHTTP for a server whose callers hold OAuth access
// tokens: the issuer's metadata and keys are read before anything is
// served, and any address may be served. The static token is refused
// beside it: two ways in would be two policies to audit.
func serveOAuth(ctx context.Context, f *front, server *mcp.Server, hf *httpFlags, o *mcphttp.Options, oc *OAuthConfig, stderr io.Writer) error {
	if o.Token != "" || hf.tokenFile != "" || hf.insecureNoAuth {
		return fmt.Errorf("serve --http %s: OAuth is configured and so is a bearer token ($%s, --token-file or --insecure-no-auth): choose one", hf.addr, tokenEnv)
	}
	v, err := oauth.New(ctx, &oauth.Config{Issuer: oc.Issuer, Audience: oc.Audience, Scopes: f.surface.ScopesSupported(oc.Scopes), Claims: oc.Claims})
	if err != nil {
		return fmt.Errorf("serve --http %s: %w", hf.addr, err)
	}
	o.OAuth = &mcphttp.OAuth{Verify: v.Verify, Metadata: v.Metadata(), Scopes: oc.Scopes, Leeway: v.Leeway()}
	if len(oc.ClassScopes) > 0 {
		o.OAuth.OpScopes = f.surface.OpScopes
	}
	ln, err := mcphttp.ListenOAuth(hf.addr)
	if err != nil {
		return fmt.Errorf("serve --http %s: %w", hf.addr, err)
	}
	fmt.Fprintf(stderr, "verbsurface serve: serving %s as streamable HTTP on http://%s%s (OAuth access tokens of %s for %s required)\n",
		f.cfg.Name, ln.Addr(), mcphttp.Path, oc.Issuer, oc.Audience)
	return mcphttp.Serve(ctx, ln, server, o)
}
