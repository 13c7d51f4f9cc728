//go:build unix

package main

import (
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/verbsurface/verbsurface/internal/oauthtest"
)

const oauthAudience = "https://notes.example/mcp"

// The notes fixture served with OAuth (flags, then the configuration's
// oauth section): a request without a token gets 401 naming the resource
// metadata, one without the scope 403 naming it, and a real go-sdk client
// with a token from a real OpenID Provider is served; the token is never
// printed.
func TestHTTPServeOAuth(t *testing.T) {
	p := oauthtest.Start(t)
	p.AddClient(oauthtest.Client{ID: "agent", Secret: "s1", Audience: []string{oauthAudience}})
	meta := "https://notes.example/.well-known/oauth-protected-resource/mcp"
	dir := copyFixture(t)
	config := filepath.Join(dir, "notes.yaml")
	flags := []string{"--oauth-issuer", p.Issuer, "--oauth-audience", oauthAudience, "--oauth-scope", "verbsurface:call"}

	withSection := filepath.Join(dir, "notes-oauth.yaml")
	b, err := os.ReadFile(config)
	if err != nil {
		t.Fatal(err)
	}
	section := "\noauth:\n  issuer: " + p.Issuer + "\n  audience: " + oauthAudience + "\n  scopes: [verbsurface:call]\n"
	if err := os.WriteFile(withSection, append(b, section...), 0o644); err != nil {
		t.Fatal(err)
	}

	for name, args := range map[string][]string{
		"flags":   append([]string{"-c", config, "--http", "127.0.0.1:0"}, flags...),
		"section": {"-c", withSection, "--http", "127.0.0.1:0"},
	} {
		t.Run(name, func(t *testing.T) {
			srv := serveHTTPBin(t, vsEnv(t, t.TempDir()), args...)
			resp, body := rawInitialize(t, srv.url, nil)
			if want := `Bearer realm="verbsurface", resource_metadata="` + meta + `"`; resp.StatusCode != http.StatusUnauthorized || resp.Header.Get("WWW-Authenticate") != want {
				t.Errorf("no token: HTTP %d %q %s; want 401 %q", resp.StatusCode, resp.Header.Get("WWW-Authenticate"), body, want)
			}
			narrow := p.Token(t, "agent", "verbsurface:read")
			resp, body = rawInitialize(t, srv.url, map[string]string{"Authorization": "Bearer " + narrow})
			if resp.StatusCode != http.StatusForbidden || !strings.Contains(resp.Header.Get("WWW-Authenticate"), `error="insufficient_scope", scope="verbsurface:call"`) {
				t.Errorf("missing scope: HTTP %d %q %s; want 403 naming the scope", resp.StatusCode, resp.Header.Get("WWW-Authenticate"), body)
			}
			token := p.Token(t, "agent", "verbsurface:call")
			c := httpClient(t, srv.url, token)
			if verbs := c.call(`{"help":true}`)["help"].(map[string]any)["verbs"]; !strings.Contains(strings.Join(toStrings(verbs), " "), "note.add") {
				t.Fatalf("catalog over OAuth: %v", verbs)
			}
			for _, tok := range []string{token, narrow} {
				if strings.Contains(srv.log.String(), strings.Split(tok, ".")[2]) {
					t.Errorf("the server's log holds a token:\n%s", srv.log)
				}
			}
		})
	}
}

func toStrings(v any) []string {
	var out []string
	switch v := v.(type) {
	case []any:
		for _, e := range v {
			out = append(out, toStrings(e)...)
		}
	case map[string]any:
		for k, e := range v {
			out = append(out, k)
			out = append(out, toStrings(e)...)
		}
	case string:
		out = append(out, v)
	}
	return out
}

// Serve refuses OAuth beside a static token, and half an OAuth
// configuration.
func TestHTTPServeOAuthRefusals(t *testing.T) {
	p := oauthtest.Start(t)
	config := filepath.Join(copyFixture(t), "notes.yaml")
	for name, c := range map[string]struct {
		env  []string
		args []string
		want string
	}{
		"with a token":      {[]string{tokenEnv + "=" + httpToken}, []string{"--oauth-issuer", p.Issuer, "--oauth-audience", oauthAudience}, "choose one"},
		"issuer only":       {nil, []string{"--oauth-issuer", p.Issuer}, "needs both an issuer and an audience"},
		"unreachable":       {nil, []string{"--oauth-issuer", p.Issuer + "/none", "--oauth-audience", oauthAudience}, "publishes no metadata"},
		"plain http issuer": {nil, []string{"--oauth-issuer", "http://idp.example", "--oauth-audience", oauthAudience}, "must be https"},
	} {
		t.Run(name, func(t *testing.T) {
			stderr := startRefused(t, vsEnv(t, t.TempDir(), c.env...), append([]string{"-c", config, "--http", "127.0.0.1:0"}, c.args...)...)
			if !strings.Contains(stderr, c.want) {
				t.Errorf("stderr %q does not say %q", stderr, c.want)
			}
		})
	}
}
