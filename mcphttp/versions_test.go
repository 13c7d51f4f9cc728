//go:build unix

package mcphttp_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/verbsurface/verbsurface/mcphttp"
)

// serveVersions serves srv with the test token and o, and returns the
// endpoint's URL.
func serveVersions(t *testing.T, srv *mcp.Server, o *mcphttp.Options) string {
	t.Helper()
	ln, err := mcphttp.Listen("127.0.0.1:0", testToken)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- mcphttp.Serve(ctx, ln, srv, o) }()
	t.Cleanup(func() {
		cancel()
		<-done
	})
	return "http://" + ln.Addr().String() + mcphttp.Path
}

// connectVersion opens a go-sdk client pinned to version.
func connectVersion(t *testing.T, url, version string) *mcp.ClientSession {
	t.Helper()
	tr := &mcp.StreamableClientTransport{Endpoint: url, HTTPClient: &http.Client{Transport: bearer{testToken}}}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "v0"}, nil).Connect(context.Background(), tr,
		&mcp.ClientSessionOptions{ProtocolVersion: version})
	if err != nil {
		t.Fatalf("connecting on %s: %v", version, err)
	}
	t.Cleanup(func() { cs.Close() })
	if got := cs.InitializeResult().ProtocolVersion; got != version {
		t.Fatalf("negotiated %s; want %s", got, version)
	}
	return cs
}

// TestBothVersionsAtOnce: one endpoint serves a client on 2026-07-28
// (statelessly: no session id) and one on 2025-11-25 (in its session) at
// the same time, each calling the tool many times concurrently; the
// stateless client takes no session slot, so with MaxSessions 1 the
// 2025-11-25 session still opens after it.
func TestBothVersionsAtOnce(t *testing.T) {
	srv, _ := spawnSurface(t, mcphttp.ClientKey)
	url := serveVersions(t, srv, &mcphttp.Options{Token: testToken, MaxSessions: 1})
	newer := connectVersion(t, url, "2026-07-28")
	if id := newer.ID(); id != "" {
		t.Fatalf("the 2026-07-28 client has session %q; want none", id)
	}
	older := connectVersion(t, url, "2025-11-25")
	if older.ID() == "" {
		t.Fatal("the 2025-11-25 client has no session")
	}
	var wg sync.WaitGroup
	errs := make(chan string, 20)
	for i := range 20 {
		cs := []*mcp.ClientSession{newer, older}[i%2]
		wg.Add(1)
		go func() {
			defer wg.Done()
			res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "request", Arguments: json.RawMessage(`{"help":true}`)})
			if err != nil {
				errs <- err.Error()
				return
			}
			if res.IsError || !strings.Contains(res.Content[0].(*mcp.TextContent).Text, "job.start") {
				errs <- "catalog without job.start"
			}
		}()
	}
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Error(e)
	}
}

// TestStatelessSpawnLimit: the spawn limit holds on the stateless path:
// 2026-07-28 clients have no session, so they share one bucket (the
// ClientKey ""), and a second client is refused the spawn the first spent.
func TestStatelessSpawnLimit(t *testing.T) {
	srv, started := spawnSurface(t, mcphttp.ClientKey)
	url := serveVersions(t, srv, &mcphttp.Options{Token: testToken})
	a, b := connectVersion(t, url, "2026-07-28"), connectVersion(t, url, "2026-07-28")
	if code := startOne(t, a); code != "" {
		t.Fatalf("first spawn: %s", code)
	}
	if code := startOne(t, b); code != "rate_limited" {
		t.Fatalf("second client's spawn: %q; want rate_limited", code)
	}
	if *started != 1 {
		t.Fatalf("%d runs started; want 1", *started)
	}
}

// newerCall is a tools/call on 2026-07-28 as such a client sends it.
const newerCall = `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"request","arguments":{"help":true},` +
	`"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}`

// TestStatelessPathGuards: a request on 2026-07-28 meets every check
// before the SDK, as an older client's does: token, Origin, body cap;
// the header is routed on, and without it the _meta version is, so the
// client hears which header is missing.
func TestStatelessPathGuards(t *testing.T) {
	srv, _ := spawnSurface(t, nil)
	url := serveVersions(t, srv, &mcphttp.Options{Token: testToken, MaxBodyBytes: 4096})
	newer := map[string]string{"Mcp-Protocol-Version": "2026-07-28", "Mcp-Method": "tools/call", "Mcp-Name": "request"}
	with := func(h map[string]string, kv ...string) map[string]string {
		m := map[string]string{"Authorization": "Bearer " + testToken}
		for k, v := range h {
			m[k] = v
		}
		for i := 0; i+1 < len(kv); i += 2 {
			if kv[i+1] == "" {
				delete(m, kv[i])
			} else {
				m[kv[i]] = kv[i+1]
			}
		}
		return m
	}
	for _, c := range []struct {
		name   string
		hdr    map[string]string
		body   string
		status int
		want   string
	}{
		{"served", with(newer), newerCall, 200, `"job.start`},
		{"no token", with(newer, "Authorization", ""), newerCall, 401, "bearer"},
		{"foreign Origin", with(newer, "Origin", "https://evil.example"), newerCall, 403, "evil.example"},
		{"body over the cap", with(newer), strings.Replace(newerCall, `"help":true`, `"help":"`+strings.Repeat("x", 5000)+`"`, 1), 413, ""},
		{"Mcp-Name names another tool", with(newer, "Mcp-Name", "other"), newerCall, 400, "-32020"},
		{"no version header, _meta on 2026-07-28", with(newer, "Mcp-Protocol-Version", ""), newerCall, 400, "-32020"},
		{"removed method", with(newer, "Mcp-Method", "ping"), `{"jsonrpc":"2.0","id":2,"method":"ping","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}`, 404, "-32601"},
	} {
		t.Run(c.name, func(t *testing.T) {
			req, err := http.NewRequest("POST", url, strings.NewReader(c.body))
			if err != nil {
				t.Fatal(err)
			}
			req.Header.Set("Content-Type", "application/json")
			req.Header.Set("Accept", "application/json, text/event-stream")
			for k, v := range c.hdr {
				req.Header.Set(k, v)
			}
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			b, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if resp.StatusCode != c.status || !strings.Contains(string(b), c.want) {
				t.Fatalf("%d %s; want %d containing %q", resp.StatusCode, b, c.status, c.want)
			}
			if resp.Header.Get("Mcp-Session-Id") != "" {
				t.Fatalf("a 2026-07-28 request got session %q", resp.Header.Get("Mcp-Session-Id"))
			}
		})
	}
}

// TestNewerProtocolAnswers: what the HTTP face adds for 2026-07-28: the
// tools/list caching hints (a day, public without per-caller identity),
// and the prompts and resources capabilities declared, since their list
// methods are answered.
func TestNewerProtocolAnswers(t *testing.T) {
	srv, _ := spawnSurface(t, nil)
	url := serveVersions(t, srv, &mcphttp.Options{Token: testToken})
	newer := connectVersion(t, url, "2026-07-28")
	tools, err := newer.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	if tools.TTLMs != int(mcphttp.ToolsTTL.Milliseconds()) || tools.CacheScope != "public" {
		t.Fatalf("tools/list ttlMs %d cacheScope %q; want %d public", tools.TTLMs, tools.CacheScope, mcphttp.ToolsTTL.Milliseconds())
	}
	caps := newer.InitializeResult().Capabilities
	if caps.Prompts == nil || caps.Resources == nil {
		t.Fatalf("server/discover capabilities %+v; want prompts and resources declared", caps)
	}
	if _, err := newer.ListPrompts(context.Background(), nil); err != nil {
		t.Fatalf("prompts/list, declared: %v", err)
	}
	if _, err := newer.ListResources(context.Background(), nil); err != nil {
		t.Fatalf("resources/list, declared: %v", err)
	}
}
