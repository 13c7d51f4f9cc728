//go:build unix

package cli

import (
	"context"
	"fmt"

	"github.com/spf13/cobra"
	"github.com/verbsurface/verbsurface/examples/limcp/internal/machine"
	"github.com/verbsurface/verbsurface/examples/limcp/internal/server"
)

// oauthFlags are `limcp mcp`'s OAuth flags, the same as `verbsurface
// serve`'s.
type oauthFlags struct {
	issuer, audience       string
	scopes                 []string
	introID, introSecretAt string
}

func (f *oauthFlags) register(c *cobra.Command) {
	fs := c.Flags()
	fs.StringVar(&f.issuer, "oauth-issuer", "", "accept OAuth 2.1 access tokens (JWTs) of this issuer instead of the bearer token (with --oauth-audience)")
	fs.StringVar(&f.audience, "oauth-audience", "", "this server's canonical URL (https://host/mcp): the audience a token must be issued for")
	fs.StringArrayVar(&f.scopes, "oauth-scope", nil, "a scope every token must grant (repeatable; 403 naming it otherwise)")
	fs.StringVar(&f.introID, "oauth-introspection-client-id", "", "accept opaque tokens too, by the issuer's introspection endpoint, as this client (with --oauth-introspection-secret-file)")
	fs.StringVar(&f.introSecretAt, "oauth-introspection-secret-file", "", "file holding that client's secret, mode 0600")
}

// check refuses the OAuth flags without --http, half of them, or beside
// a static token; set says whether OAuth is configured.
func (f *oauthFlags) check(httpAddr, tokenFile string, insecureNoAuth bool, hopts *server.HTTPOptions) (set bool, err error) {
	if f.issuer == "" && f.audience == "" && f.scopes == nil && f.introID == "" && f.introSecretAt == "" {
		return false, nil
	}
	switch {
	case httpAddr == "":
		return false, machine.Errorf(machine.InvalidArgument, map[string]any{"argument": "oauth-issuer"}, "--oauth-issuer, --oauth-audience and --oauth-scope apply to --http only")
	case f.issuer == "" || f.audience == "":
		return false, machine.Errorf(machine.InvalidArgument, map[string]any{"argument": "oauth-issuer"}, "OAuth needs both --oauth-issuer and --oauth-audience")
	case (f.introID == "") != (f.introSecretAt == ""):
		return false, machine.Errorf(machine.InvalidArgument, map[string]any{"argument": "oauth-introspection-client-id"},
			"OAuth introspection needs both --oauth-introspection-client-id and --oauth-introspection-secret-file")
	case hopts.Token != "" || tokenFile != "" || insecureNoAuth:
		return false, machine.Errorf(machine.InvalidArgument, map[string]any{"argument": "oauth-issuer"},
			"OAuth is configured and so is a bearer token ($%s, --token-file or --insecure-no-auth): choose one", server.TokenEnv)
	}
	return true, nil
}

// serveOAuth serves srv over HTTP to callers holding OAuth access tokens.
func (a *app) serveOAuth(ctx context.Context, srv *server.Server, f *oauthFlags, httpAddr string, hopts *server.HTTPOptions) error {
	o, err := server.OAuthIntrospecting(ctx, f.issuer, f.audience, f.scopes, f.introID, f.introSecretAt)
	if err != nil {
		return machine.Errorf(machine.InvalidArgument, map[string]any{"argument": "oauth-issuer"}, "limcp mcp --http %s: %v", httpAddr, err)
	}
	hopts.OAuth = o
	ln, err := server.ListenOAuth(httpAddr)
	if err != nil {
		return machine.Errorf(machine.InvalidArgument, map[string]any{"argument": "http"}, "limcp mcp --http %s: %v", httpAddr, err)
	}
	fmt.Fprintf(a.opts.Stderr, "limcp mcp: serving streamable HTTP on http://%s%s (OAuth access tokens of %s for %s required)\n", ln.Addr(), server.HTTPPath, f.issuer, f.audience)
	a.emitted = true
	if err := srv.ServeHTTP(ctx, ln, hopts); err != nil {
		fmt.Fprintf(a.opts.Stderr, "limcp mcp: %v\n", err)
		return ExitStatus(1)
	}
	return nil
}
