//go:build unix

package server_test

import (
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"testing"

	"github.com/verbsurface/verbsurface/examples/limcp/internal/server"
)

// TestHTTPNamesLimcp: the HTTP face is mcphttp's, but what a client reads
// names limcp: the Bearer challenge's realm and the refusals' prefix; and
// a non-loopback bind without a token says how limcp is given one.
func TestHTTPNamesLimcp(t *testing.T) {
	srv, err := server.New(server.Options{Home: t.TempDir(), Executable: limcpBin, NewRoot: freshRoot, NoNotify: true, NoStoreSignal: true})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	ts := httptest.NewServer(srv.HTTPHandler(&server.HTTPOptions{Token: strings.Repeat("k", 40)}))
	defer ts.Close()
	for _, c := range []struct {
		origin, challenge, body string
		code                    int
	}{
		{"", `Bearer realm="limcp"`, "", 401},
		{"https://evil.example", "", "limcp mcp: Forbidden: ", 403},
	} {
		req, _ := http.NewRequest("POST", ts.URL+server.HTTPPath, strings.NewReader("{}"))
		if c.origin != "" {
			req.Header.Set("Origin", c.origin)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != c.code || resp.Header.Get("WWW-Authenticate") != c.challenge || !strings.HasPrefix(string(b), c.body) {
			t.Errorf("Origin %q: HTTP %d, WWW-Authenticate %q, %q; want %d, %q, %q…", c.origin, resp.StatusCode, resp.Header.Get("WWW-Authenticate"), b, c.code, c.challenge, c.body)
		}
	}
	if _, err := server.Listen("0.0.0.0:0", ""); err == nil || !strings.Contains(err.Error(), server.TokenEnv) {
		t.Errorf("Listen 0.0.0.0 without a token: %v; want it to name $%s", err, server.TokenEnv)
	}
	if path, _, _, err := server.EnsureTokenFile(t.TempDir()); err != nil || !strings.HasSuffix(path, string(os.PathSeparator)+server.TokenFileName) {
		t.Errorf("EnsureTokenFile = %s, %v; want HOME/%s", path, err, server.TokenFileName)
	}
}
