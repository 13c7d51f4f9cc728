//go:build unix

package mcphttp_test

import (
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/verbsurface/verbsurface/internal/oauthtest"
	"github.com/verbsurface/verbsurface/mcphttp"
	"github.com/verbsurface/verbsurface/mcphttp/oauth"
)

// With introspection, an opaque token the issuer says is active and for
// this server is served; one for another resource gets 401 with the
// challenge; and while the introspection endpoint fails or is down, a
// good token gets 503 saying so, never a pass and never a 401 that would
// send the client to fetch a new token.
func TestOAuthIntrospection(t *testing.T) {
	p := oauthtest.Start(t)
	srv := mcp.NewServer(&mcp.Implementation{Name: "test", Version: "v0"}, nil)
	endpoint := serveIntrospecting(t, p, srv, &oauth.Credentials{ClientID: "mcp", Secret: "rs"})
	p.AddClient(oauthtest.Client{ID: "mcp", Secret: "rs"})
	p.AddClient(oauthtest.Client{ID: "caller", Secret: "s1", Audience: []string{endpoint}, Opaque: true})
	p.AddClient(oauthtest.Client{ID: "elsewhere", Secret: "s2", Audience: []string{"https://other.example/mcp"}, Opaque: true})
	meta := strings.TrimSuffix(endpoint, mcphttp.Path) + mcphttp.MetadataPath + mcphttp.Path
	initialize := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"0"}}}`
	post := func(token string) (*http.Response, string) {
		req, _ := http.NewRequest("POST", endpoint, strings.NewReader(initialize))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		req.Header.Set("Authorization", "Bearer "+token)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if strings.Contains(string(body), token) {
			t.Errorf("the answer %q repeats the token", body)
		}
		return resp, string(body)
	}
	if resp, body := post(p.Token(t, "caller", "verbsurface:call")); resp.StatusCode != 200 {
		t.Fatalf("an active opaque token: %d %s", resp.StatusCode, body)
	}
	resp, body := post(p.Token(t, "elsewhere", "verbsurface:call"))
	if want := `Bearer realm="test", resource_metadata="` + meta + `", error="invalid_token"`; resp.StatusCode != 401 || resp.Header.Get("WWW-Authenticate") != want {
		t.Errorf("an opaque token for another resource: %d %q %s; want 401 %q", resp.StatusCode, resp.Header.Get("WWW-Authenticate"), body, want)
	}
	if resp, body := post(p.Token(t, "caller", "verbsurface:read")); resp.StatusCode != 403 ||
		!strings.Contains(resp.Header.Get("WWW-Authenticate"), `error="insufficient_scope", scope="verbsurface:call"`) {
		t.Errorf("an opaque token without the scope: %d %q %s; want 403 naming it", resp.StatusCode, resp.Header.Get("WWW-Authenticate"), body)
	}

	fresh := p.Token(t, "caller", "verbsurface:call")
	p.BreakIntrospection(true)
	resp, body = post(fresh)
	if resp.StatusCode != http.StatusServiceUnavailable || !strings.Contains(body, "could not be asked") || resp.Header.Get("Retry-After") == "" {
		t.Errorf("introspection failing: %d %q; want 503 saying the issuer could not be asked", resp.StatusCode, body)
	}
	fresh2 := p.Token(t, "caller", "verbsurface:call")
	p.Close()
	resp, body = post(fresh2)
	if resp.StatusCode != http.StatusServiceUnavailable || !strings.Contains(body, "connection refused") {
		t.Errorf("introspection down: %d %q; want 503 saying so", resp.StatusCode, body)
	}
}
