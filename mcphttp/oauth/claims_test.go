package oauth_test

import (
	"context"
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
