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
	"github.com/verbsurface/verbsurface/mcphttp"
	"github.com/verbsurface/verbsurface/projector"
	"github.com/verbsurface/verbsurface/verbsurface"
)

const testToken = "test-token-0123456789abcdefghijklmnop"

// bearer adds the token to every request of a streamable client.
type bearer struct{ token string }

func (b bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.token)
	return http.DefaultTransport.RoundTrip(r)
}

// spawnSurface is a surface with one spawn verb, job.start, whose Go
// handler counts the runs; at most one spawn per client a minute.
func spawnSurface(t *testing.T, key func(context.Context) string) (*mcp.Server, *int) {
	t.Helper()
	reg, err := verbsurface.NewRegistry(nil)
	if err != nil {
		t.Fatal(err)
	}
	started := new(int)
	if err := reg.Register(verbsurface.Verb{Name: "job.start", Class: verbsurface.ClassSpawn, Path: []string{"start"}, Summary: "start a job",
		Handler: func(context.Context, *verbsurface.Call) (any, error) {
			*started++
			return map[string]any{"started": true}, nil
		}}); err != nil {
		t.Fatal(err)
	}
	tree := &projector.Tree{Program: "jobs", Dialect: projector.DialectPflag, Commands: []*projector.Command{
		{Path: []string{}, Params: []*projector.Param{}},
		{Path: []string{"start"}, Runnable: true, Params: []*projector.Param{}},
	}}
	s, err := verbsurface.New(reg, &verbsurface.Options{Source: verbsurface.StaticTree(tree), SpawnsPerMinute: 1, ClientKey: key})
	if err != nil {
		t.Fatal(err)
	}
	srv := mcp.NewServer(&mcp.Implementation{Name: "jobs", Version: "v0"}, nil)
	verbsurface.AddRequestTool(srv, s)
	return srv, started
}

// connect opens a real go-sdk streamable session over HTTP, on
// 2025-11-25: sessions are what these tests are about, and a client on
// 2026-07-28 has none (versions_test.go).
func connect(t *testing.T, url string) *mcp.ClientSession {
	t.Helper()
	return connectVersion(t, url, "2025-11-25")
}

func request(t *testing.T, cs *mcp.ClientSession, req string) map[string]any {
	t.Helper()
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "request", Arguments: json.RawMessage(req)})
	if err != nil {
		t.Fatal(err)
	}
	var r map[string]any
	if err := json.Unmarshal([]byte(res.Content[0].(*mcp.TextContent).Text), &r); err != nil {
		t.Fatal(err)
	}
	return r
}

// startOne asks for one job.start with its fingerprint and returns the
// error code ("" when it ran).
func startOne(t *testing.T, cs *mcp.ClientSession) string {
	t.Helper()
	fp := request(t, cs, `{"help":"job.start"}`)["help"].(map[string]any)["schema_fingerprint"].(string)
	r := request(t, cs, `{"ops":[{"op":"job.start","args":{},"fingerprint":"`+fp+`"}]}`)["results"].([]any)[0].(map[string]any)
	if e, ok := r["error"].(map[string]any); ok {
		return e["code"].(string)
	}
	return ""
}

// TestClientKeyPerSession: with ClientKey each MCP session has its own
// spawn bucket (a second session starts its run while the first is
// rate_limited); without it, every session shares one.
func TestClientKeyPerSession(t *testing.T) {
	for _, c := range []struct {
		name   string
		key    func(context.Context) string
		second string // the second session's code
	}{
		{"keyed by session", mcphttp.ClientKey, ""},
		{"one bucket", nil, "rate_limited"},
	} {
		t.Run(c.name, func(t *testing.T) {
			srv, started := spawnSurface(t, c.key)
			ctx, cancel := context.WithCancel(context.Background())
			ln, err := mcphttp.Listen("127.0.0.1:0", testToken)
			if err != nil {
				t.Fatal(err)
			}
			done := make(chan error, 1)
			go func() { done <- mcphttp.Serve(ctx, ln, srv, &mcphttp.Options{Token: testToken}) }()
			url := "http://" + ln.Addr().String() + mcphttp.Path
			a, b := connect(t, url), connect(t, url)
			if code := startOne(t, a); code != "" {
				t.Fatalf("first spawn of session a: %s", code)
			}
			if code := startOne(t, a); code != "rate_limited" {
				t.Fatalf("second spawn of session a: %q; want rate_limited", code)
			}
			if code := startOne(t, b); code != c.second {
				t.Fatalf("first spawn of session b: %q; want %q", code, c.second)
			}
			if want := map[string]int{"": 2, "rate_limited": 1}[c.second]; *started != want {
				t.Fatalf("%d runs started; want %d", *started, want)
			}
			a.Close()
			b.Close()
			cancel()
			select {
			case err := <-done:
				if err != nil {
					t.Fatalf("Serve after cancel: %v", err)
				}
			case <-time.After(10 * time.Second):
				t.Fatal("Serve did not return after its context ended")
			}
		})
	}
}

// TestServeRefusals: over a real listener, the refusals name the front
// (Options.Name) and carry the challenge with its realm.
func TestServeRefusals(t *testing.T) {
	srv := mcp.NewServer(&mcp.Implementation{Name: "x", Version: "v0"}, nil)
	ln, err := mcphttp.Listen("127.0.0.1:0", testToken)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go mcphttp.Serve(ctx, ln, srv, &mcphttp.Options{Token: testToken, Name: "my front", Realm: "mine", MaxSessions: 1})
	url := "http://" + ln.Addr().String() + mcphttp.Path
	post := func(hdr map[string]string) (*http.Response, string) {
		req, _ := http.NewRequest("POST", url, strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"0"}}}`))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		for k, v := range hdr {
			req.Header.Set(k, v)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp, string(b)
	}
	if resp, _ := post(map[string]string{"Authorization": "Bearer wrong-token-0123456789abcdefghijkl"}); resp.StatusCode != 401 || resp.Header.Get("WWW-Authenticate") != `Bearer realm="mine"` {
		t.Errorf("a wrong token: HTTP %d, WWW-Authenticate %q", resp.StatusCode, resp.Header.Get("WWW-Authenticate"))
	}
	if resp, body := post(map[string]string{"Origin": "https://evil.example"}); resp.StatusCode != 403 || !strings.HasPrefix(body, "my front: Forbidden") {
		t.Errorf("a foreign origin: HTTP %d %s", resp.StatusCode, body)
	}
	auth := map[string]string{"Authorization": "Bearer " + testToken}
	if resp, body := post(auth); resp.StatusCode != 200 {
		t.Fatalf("initialize: HTTP %d %s", resp.StatusCode, body)
	}
	if resp, body := post(auth); resp.StatusCode != 503 || !strings.HasPrefix(body, "my front: Service Unavailable: 1 MCP sessions") || resp.Header.Get("Retry-After") == "" {
		t.Errorf("beyond the cap: HTTP %d %s", resp.StatusCode, body)
	}
}

// TestEnsureTokenFileName: the name is a file name in the directory,
// never a path that leaves it.
func TestEnsureTokenFileName(t *testing.T) {
	dir := t.TempDir()
	for _, name := range []string{"", ".", "..", "../escape", "a/b"} {
		if _, _, _, err := mcphttp.EnsureTokenFile(dir, name); err == nil || !strings.HasPrefix(err.Error(), "mcphttp: EnsureTokenFile:") {
			t.Errorf("EnsureTokenFile(dir, %q) = %v; want a refusal", name, err)
		}
	}
}
