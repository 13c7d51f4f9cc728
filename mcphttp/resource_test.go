//go:build unix

package mcphttp_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/verbsurface/verbsurface/internal/oauthtest"
	"github.com/verbsurface/verbsurface/mcphttp"
	"github.com/verbsurface/verbsurface/mcphttp/oauth"
)

// bearerTransport adds a bearer token to every request, as an MCP client
// configured with a token does.
type bearerTransport struct{ token string }

func (b bearerTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.token)
	return http.DefaultTransport.RoundTrip(r)
}

// serveOAuth serves srv with OAuth tokens of p required, scope
// "verbsurface:call", and returns its endpoint URL.
func serveOAuth(t *testing.T, p *oauthtest.Provider, srv *mcp.Server) string {
	t.Helper()
	return serveIntrospecting(t, p, srv, nil)
}

// serveIntrospecting is serveOAuth accepting opaque tokens by
// introspection as intro, when not nil.
func serveIntrospecting(t *testing.T, p *oauthtest.Provider, srv *mcp.Server, intro *oauth.Credentials) string {
	t.Helper()
	ln, err := mcphttp.ListenOAuth("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	endpoint := "http://" + ln.Addr().String() + mcphttp.Path
	v, err := oauth.New(context.Background(), &oauth.Config{Issuer: p.Issuer, Audience: endpoint, Scopes: []string{"verbsurface:call"}, Introspection: intro})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		done <- mcphttp.Serve(ctx, ln, srv, &mcphttp.Options{Name: "test serve", Realm: "test",
			OAuth: &mcphttp.OAuth{Verify: v.Verify, Metadata: v.Metadata(), Scopes: []string{"verbsurface:call"}, Leeway: v.Leeway()}})
	}()
	t.Cleanup(func() { cancel(); <-done })
	return endpoint
}

func TestOAuthChallenges(t *testing.T) {
	p := oauthtest.Start(t)
	srv := mcp.NewServer(&mcp.Implementation{Name: "test", Version: "v0"}, nil)
	endpoint := serveOAuth(t, p, srv)
	for _, c := range []struct{ id, secret string }{{"caller", "s1"}} {
		p.AddClient(oauthtest.Client{ID: c.id, Secret: c.secret, Audience: []string{endpoint}})
	}
	p.AddClient(oauthtest.Client{ID: "late", Secret: "s2", Audience: []string{endpoint}, Lifetime: -time.Hour})
	meta := strings.TrimSuffix(endpoint, mcphttp.Path) + mcphttp.MetadataPath + mcphttp.Path
	initialize := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"0"}}}`
	expired := p.Token(t, "late", "verbsurface:call")
	for _, c := range []struct {
		name, token string
		code        int
		challenge   string
	}{
		{"no token", "", 401, `Bearer realm="test", resource_metadata="` + meta + `"`},
		{"invalid token", expired, 401, `Bearer realm="test", resource_metadata="` + meta + `", error="invalid_token"`},
		{"missing scope", p.Token(t, "caller", "verbsurface:read"), 403,
			`Bearer realm="test", resource_metadata="` + meta + `", error="insufficient_scope", scope="verbsurface:call"`},
		{"good token", p.Token(t, "caller", "verbsurface:call"), 200, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			req, _ := http.NewRequest("POST", endpoint, strings.NewReader(initialize))
			req.Header.Set("Content-Type", "application/json")
			req.Header.Set("Accept", "application/json, text/event-stream")
			if c.token != "" {
				req.Header.Set("Authorization", "Bearer "+c.token)
			}
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			body, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if resp.StatusCode != c.code {
				t.Fatalf("status %d (%s), want %d", resp.StatusCode, body, c.code)
			}
			if got := resp.Header.Values("WWW-Authenticate"); c.challenge != "" && (len(got) != 1 || got[0] != c.challenge) || c.challenge == "" && len(got) != 0 {
				t.Errorf("WWW-Authenticate = %q, want %q", got, c.challenge)
			}
			for _, part := range strings.Split(c.token, ".") {
				if len(part) > 8 && strings.Contains(string(body), part) {
					t.Errorf("the answer %q repeats part of the token", body)
				}
			}
		})
	}
	t.Run("metadata", func(t *testing.T) {
		for _, u := range []string{meta, strings.TrimSuffix(meta, mcphttp.Path)} {
			resp, err := http.Get(u)
			if err != nil {
				t.Fatal(err)
			}
			var got struct {
				Resource             string   `json:"resource"`
				AuthorizationServers []string `json:"authorization_servers"`
				ScopesSupported      []string `json:"scopes_supported"`
			}
			err = json.NewDecoder(resp.Body).Decode(&got)
			resp.Body.Close()
			if err != nil || resp.StatusCode != 200 || got.Resource != endpoint || len(got.AuthorizationServers) != 1 || got.AuthorizationServers[0] != p.Issuer {
				t.Errorf("GET %s: %d %+v %v", u, resp.StatusCode, got, err)
			}
		}
	})
}

// A go-sdk MCP client with a token from the provider calls a tool; the
// tool sees the token's subject, never the token.
func TestOAuthMCPClient(t *testing.T) {
	p := oauthtest.Start(t)
	srv := mcp.NewServer(&mcp.Implementation{Name: "test", Version: "v0"}, nil)
	mcp.AddTool(srv, &mcp.Tool{Name: "whoami"}, func(_ context.Context, req *mcp.CallToolRequest, _ struct{}) (*mcp.CallToolResult, any, error) {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: req.Extra.TokenInfo.UserID}}}, nil, nil
	})
	endpoint := serveOAuth(t, p, srv)
	p.AddClient(oauthtest.Client{ID: "agent-7", Secret: "s1", Audience: []string{endpoint}})
	token := p.Token(t, "agent-7", "verbsurface:call")

	client := mcp.NewClient(&mcp.Implementation{Name: "client", Version: "v0"}, nil)
	cs, err := client.Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: endpoint,
		HTTPClient: &http.Client{Transport: bearerTransport{token}}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "whoami"})
	if err != nil {
		t.Fatal(err)
	}
	if got := res.Content[0].(*mcp.TextContent).Text; got != "agent-7" {
		t.Errorf("the tool saw subject %q, want agent-7", got)
	}

	// Without a token, the same client is refused before any session.
	bare := mcp.NewClient(&mcp.Implementation{Name: "client", Version: "v0"}, nil)
	if _, err := bare.Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: endpoint}, nil); err == nil {
		t.Fatal("connected without a token")
	}
}

// A session is bound to the subject whose token opened it: another
// subject's valid token on it gets 403 (the SDK's check, fed the
// subject by the verifier).
func TestOAuthSessionBoundToSubject(t *testing.T) {
	p := oauthtest.Start(t)
	srv := mcp.NewServer(&mcp.Implementation{Name: "test", Version: "v0"}, nil)
	endpoint := serveOAuth(t, p, srv)
	p.AddClient(oauthtest.Client{ID: "alice", Secret: "s1", Audience: []string{endpoint}})
	p.AddClient(oauthtest.Client{ID: "bob", Secret: "s2", Audience: []string{endpoint}})
	post := func(token, session, body string) *http.Response {
		req, _ := http.NewRequest("POST", endpoint, strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		req.Header.Set("Authorization", "Bearer "+token)
		if session != "" {
			req.Header.Set("Mcp-Session-Id", session)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		return resp
	}
	resp := post(p.Token(t, "alice", "verbsurface:call"), "",
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"0"}}}`)
	session := resp.Header.Get("Mcp-Session-Id")
	if resp.StatusCode != 200 || session == "" {
		t.Fatalf("initialize: %d, session %q", resp.StatusCode, session)
	}
	ping := `{"jsonrpc":"2.0","id":2,"method":"ping"}`
	if resp := post(p.Token(t, "bob", "verbsurface:call"), session, ping); resp.StatusCode != http.StatusForbidden {
		t.Errorf("bob on alice's session: %d, want 403", resp.StatusCode)
	}
	if resp := post(p.Token(t, "alice", "verbsurface:call"), session, ping); resp.StatusCode != 200 {
		t.Errorf("alice on her session: %d, want 200", resp.StatusCode)
	}
}
