package oauth_test

import (
	"context"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/verbsurface/verbsurface/internal/oauthtest"
	"github.com/verbsurface/verbsurface/mcphttp/oauth"
)

// TestNamedClaims: the claims Config.Claims names reach the TokenInfo as
// lists of strings (a string claim is one value); every other claim is
// dropped, and without names nothing is kept.
func TestNamedClaims(t *testing.T) {
	p := oauthtest.Start(t)
	p.AddClient(oauthtest.Client{ID: "alice", Secret: "s", Audience: []string{audience},
		Claims: map[string]any{"groups": []string{"oncall", "dev"}, "role": "admin", "secret_level": "9"}})
	tok := p.Token(t, "alice")
	for _, c := range []struct {
		name   string
		claims []string
		want   map[string][]string
	}{
		{"an array and a string", []string{"groups", "role"}, map[string][]string{"groups": {"oncall", "dev"}, "role": {"admin"}}},
		{"an absent claim has no values", []string{"groups", "roles"}, map[string][]string{"groups": {"oncall", "dev"}}},
	} {
		t.Run(c.name, func(t *testing.T) {
			v, err := oauth.New(context.Background(), &oauth.Config{Issuer: p.Issuer, Audience: audience, Claims: c.claims})
			if err != nil {
				t.Fatal(err)
			}
			info, err := v.Verify(context.Background(), tok, nil)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(c.want, info.Extra[oauth.ClaimsKey]); diff != "" {
				t.Errorf("claims (-want +got):\n%s", diff)
			}
		})
	}
	v, err := oauth.New(context.Background(), &oauth.Config{Issuer: p.Issuer, Audience: audience})
	if err != nil {
		t.Fatal(err)
	}
	info, err := v.Verify(context.Background(), tok, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := info.Extra[oauth.ClaimsKey]; ok {
		t.Errorf("no claims named, yet Extra holds %v", info.Extra[oauth.ClaimsKey])
	}
}

// An opaque token's named claims come from the issuer's introspection
// answer, as a JWT's come from the token: the same values, and a cached
// answer's claims cannot be changed through a copy handed out.
func TestNamedClaimsIntrospected(t *testing.T) {
	p := oauthtest.Start(t)
	p.AddClient(oauthtest.Client{ID: "mcp", Secret: "rs"})
	p.AddClient(oauthtest.Client{ID: "alice", Secret: "s", Audience: []string{audience}, Opaque: true,
		Claims: map[string]any{"groups": []string{"oncall", "dev"}, "role": "admin"}})
	tok := p.Token(t, "alice")
	if strings.Count(tok, ".") == 2 {
		t.Fatal("the provider issued a JWT, not an opaque token")
	}
	v, err := oauth.New(context.Background(), &oauth.Config{Issuer: p.Issuer, Audience: audience, Claims: []string{"groups", "role"},
		Introspection: &oauth.Credentials{ClientID: "mcp", Secret: "rs"}})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string][]string{"groups": {"oncall", "dev"}, "role": {"admin"}}
	for i := range 2 { // the second answer is the cache's
		info, err := v.Verify(context.Background(), tok, nil)
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(want, info.Extra[oauth.ClaimsKey]); diff != "" {
			t.Errorf("verify %d: claims (-want +got):\n%s", i+1, diff)
		}
		info.Extra[oauth.ClaimsKey].(map[string][]string)["groups"][0] = "changed"
	}
}
