//go:build unix

package main

import (
	"strings"
	"testing"
)

// The oauth section's exchange: its shape is checked when the OAuth
// configuration is resolved, its client defaults to the introspection
// one, and its secret file is relative to the configuration.
func TestOAuthExchangeConfig(t *testing.T) {
	intro := &OAuthClient{ClientID: "mcp", SecretFile: "intro-secret"}
	own := &OAuthClient{ClientID: "mcp-exchange", SecretFile: "/etc/verbsurface/exchange-secret"}
	for _, c := range []struct {
		name       string
		exchange   OAuthExchangeConfig
		intro      *OAuthClient
		wantErr    string
		wantClient OAuthClient
	}{
		{name: "the introspection client", exchange: OAuthExchangeConfig{Audience: "https://api.example", Env: "API_TOKEN"}, intro: intro,
			wantClient: OAuthClient{ClientID: "mcp", SecretFile: "/cfg/intro-secret"}},
		{name: "its own client", exchange: OAuthExchangeConfig{Audience: "api", Env: "API_TOKEN", Client: own}, intro: intro, wantClient: *own},
		{name: "no client", exchange: OAuthExchangeConfig{Audience: "api", Env: "API_TOKEN"}, wantErr: "needs this server's client"},
		{name: "half a client", exchange: OAuthExchangeConfig{Audience: "api", Env: "API_TOKEN", Client: &OAuthClient{ClientID: "x"}}, wantErr: "client needs both"},
		{name: "no audience", exchange: OAuthExchangeConfig{Env: "API_TOKEN"}, intro: intro, wantErr: "needs an audience"},
		{name: "audience with a space", exchange: OAuthExchangeConfig{Audience: "api x", Env: "API_TOKEN"}, intro: intro, wantErr: "needs an audience"},
		{name: "no env", exchange: OAuthExchangeConfig{Audience: "api"}, intro: intro, wantErr: "not an environment variable name"},
		{name: "env not a name", exchange: OAuthExchangeConfig{Audience: "api", Env: "API-TOKEN"}, intro: intro, wantErr: "not an environment variable name"},
		{name: "env the bearer token's", exchange: OAuthExchangeConfig{Audience: "api", Env: tokenEnv}, intro: intro, wantErr: "bearer token variable"},
		{name: "scope with a space", exchange: OAuthExchangeConfig{Audience: "api", Env: "T", Scopes: []string{"a b"}}, intro: intro, wantErr: "not a scope token"},
	} {
		t.Run(c.name, func(t *testing.T) {
			x := c.exchange
			cfg := &OAuthConfig{Issuer: "https://id.example", Audience: "https://mcp.example/mcp", Introspection: c.intro, Exchange: &x}
			r, err := (&oauthFlags{}).resolve(cfg, "/cfg")
			if c.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), c.wantErr) {
					t.Fatalf("resolve: %v; want an error saying %q", err, c.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got := *r.Exchange.Client; got != c.wantClient {
				t.Errorf("exchange client = %+v, want %+v", got, c.wantClient)
			}
			if cfg.Introspection != nil && cfg.Introspection.SecretFile != "intro-secret" || x.Client != c.exchange.Client {
				t.Errorf("resolve changed the loaded configuration")
			}
		})
	}
}

// The exchange section is read from YAML with every key, and a key that
// is not one is refused.
func TestOAuthExchangeYAML(t *testing.T) {
	dir := copyFixture(t)
	write := func(section string) string {
		return notesWith(t, dir, "notes-exchange.yaml", "\noauth:\n  issuer: https://id.example\n  audience: https://mcp.example/mcp\n"+section)
	}
	c, err := LoadConfig(write("  exchange: {audience: https://api.example, env: API_TOKEN, scopes: [api:read], client: {client_id: mcp, secret_file: s}}\n"))
	if err != nil {
		t.Fatal(err)
	}
	if x := c.OAuth.Exchange; x.Audience != "https://api.example" || x.Env != "API_TOKEN" || len(x.Scopes) != 1 || x.Client.ClientID != "mcp" {
		t.Errorf("exchange = %+v", x)
	}
	if _, err := LoadConfig(write("  exchange: {audience: a, env: T, token: leaked}\n")); err == nil || !strings.Contains(err.Error(), "unknown key") {
		t.Errorf("an unknown exchange key: %v", err)
	}
}
