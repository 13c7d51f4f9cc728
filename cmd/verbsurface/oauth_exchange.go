//go:build unix

package main

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"regexp"
	"strings"
	"sync/atomic"

	"github.com/verbsurface/verbsurface/mcphttp/oauth"
	"github.com/verbsurface/verbsurface/verbsurface"
)

// OAuthExchangeConfig is the oauth section's exchange: the caller's
// access token is exchanged at the issuer (RFC 8693, package
// mcphttp/oauth's Exchanger) for a token whose audience is the program's
// backend, handed to a run in the environment variable Env, never logged.
// Client is this server's client at the issuer, which the issuer must
// permit to exchange for Audience; when absent, the introspection client.
//
// The token reaches each command an op runs (foreground or background)
// in Env, through verbsurface.RunIdentity's Exchange (exchangeSeam below).
type OAuthExchangeConfig struct {
	Audience string       `yaml:"audience"`
	Env      string       `yaml:"env"`
	Scopes   []string     `yaml:"scopes"`
	Client   *OAuthClient `yaml:"client"`
}

// envName is a portable environment variable name.
var envName = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)

// check refuses an exchange without an audience, a variable, or a client
// (its own or the introspection one, intro); nil is no exchange. When the
// exchange has no client of its own it takes intro.
func (e *OAuthExchangeConfig) check(intro *OAuthClient) error {
	if e == nil {
		return nil
	}
	const what = "oauth: exchange"
	switch {
	case e.Audience == "" || strings.ContainsFunc(e.Audience, func(r rune) bool { return r <= ' ' || r == 0x7f }):
		return fmt.Errorf("%s needs an audience (the backend's URL or name at the issuer), without spaces or control characters", what)
	case !envName.MatchString(e.Env):
		return fmt.Errorf("%s: env %q is not an environment variable name (letters, digits, _; not starting with a digit)", what, e.Env)
	case e.Env == tokenEnv:
		return fmt.Errorf("%s: env %s is the server's own bearer token variable; choose another", what, e.Env)
	}
	for _, s := range e.Scopes {
		if s == "" || strings.ContainsFunc(s, func(r rune) bool { return r <= ' ' || r == 0x7f || r == '"' || r == '\\' }) {
			return fmt.Errorf("%s: scope %q is not a scope token (RFC 6749 section 3.3)", what, s)
		}
	}
	if e.Client == nil {
		if intro == nil {
			return fmt.Errorf("%s needs this server's client at the issuer: exchange: {client: {client_id, secret_file}}, or an introspection client", what)
		}
		e.Client = intro
	}
	return e.Client.check(what + ": client")
}

// exchangeClient is where r's exchange client is, for resolving its path
// (a nil pointer's field when there is no exchange).
func exchangeClient(r *OAuthConfig) **OAuthClient {
	if r.Exchange == nil {
		return new(*OAuthClient)
	}
	x := *r.Exchange
	r.Exchange = &x
	return &x.Client
}

// exchangeSeam hands a run the token the issuer gives for the caller's
// (RFC 8693): verbsurface.RunIdentity's Exchange, whose exchanger exists
// only once serve verifies OAuth tokens over HTTP (serveOAuth sets it).
// A caller with an identity exists only then, so before it nothing asks.
type exchangeSeam struct {
	audience, env string
	exchanger     atomic.Pointer[oauth.Exchanger]
}

// exchange returns the run's one environment entry, ENV=token. The
// caller's token is read from the request's Authorization header, shown
// to the issuer and nowhere else; neither token is quoted in an error.
func (x *exchangeSeam) exchange(ctx context.Context, _ verbsurface.ClientInfo, header http.Header) ([]string, error) {
	ex := x.exchanger.Load()
	if ex == nil {
		return nil, errors.New("no token exchange: this server verifies no OAuth token")
	}
	scheme, token, ok := strings.Cut(header.Get("Authorization"), " ")
	if !ok || !strings.EqualFold(scheme, "Bearer") || token == "" {
		return nil, errors.New("no bearer token to exchange")
	}
	tok, err := ex.Exchange(ctx, token, x.audience)
	if err != nil {
		return nil, err
	}
	return []string{x.env + "=" + tok.AccessToken}, nil
}

// exchangeOptions gives sopts the exchange seam when the configuration
// asks for one, and returns it (nil when it does not).
func (c *Config) exchangeOptions(sopts *verbsurface.Options) *exchangeSeam {
	if c.OAuth == nil || c.OAuth.Exchange == nil {
		return nil
	}
	x := &exchangeSeam{audience: c.OAuth.Exchange.Audience, env: c.OAuth.Exchange.Env}
	if sopts.Identity == nil {
		sopts.Identity = &verbsurface.RunIdentity{}
	}
	sopts.Identity.Exchange = x.exchange
	return x
}

// startExchange makes f's exchanger from oc (the resolved oauth section)
// at the issuer; nothing when no exchange is configured.
func startExchange(ctx context.Context, f *front, oc *OAuthConfig) error {
	if f.exchange == nil || oc.Exchange == nil {
		return nil
	}
	creds, err := oc.Exchange.Client.credentials()
	if err != nil {
		return fmt.Errorf("OAuth token exchange: %w", err)
	}
	ex, err := oauth.NewExchanger(ctx, &oauth.ExchangeConfig{Issuer: oc.Issuer, Credentials: creds, Scopes: oc.Exchange.Scopes})
	if err != nil {
		return fmt.Errorf("OAuth token exchange: %w", err)
	}
	f.exchange.exchanger.Store(ex)
	return nil
}
