//go:build unix

package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"path/filepath"

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
	Issuer   string   `yaml:"issuer"`
	Audience string   `yaml:"audience"`
	Scopes   []string `yaml:"scopes"`
	// Claims and ClassScopes: see above.
	Claims      []string            `yaml:"claims"`
	ClassScopes map[string][]string `yaml:"class_scopes"`
	// Introspection accepts opaque access tokens too, asking the issuer's
	// introspection endpoint (RFC 7662) as this client. The flags
	// --oauth-introspection-client-id and
	// --oauth-introspection-secret-file override it.
	Introspection *OAuthClient `yaml:"introspection"`
	// Exchange is RFC 8693 token exchange for a run (oauth_exchange.go).
	Exchange *OAuthExchangeConfig `yaml:"exchange"`
}

// OAuthClient is this server's own client at the issuer: its id and the
// file holding its secret (a regular file of the server's user, mode
// 0600, as for --token-file; relative to the configuration's directory).
// There is no key for the secret itself: a configuration file is shared
// and copied more than a secret should be.
type OAuthClient struct {
	ClientID   string `yaml:"client_id"`
	SecretFile string `yaml:"secret_file"`
}

// check refuses half a client; what names it in the error.
func (c *OAuthClient) check(what string) error {
	if c.ClientID == "" || c.SecretFile == "" {
		return fmt.Errorf("%s needs both a client_id and a secret_file (the file holding this server's client secret)", what)
	}
	return nil
}

// credentials reads the client's secret file.
func (c *OAuthClient) credentials() (oauth.Credentials, error) {
	secret, err := mcphttp.ReadSecretFile(c.SecretFile)
	if err != nil {
		return oauth.Credentials{}, err
	}
	return oauth.Credentials{ClientID: c.ClientID, Secret: secret}, nil
}

// oauthFlags are serve's OAuth flags.
type oauthFlags struct {
	issuer, audience string
	scopes           []string
	introspection    OAuthClient
}

var oauthFlagNames = []string{"oauth-issuer", "oauth-audience", "oauth-scope", "oauth-introspection-client-id", "oauth-introspection-secret-file"}

func (f *oauthFlags) register(c *cobra.Command) {
	fs := c.Flags()
	fs.StringVar(&f.issuer, "oauth-issuer", "", "accept OAuth 2.1 access tokens (JWTs) of this issuer instead of the bearer token (with --oauth-audience)")
	fs.StringVar(&f.audience, "oauth-audience", "", "this server's canonical URL (https://host/mcp): the audience a token must be issued for")
	fs.StringArrayVar(&f.scopes, "oauth-scope", nil, "a scope every token must grant (repeatable; 403 naming it otherwise)")
	fs.StringVar(&f.introspection.ClientID, "oauth-introspection-client-id", "", "accept opaque tokens too, by the issuer's introspection endpoint, as this client (with --oauth-introspection-secret-file)")
	fs.StringVar(&f.introspection.SecretFile, "oauth-introspection-secret-file", "", "file holding that client's secret, mode 0600")
}

// resolve is the OAuth configuration in force: the flags over the
// configuration's section (whose relative secret files are relative to
// dir, the configuration's directory); nil when neither names an issuer
// or audience.
func (f *oauthFlags) resolve(cfg *OAuthConfig, dir string) (*OAuthConfig, error) {
	var r OAuthConfig
	if cfg != nil {
		r = *cfg
		for _, c := range []**OAuthClient{&r.Introspection, exchangeClient(&r)} {
			if *c != nil && (*c).SecretFile != "" && !filepath.IsAbs((*c).SecretFile) {
				abs := **c
				abs.SecretFile = filepath.Join(dir, abs.SecretFile)
				*c = &abs
			}
		}
	}
	if f.introspection != (OAuthClient{}) {
		r.Introspection = &f.introspection
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
	if r.Introspection != nil {
		if err := r.Introspection.check("OAuth introspection (--oauth-introspection-client-id and --oauth-introspection-secret-file, or oauth: {introspection: {client_id, secret_file}})"); err != nil {
			return nil, err
		}
	}
	if err := r.Exchange.check(r.Introspection); err != nil {
		return nil, err
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
	cfg := &oauth.Config{Issuer: oc.Issuer, Audience: oc.Audience, Scopes: f.surface.ScopesSupported(oc.Scopes), Claims: oc.Claims}
	if oc.Introspection != nil {
		creds, err := oc.Introspection.credentials()
		if err != nil {
			return fmt.Errorf("serve --http %s: OAuth introspection: %w", hf.addr, err)
		}
		cfg.Introspection = &creds
	}
	v, err := oauth.New(ctx, cfg)
	if err != nil {
		return fmt.Errorf("serve --http %s: %w", hf.addr, err)
	}
	if err := startExchange(ctx, f, oc); err != nil {
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
