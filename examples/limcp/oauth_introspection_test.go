//go:build unix

package main

import (
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/verbsurface/verbsurface/internal/oauthtest"
)

// limcp mcp with OAuth introspection: an opaque token from the real
// provider serves a go-sdk client and the audit line names its subject;
// an opaque token for another resource gets 401; while introspection
// fails a good token gets 503; the secret only from a private file.
func TestHTTPOAuthIntrospection(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	p := oauthtest.Start(t)
	const aud = "https://limcp.example/mcp"
	const secret = "limcp-introspection-7d2a"
	p.AddClient(oauthtest.Client{ID: "limcp-server", Secret: secret})
	p.AddClient(oauthtest.Client{ID: "agent", Secret: "s1", Audience: []string{aud}, Opaque: true})
	p.AddClient(oauthtest.Client{ID: "elsewhere", Secret: "s2", Audience: []string{"https://other.example/mcp"}, Opaque: true})
	dir := t.TempDir()
	secretFile, loose := filepath.Join(dir, "secret"), filepath.Join(dir, "loose")
	if err := os.WriteFile(secretFile, []byte(secret+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(loose, []byte(secret+"\n"), 0o640); err != nil {
		t.Fatal(err)
	}
	audit := filepath.Join(dir, "audit.jsonl")
	oauthArgs := []string{"--oauth-issuer", p.Issuer, "--oauth-audience", aud, "--oauth-scope", "limcp:call"}
	srv := e.startHTTPServer("", append(oauthArgs, "--audit", audit,
		"--oauth-introspection-client-id", "limcp-server", "--oauth-introspection-secret-file", secretFile)...)

	other := p.Token(t, "elsewhere", "limcp:call")
	resp, body := rawPost(t, "POST", srv.url, initializeBody, map[string]string{"Authorization": "Bearer " + other})
	if resp.StatusCode != http.StatusUnauthorized || !strings.HasSuffix(resp.Header.Get("WWW-Authenticate"), `error="invalid_token"`) {
		t.Errorf("an opaque token for another resource: HTTP %d %q %s", resp.StatusCode, resp.Header.Get("WWW-Authenticate"), body)
	}
	token := p.Token(t, "agent", "limcp:call")
	e.dialHTTP(srv.url, token).must(nil, "job.list", map[string]any{}, "")
	b, err := os.ReadFile(audit)
	if err != nil {
		t.Fatal(err)
	}
	var line struct {
		Subject  string `json:"subject"`
		ClientID string `json:"client_id"`
	}
	if err := json.Unmarshal(b, &line); err != nil || line.Subject != "agent" || line.ClientID != "agent" {
		t.Errorf("audit line %s: want subject and client_id agent (%v)", b, err)
	}

	p.BreakIntrospection(true)
	resp, body = rawPost(t, "POST", srv.url, initializeBody, map[string]string{"Authorization": "Bearer " + p.Token(t, "agent", "limcp:call")})
	if resp.StatusCode != http.StatusServiceUnavailable {
		t.Errorf("introspection failing: HTTP %d %s; want 503", resp.StatusCode, body)
	}
	for _, s := range []string{token, other, secret} {
		if strings.Contains(srv.log.String(), s) || strings.Contains(string(b), s) {
			t.Errorf("the server's log or audit holds a token or the secret:\n%s", srv.log)
		}
	}

	bad := e.fail("invalid_argument", append([]string{"mcp", "--http", "127.0.0.1:0"}, append(oauthArgs,
		"--oauth-introspection-client-id", "limcp-server", "--oauth-introspection-secret-file", loose)...)...)
	if !strings.Contains(bad.Error.Message, "readable or writable by group or others") {
		t.Errorf("a secret file others may read: %s", bad.Error.Message)
	}
	bad = e.fail("invalid_argument", append([]string{"mcp", "--http", "127.0.0.1:0"}, append(oauthArgs, "--oauth-introspection-client-id", "limcp-server")...)...)
	if !strings.Contains(bad.Error.Message, "needs both") {
		t.Errorf("a client id without its secret file: %s", bad.Error.Message)
	}
}
