//go:build unix

package cli

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/spf13/cobra"
	"github.com/verbsurface/verbsurface/examples/limcp/internal/machine"
	"github.com/verbsurface/verbsurface/examples/limcp/internal/server"
	"github.com/verbsurface/verbsurface/policy"
	"github.com/verbsurface/verbsurface/verbsurface"
)

// oauthFlags are `limcp mcp`'s OAuth flags, the same as `verbsurface
// serve`'s.
type oauthFlags struct {
	issuer, audience       string
	scopes                 []string
	introID, introSecretAt string
	claims                 []string
	classScopes            []string // CLASS=SCOPE
}

func (f *oauthFlags) register(c *cobra.Command) {
	fs := c.Flags()
	fs.StringVar(&f.issuer, "oauth-issuer", "", "accept OAuth 2.1 access tokens (JWTs) of this issuer instead of the bearer token (with --oauth-audience)")
	fs.StringVar(&f.audience, "oauth-audience", "", "this server's canonical URL (https://host/mcp): the audience a token must be issued for")
	fs.StringArrayVar(&f.scopes, "oauth-scope", nil, "a scope every token must grant (repeatable; 403 naming it otherwise)")
	fs.StringVar(&f.introID, "oauth-introspection-client-id", "", "accept opaque tokens too, by the issuer's introspection endpoint, as this client (with --oauth-introspection-secret-file)")
	fs.StringVar(&f.introSecretAt, "oauth-introspection-secret-file", "", "file holding that client's secret, mode 0600")
	fs.StringArrayVar(&f.claims, "oauth-claim", nil, "a token claim that reaches policy's who: conditions, such as groups or roles (repeatable)")
	fs.StringArrayVar(&f.classScopes, "oauth-class-scope", nil, "CLASS=SCOPE: a token must grant SCOPE to run a verb of CLASS (spawn, observe, control; repeatable)")
}

// classScopeMap reads --oauth-class-scope.
func (f *oauthFlags) classScopeMap() (map[verbsurface.Class][]string, error) {
	var out map[verbsurface.Class][]string
	for _, cs := range f.classScopes {
		class, scope, ok := strings.Cut(cs, "=")
		switch verbsurface.Class(class) {
		case verbsurface.ClassSpawn, verbsurface.ClassObserve, verbsurface.ClassControl:
		default:
			ok = false
		}
		if !ok || scope == "" || strings.ContainsAny(scope, " \t\"") {
			return nil, machine.Errorf(machine.InvalidArgument, map[string]any{"argument": "oauth-class-scope"},
				"--oauth-class-scope %q: want CLASS=SCOPE, CLASS one of spawn, observe, control and SCOPE one word", cs)
		}
		if out == nil {
			out = map[verbsurface.Class][]string{}
		}
		if !slices.Contains(out[verbsurface.Class(class)], scope) {
			out[verbsurface.Class(class)] = append(out[verbsurface.Class(class)], scope)
		}
	}
	return out, nil
}

// checkClaims refuses a policy whose who: rules test a claim --oauth-claim
// does not name: such a rule would never hold.
func (f *oauthFlags) checkClaims(pol *policy.Policy) error {
	if pol == nil {
		return nil
	}
	for _, name := range pol.Claims() {
		if !slices.Contains(f.claims, name) {
			return machine.Errorf(machine.InvalidArgument, map[string]any{"argument": "oauth-claim"},
				"policy %s: a rule tests the claim %q, which no --oauth-claim names: tokens' %s would never reach it; add --oauth-claim %s", pol.File, name, name, name)
		}
	}
	return nil
}

// check refuses the OAuth flags without --http, half of them, or beside
// a static token; set says whether OAuth is configured.
func (f *oauthFlags) check(httpAddr, tokenFile string, insecureNoAuth bool, hopts *server.HTTPOptions) (set bool, err error) {
	if f.issuer == "" && f.audience == "" && f.scopes == nil && f.introID == "" && f.introSecretAt == "" && f.claims == nil && f.classScopes == nil {
		return false, nil
	}
	switch {
	case httpAddr == "":
		return false, machine.Errorf(machine.InvalidArgument, map[string]any{"argument": "oauth-issuer"}, "--oauth-issuer, --oauth-audience, --oauth-scope, --oauth-claim and --oauth-class-scope apply to --http only")
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
	o, err := srv.OAuth(ctx, f.issuer, f.audience, f.scopes, f.claims, f.introID, f.introSecretAt)
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
