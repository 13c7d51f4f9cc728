//go:build unix

package main

import (
	"fmt"
	"regexp"
	"strings"
)

// OAuthExchangeConfig is the oauth section's exchange: the caller's
// access token is exchanged at the issuer (RFC 8693, package
// mcphttp/oauth's Exchanger) for a token whose audience is the program's
// backend, handed to a run in the environment variable Env, never logged.
// Client is this server's client at the issuer, which the issuer must
// permit to exchange for Audience; when absent, the introspection client.
//
// Only the shape is read and checked here; handing the token to a run is
// the front's run wiring.
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
