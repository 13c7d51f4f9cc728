//go:build unix

package mcphttp

import (
	"context"
	"errors"
	"io/fs"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestOriginPolicy: the rules of originPolicy, one row each, in the order
// the doc comment lists them.
func TestOriginPolicy(t *testing.T) {
	p := newOriginPolicy([]string{"https://app.example:8443", "http://tool.example"}, "front")
	local := func(addr string) context.Context {
		a, err := net.ResolveTCPAddr("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		return context.WithValue(context.Background(), http.LocalAddrContextKey, a)
	}
	for _, c := range []struct {
		name, local, origin, site string
		pass                      bool
	}{
		{name: "no Origin: not a browser page", local: "127.0.0.1:8765", pass: true},
		{name: "no Origin, Sec-Fetch-Site same-origin", local: "127.0.0.1:8765", site: "same-origin", pass: true},
		{name: "no Origin, Sec-Fetch-Site none (typed in the address bar)", local: "127.0.0.1:8765", site: "none", pass: true},
		{name: "no Origin, but a browser says cross-site", local: "127.0.0.1:8765", site: "cross-site", pass: false},
		{name: "no Origin, but a browser says same-site", local: "127.0.0.1:8765", site: "same-site", pass: false},
		{name: "same origin: 127.0.0.1 at the port", local: "127.0.0.1:8765", origin: "http://127.0.0.1:8765", pass: true},
		{name: "same origin: another loopback address", local: "127.0.0.1:8765", origin: "http://127.0.0.2:8765", pass: true},
		{name: "same origin: localhost, any case", local: "127.0.0.1:8765", origin: "http://LocalHost:8765", pass: true},
		{name: "same origin: [::1]", local: "[::1]:8765", origin: "http://[::1]:8765", pass: true},
		{name: "same origin: the address the connection arrived on", local: "192.0.2.7:8765", origin: "http://192.0.2.7:8765", pass: true},
		{name: "same origin: port 80 left out", local: "127.0.0.1:80", origin: "http://localhost", pass: true},
		{name: "not same origin: another port", local: "127.0.0.1:8765", origin: "http://127.0.0.1:8766", pass: false},
		{name: "not same origin: https", local: "127.0.0.1:8765", origin: "https://127.0.0.1:8765", pass: false},
		{name: "not same origin: another address of the machine", local: "192.0.2.7:8765", origin: "http://192.0.2.8:8765", pass: false},
		{name: "not same origin: a name resolving anywhere", local: "192.0.2.7:8765", origin: "http://rebind.example:8765", pass: false},
		{name: "listed", local: "127.0.0.1:8765", origin: "https://app.example:8443", pass: true},
		{name: "listed, any case", local: "127.0.0.1:8765", origin: "HTTPS://APP.EXAMPLE:8443", pass: true},
		{name: "listed with the default port left out", local: "127.0.0.1:8765", origin: "http://tool.example:80", pass: true},
		{name: "listed host, another port", local: "127.0.0.1:8765", origin: "https://app.example", pass: false},
		{name: "listed host, another scheme", local: "127.0.0.1:8765", origin: "http://app.example:8443", pass: false},
		{name: "foreign", local: "127.0.0.1:8765", origin: "https://evil.example", pass: false},
		{name: "null (sandboxed frame, file: page)", local: "127.0.0.1:8765", origin: "null", pass: false},
		{name: "garbage", local: "127.0.0.1:8765", origin: "http://[", pass: false},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := httptest.NewRequest("POST", "http://x/mcp", nil).WithContext(local(c.local))
			if c.origin != "" {
				r.Header.Set("Origin", c.origin)
			}
			if c.site != "" {
				r.Header.Set("Sec-Fetch-Site", c.site)
			}
			err := p.check(r)
			if (err == nil) != c.pass {
				t.Fatalf("check = %v; want pass %v", err, c.pass)
			}
			if err != nil && !strings.HasPrefix(err.Error(), "front: Forbidden: ") {
				t.Fatalf("the refusal does not name the front: %v", err)
			}
			if err != nil && c.origin != "" && !strings.Contains(err.Error(), "--allow-origin") {
				t.Fatalf("the refusal does not say how to admit an origin: %v", err)
			}
		})
	}
}

// TestParseOrigin: what an operator may list, in canonical form.
func TestParseOrigin(t *testing.T) {
	for in, want := range map[string]string{
		"https://App.Example:8443": "https://app.example:8443",
		"http://tool.example":      "http://tool.example:80",
		"https://tool.example/":    "https://tool.example:443",
		"http://[::1]:3000":        "http://[::1]:3000",
	} {
		if got, err := ParseOrigin(in); err != nil || got != want {
			t.Errorf("ParseOrigin(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	for _, in := range []string{"*", "null", "", "app.example", "ftp://app.example", "https://", "https://app.example/path", "https://u@app.example", "https://app.example?q", "https://app.example#f"} {
		if got, err := ParseOrigin(in); err == nil || !strings.Contains(err.Error(), "--allow-origin") {
			t.Errorf("ParseOrigin(%q) = %q, %v; want an error naming --allow-origin", in, got, err)
		}
	}
}

// TestSessionGateHoldsUnderConcurrency: 40 initializes at once against a
// cap of 8 open exactly 8 sessions, however they interleave; the others
// get 503. Closing the sessions gives every slot back. Run it with -race.
func TestSessionGateHoldsUnderConcurrency(t *testing.T) {
	srv := mcp.NewServer(&mcp.Implementation{Name: "gate", Version: "v0"}, nil)
	const max = 8
	sdk := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv }, &mcp.StreamableHTTPOptions{SessionTimeout: time.Minute})
	gate := newSessionGate(srv, max, time.Minute, "front")
	ts := httptest.NewServer(gate.wrap(sdk))
	defer ts.Close()
	initialize := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"0"}}}`
	open := func() (string, int) {
		req, _ := http.NewRequest("POST", ts.URL, strings.NewReader(initialize))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Error(err)
			return "", 0
		}
		resp.Body.Close()
		return resp.Header.Get(sessionIDHeader), resp.StatusCode
	}
	round := func() []string {
		var mu sync.Mutex
		var ids []string
		var refused atomic.Int32
		var wg sync.WaitGroup
		for i := 0; i < 5*max; i++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				id, code := open()
				switch code {
				case http.StatusOK:
					mu.Lock()
					ids = append(ids, id)
					mu.Unlock()
				case http.StatusServiceUnavailable:
					refused.Add(1)
				default:
					t.Errorf("initialize: HTTP %d", code)
				}
			}()
		}
		wg.Wait()
		if len(ids) != max || int(refused.Load()) != 4*max {
			t.Fatalf("%d sessions opened, %d refused; want %d and %d", len(ids), refused.Load(), max, 4*max)
		}
		return ids
	}
	for range 2 { // the second round needs every slot back
		ids := round()
		for ss := range srv.Sessions() {
			ss.Close()
		}
		deadline := time.Now().Add(5 * time.Second)
		for len(gate.slots) > 0 {
			if time.Now().After(deadline) {
				t.Fatalf("%d slots still held after all %d sessions closed", len(gate.slots), len(ids))
			}
			time.Sleep(10 * time.Millisecond)
		}
	}
}

// TestEnsureTokenFile: generated 0600 whatever the umask, reused when
// valid, replaced when short, refused when loosened, never followed
// through a symlink, and one token for servers starting at once.
func TestEnsureTokenFile(t *testing.T) {
	old := syscall.Umask(0)
	defer syscall.Umask(old)
	home := filepath.Join(t.TempDir(), "home") // does not exist yet
	path, tok, generated, err := EnsureTokenFile(home, "the-token")
	if err != nil || !generated || len(tok) < MinTokenLength || path != filepath.Join(home, "the-token") {
		t.Fatalf("EnsureTokenFile = %q, %q (%d), %v, %v", path, tok, len(tok), generated, err)
	}
	for p, want := range map[string]fs.FileMode{home: 0o700, path: 0o600} {
		if fi, err := os.Stat(p); err != nil || fi.Mode().Perm() != want {
			t.Fatalf("%s: %v %v; want mode %o with umask 0", p, fi.Mode(), err, want)
		}
	}
	if ents, _ := os.ReadDir(home); len(ents) != 1 {
		t.Fatalf("the home holds %d entries; the temporary file was left behind", len(ents))
	}
	if _, tok2, generated, err := EnsureTokenFile(home, "the-token"); err != nil || generated || tok2 != tok {
		t.Fatalf("second call: %q, %v, %v; want the same token reused", tok2, generated, err)
	}

	if err := os.WriteFile(path, []byte("short\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, tok3, generated, err := EnsureTokenFile(home, "the-token"); err != nil || !generated || tok3 == tok || len(tok3) < MinTokenLength {
		t.Fatalf("a short token file: %q, %v, %v; want it replaced", tok3, generated, err)
	}

	if err := os.Chmod(path, 0o640); err != nil {
		t.Fatal(err)
	}
	if _, _, _, err := EnsureTokenFile(home, "the-token"); err == nil || !strings.Contains(err.Error(), "chmod 600") || !strings.Contains(err.Error(), "remove it") {
		t.Fatalf("a 0640 token file: %v; want a refusal saying chmod 600 or remove it", err)
	}

	// A symlink in the token's place is not followed, even to a file that
	// would pass every other check.
	other := filepath.Join(t.TempDir(), "elsewhere")
	if err := os.WriteFile(other, []byte(strings.Repeat("k", 40)+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	os.Remove(path)
	if err := os.Symlink(other, path); err != nil {
		t.Fatal(err)
	}
	if _, _, _, err := EnsureTokenFile(home, "the-token"); err == nil || !errors.Is(err, syscall.ELOOP) {
		t.Fatalf("a symlinked token file: %v; want ELOOP", err)
	}

	// Servers starting at once agree on one token.
	home2 := filepath.Join(t.TempDir(), "home")
	toks := make([]string, 8)
	var wg sync.WaitGroup
	for i := range toks {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var err error
			_, toks[i], _, err = EnsureTokenFile(home2, "the-token")
			if err != nil {
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	for _, tk := range toks {
		if tk != toks[0] || tk == "" {
			t.Fatalf("concurrent EnsureTokenFile disagree: %q", toks)
		}
	}
}

// TestReadTokenFileOwner: a token file owned by another user is refused
// (root can make one; others skip).
func TestReadTokenFileOwner(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("needs root to give a file to another user")
	}
	p := filepath.Join(t.TempDir(), "token")
	if err := os.WriteFile(p, []byte(strings.Repeat("k", 40)+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Chown(p, 65534, 65534); err != nil {
		t.Fatal(err)
	}
	if _, err := ReadTokenFile(p); err == nil || !strings.Contains(err.Error(), "owned by uid 65534") {
		t.Fatalf("ReadTokenFile of another user's file: %v", err)
	}
}

// BenchmarkHTTPChecks measures what the Origin and bearer checks add to
// every HTTP request, against the same request to a handler that does
// nothing ("bare"); compare the difference with a job.status round trip
// (milliseconds: a CLI subprocess).
func BenchmarkHTTPChecks(b *testing.B) {
	const token = "bench-token-0123456789abcdef0123456789"
	next := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(http.StatusNoContent) })
	local, _ := net.ResolveTCPAddr("tcp", "127.0.0.1:8765")
	r := httptest.NewRequest("POST", "http://127.0.0.1:8765/mcp", nil)
	r = r.WithContext(context.WithValue(r.Context(), http.LocalAddrContextKey, local))
	r.Header.Set("Authorization", "Bearer "+token)
	r.Header.Set("Origin", "http://127.0.0.1:8765")
	for _, c := range []struct {
		name string
		h    http.Handler
	}{
		{"bare", next},
		{"origin+bearer", newOriginPolicy([]string{"https://app.example"}, "bench").wrap(requireBearer(token, "bench", next))},
	} {
		b.Run(c.name, func(b *testing.B) {
			for b.Loop() {
				w := httptest.NewRecorder()
				c.h.ServeHTTP(w, r)
				if w.Code != http.StatusNoContent {
					b.Fatalf("HTTP %d", w.Code)
				}
			}
		})
	}
}
