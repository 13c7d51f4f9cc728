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

// limcp mcp with OAuth: a token from a real OpenID Provider (zitadel/oidc,
// in process) serves a go-sdk client; no token gets 401 naming the
// resource metadata; a token for another resource, 401; a token without
// the scope, 403 naming it. The audit line names the subject and client;
// neither it nor the server's log holds a token.
func TestHTTPOAuth(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	p := oauthtest.Start(t)
	const aud = "https://limcp.example/mcp"
	p.AddClient(oauthtest.Client{ID: "agent", Secret: "s1", Audience: []string{aud}})
	p.AddClient(oauthtest.Client{ID: "elsewhere", Secret: "s2", Audience: []string{"https://other.example/mcp"}})
	audit := filepath.Join(t.TempDir(), "audit.jsonl")
	srv := e.startHTTPServer("", "--oauth-issuer", p.Issuer, "--oauth-audience", aud, "--oauth-scope", "limcp:call", "--audit", audit)

	meta := `resource_metadata="https://limcp.example/.well-known/oauth-protected-resource/mcp"`
	other := p.Token(t, "elsewhere", "limcp:call")
	narrow := p.Token(t, "agent", "limcp:read")
	for _, c := range []struct {
		name, token string
		code        int
		challenge   string
	}{
		{"no token", "", http.StatusUnauthorized, meta},
		{"token for another resource", other, http.StatusUnauthorized, meta + `, error="invalid_token"`},
		{"missing scope", narrow, http.StatusForbidden, meta + `, error="insufficient_scope", scope="limcp:call"`},
	} {
		hdr := map[string]string{}
		if c.token != "" {
			hdr["Authorization"] = "Bearer " + c.token
		}
		resp, body := rawPost(t, "POST", srv.url, initializeBody, hdr)
		if resp.StatusCode != c.code || !strings.HasSuffix(resp.Header.Get("WWW-Authenticate"), c.challenge) {
			t.Errorf("%s: HTTP %d %q %s; want %d ending %q", c.name, resp.StatusCode, resp.Header.Get("WWW-Authenticate"), body, c.code, c.challenge)
		}
	}
	token := p.Token(t, "agent", "limcp:call")
	e.dialHTTP(srv.url, token).must(nil, "job.list", map[string]any{}, "")
	// The audit line names the token's subject and client, never the token.
	b, err := os.ReadFile(audit)
	if err != nil {
		t.Fatal(err)
	}
	var line struct {
		Verb     string `json:"verb"`
		Subject  string `json:"subject"`
		ClientID string `json:"client_id"`
	}
	if err := json.Unmarshal(b, &line); err != nil || line.Verb != "job.list" {
		t.Fatalf("audit %s: %v", b, err)
	}
	if line.Subject != "agent" || line.ClientID != "agent" || strings.Contains(string(b), strings.Split(token, ".")[2]) {
		t.Errorf("audit line %s: want subject and client_id agent, and no token", b)
	}
	for _, tok := range []string{token, other, narrow} {
		if strings.Contains(srv.log.String(), strings.Split(tok, ".")[2]) {
			t.Errorf("the server's log holds a token:\n%s", srv.log)
		}
	}

	// Refused at start: beside a static token, or half configured.
	if bad := e.fail("invalid_argument", "mcp", "--http", "127.0.0.1:0", "--insecure-no-auth", "--oauth-issuer", p.Issuer, "--oauth-audience", aud); !strings.Contains(bad.Error.Message, "choose one") {
		t.Errorf("OAuth with --insecure-no-auth: %s", bad.Error.Message)
	}
	if bad := e.fail("invalid_argument", "mcp", "--http", "127.0.0.1:0", "--oauth-issuer", p.Issuer); !strings.Contains(bad.Error.Message, "both") {
		t.Errorf("issuer without audience: %s", bad.Error.Message)
	}
}
