//go:build unix

package mcphttp

import (
	"io"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"testing"
	"weak"
)

// TestRouterLetsGoOfTheBody: a POST the router reads to find its version
// (no version header, no session) reaches the handler holding the bytes
// once: when the handler has read the body, as the SDK does, the
// router's copy is garbage.
func TestRouterLetsGoOfTheBody(t *testing.T) {
	const newer = `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"request","arguments":{"help":true},` +
		`"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}}`
	for _, body := range []string{newer, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}`} {
		var copied []byte
		var routerCopy weak.Pointer[byte]
		handler := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			h, ok := r.Body.(*handedBody)
			if !ok || len(h.b) == 0 {
				t.Fatalf("the handler's body is %T; want the router's bytes, handed on", r.Body)
			}
			routerCopy = weak.Make(&h.b[0])
			var err error
			if copied, err = io.ReadAll(r.Body); err != nil {
				t.Fatal(err)
			}
			runtime.GC()
			if routerCopy.Value() != nil {
				t.Errorf("%.40s: the router's copy is still held after the handler read the body", body)
			}
		})
		v := &versionRouter{stateful: handler, stateless: handler, maxBody: 1 << 20, name: "test"}
		v.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest("POST", "/mcp", strings.NewReader(body)))
		if string(copied) != body {
			t.Errorf("the handler read %q; want %q", copied, body)
		}
	}
}
