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

// The notes fixture served with OAuth introspection (flags, then the
// configuration's section with a secret file relative to it): a real
// go-sdk client holding an opaque token from the real provider is served;
// an opaque token for another resource gets 401 with the challenge; the
// server's log holds neither token nor the client secret.
func TestHTTPServeOAuthIntrospection(t *testing.T) {
	p := oauthtest.Start(t)
	const secret = "introspection-secret-5c1e"
	p.AddClient(oauthtest.Client{ID: "notes-server", Secret: secret})
	p.AddClient(oauthtest.Client{ID: "agent", Secret: "s1", Audience: []string{oauthAudience}, Opaque: true})
	p.AddClient(oauthtest.Client{ID: "elsewhere", Secret: "s2", Audience: []string{"https://other.example/mcp"}, Opaque: true})
	dir := copyFixture(t)
	config := filepath.Join(dir, "notes.yaml")
	if err := os.WriteFile(filepath.Join(dir, "client-secret"), []byte(secret+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	withSection := notesWith(t, dir, "notes-oauth.yaml", "\noauth:\n  issuer: "+p.Issuer+"\n  audience: "+oauthAudience+
		"\n  introspection: {client_id: notes-server, secret_file: client-secret}\n")
	for name, args := range map[string][]string{
		"flags": {"-c", config, "--http", "127.0.0.1:0", "--oauth-issuer", p.Issuer, "--oauth-audience", oauthAudience,
			"--oauth-introspection-client-id", "notes-server", "--oauth-introspection-secret-file", filepath.Join(dir, "client-secret")},
		"section": {"-c", withSection, "--http", "127.0.0.1:0"},
	} {
		t.Run(name, func(t *testing.T) {
			srv := serveHTTPBin(t, vsEnv(t, t.TempDir()), args...)
			other := p.Token(t, "elsewhere")
			resp, body := rawInitialize(t, srv.url, map[string]string{"Authorization": "Bearer " + other})
			if resp.StatusCode != http.StatusUnauthorized || !strings.HasSuffix(resp.Header.Get("WWW-Authenticate"), `error="invalid_token"`) {
				t.Errorf("an opaque token for another resource: HTTP %d %q %s; want 401 invalid_token", resp.StatusCode, resp.Header.Get("WWW-Authenticate"), body)
			}
			token := p.Token(t, "agent")
			if strings.Count(token, ".") == 2 {
				t.Fatal("the provider issued a JWT, not an opaque token")
			}
			c := httpClient(t, srv.url, token)
			if verbs := c.call(`{"help":true}`)["help"].(map[string]any)["verbs"]; !strings.Contains(strings.Join(toStrings(verbs), " "), "note.add") {
				t.Fatalf("catalog over an introspected token: %v", verbs)
			}
			for _, s := range []string{token, other, secret} {
				if strings.Contains(srv.log.String(), s) {
					t.Errorf("the server's log holds a token or the secret:\n%s", srv.log)
				}
			}
		})
	}
}

// Serve refuses an introspection client whose secret is in a file others
// may read, half a client, or a secret written into the configuration.
func TestHTTPServeOAuthIntrospectionRefusals(t *testing.T) {
	p := oauthtest.Start(t)
	dir := copyFixture(t)
	config := filepath.Join(dir, "notes.yaml")
	loose := filepath.Join(dir, "loose-secret")
	if err := os.WriteFile(loose, []byte("s\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	inline := notesWith(t, dir, "notes-inline.yaml", "\noauth:\n  issuer: "+p.Issuer+"\n  audience: "+oauthAudience+
		"\n  introspection: {client_id: notes-server, secret: s}\n")
	base := []string{"--http", "127.0.0.1:0", "--oauth-issuer", p.Issuer, "--oauth-audience", oauthAudience}
	for name, c := range map[string]struct {
		args []string
		want string
	}{
		"secret file others may read": {append([]string{"-c", config}, append(base, "--oauth-introspection-client-id", "notes-server", "--oauth-introspection-secret-file", loose)...),
			"client secret file " + loose + " is readable or writable by group or others"},
		"client id only": {append([]string{"-c", config}, append(base, "--oauth-introspection-client-id", "notes-server")...), "needs both a client_id and a secret_file"},
		"secret inline":  {[]string{"-c", inline, "--http", "127.0.0.1:0"}, "unknown key"},
	} {
		t.Run(name, func(t *testing.T) {
			stderr := startRefused(t, vsEnv(t, t.TempDir()), c.args...)
			if !strings.Contains(stderr, c.want) {
				t.Errorf("stderr %q does not say %q", stderr, c.want)
			}
		})
	}
}

// notesWith writes the fixture's notes.yaml in dir with more appended,
// as dir/name, and returns its path.
func notesWith(t *testing.T, dir, name, more string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, "notes.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, name)
	if err := os.WriteFile(path, append(b, more...), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}
