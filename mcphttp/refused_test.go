//go:build unix

package mcphttp_test

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/verbsurface/verbsurface/mcphttp"
)

// TestRefusalsCountedByReason: Options.OnRefused hears every refusal of
// the HTTP face once, with its reason, whichever check made it (this
// package's, or the SDK's by its status), and nothing for a request
// served.
func TestRefusalsCountedByReason(t *testing.T) {
	srv, _ := spawnSurface(t, nil)
	reasons := make(chan string, 64)
	url := serveVersions(t, srv, &mcphttp.Options{Token: testToken, MaxBodyBytes: 4096, MaxSessions: 1,
		OnRefused: func(r string) { reasons <- r }})
	const initialize = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"0"}}}`
	bearer := "Bearer " + testToken
	post := func(url, body string, hdr ...string) int {
		t.Helper()
		req, err := http.NewRequest("POST", url, strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		for i := 0; i+1 < len(hdr); i += 2 {
			req.Header.Set(hdr[i], hdr[i+1])
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	next := func() string {
		t.Helper()
		select {
		case r := <-reasons:
			return r
		case <-time.After(time.Minute):
			t.Fatal("no refusal heard within a minute")
			return ""
		}
	}

	// The one session this server allows: served, so no refusal.
	if code := post(url, initialize, "Authorization", bearer); code != 200 {
		t.Fatalf("initialize: %d", code)
	}
	for _, c := range []struct {
		rule   string
		url    string
		body   string
		hdr    []string
		status int
		reason string
	}{
		{"a foreign Origin", url, initialize, []string{"Authorization", bearer, "Origin", "https://evil.example"}, 403, mcphttp.RefusedOrigin},
		{"no token", url, initialize, nil, 401, mcphttp.RefusedToken},
		{"a wrong token", url, initialize, []string{"Authorization", "Bearer not-the-token-0123456789abcdefghij"}, 401, mcphttp.RefusedToken},
		{"another path", strings.TrimSuffix(url, mcphttp.Path) + "/other", initialize, []string{"Authorization", bearer}, 404, mcphttp.RefusedPath},
		{"a body over the cap", url, strings.Replace(initialize, `"t"`, `"`+strings.Repeat("t", 5000)+`"`, 1), []string{"Authorization", bearer}, 413, mcphttp.RefusedBodyTooLarge},
		{"a second session", url, initialize, []string{"Authorization", bearer}, 503, mcphttp.RefusedSessions},
		{"a version not served", url, `{"jsonrpc":"2.0","id":2,"method":"tools/list"}`,
			[]string{"Authorization", bearer, "Mcp-Protocol-Version", "1999-01-01", "Mcp-Session-Id", "none"}, 400, mcphttp.RefusedProtocol},
		{"a session that does not exist", url, `{"jsonrpc":"2.0","id":2,"method":"tools/list"}`,
			[]string{"Authorization", bearer, "Mcp-Protocol-Version", "2025-11-25", "Mcp-Session-Id", "no-such-session"}, 404, mcphttp.RefusedNotFound},
	} {
		t.Run(c.rule, func(t *testing.T) {
			if code := post(c.url, c.body, c.hdr...); code != c.status {
				t.Fatalf("HTTP %d; want %d", code, c.status)
			}
			if got := next(); got != c.reason {
				t.Fatalf("refused for %q; want %q", got, c.reason)
			}
		})
	}
	select {
	case r := <-reasons:
		t.Errorf("a refusal heard twice, or one never made: %q", r)
	default:
	}
}
