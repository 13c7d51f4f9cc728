//go:build unix

package mcphttp_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/verbsurface/verbsurface/mcphttp"
)

// Without a bearer token, only a loopback address is served.
func ExampleListen() {
	_, err := mcphttp.Listen("0.0.0.0:0", "")
	fmt.Println(errors.Is(err, mcphttp.ErrNonLoopback))
	_, err = mcphttp.Listen("127.0.0.1:0", "too-short")
	fmt.Println(errors.Is(err, mcphttp.ErrShortToken))
	ln, err := mcphttp.Listen("127.0.0.1:0", "")
	fmt.Println(err)
	ln.Close()
	// Output:
	// true
	// true
	// <nil>
}

// With a bearer token, the handler answers 401 with a Bearer challenge to
// a request without it, and serves the MCP session to one that carries it.
func ExampleHandler() {
	srv := mcp.NewServer(&mcp.Implementation{Name: "example", Version: "v0"}, nil)
	const token = "example-token-0123456789abcdefghij"
	ts := httptest.NewServer(mcphttp.Handler(srv, &mcphttp.Options{Token: token, Name: "example serve", Realm: "example"}))
	defer ts.Close()

	initialize := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"example","version":"0"}}}`
	for _, auth := range []string{"", "Bearer " + token} {
		req, _ := http.NewRequest("POST", ts.URL+mcphttp.Path, strings.NewReader(initialize))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		if auth != "" {
			req.Header.Set("Authorization", auth)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			fmt.Println(err)
			return
		}
		resp.Body.Close()
		fmt.Printf("%d %q\n", resp.StatusCode, resp.Header.Get("WWW-Authenticate"))
	}
	// Output:
	// 401 "Bearer realm=\"example\""
	// 200 ""
}

// Serve bounds every connection: a refusal ends the connection it came on,
// and a body beyond MaxBodyBytes is refused before it is read.
func ExampleServe() {
	srv := mcp.NewServer(&mcp.Implementation{Name: "example", Version: "v0"}, nil)
	const token = "example-token-0123456789abcdefghij"
	ln, _ := mcphttp.Listen("127.0.0.1:0", token)
	ctx, stop := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		done <- mcphttp.Serve(ctx, ln, srv, &mcphttp.Options{Token: token, MaxConns: 32, MaxBodyBytes: 1 << 10})
	}()
	for _, c := range []struct{ auth, body string }{
		{"", "{}"}, // no token
		{"Bearer " + token, strings.Repeat("x", 2048)}, // too large
	} {
		req, _ := http.NewRequest("POST", "http://"+ln.Addr().String()+mcphttp.Path, strings.NewReader(c.body))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		if c.auth != "" {
			req.Header.Set("Authorization", c.auth)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			fmt.Println(err)
			break
		}
		resp.Body.Close()
		fmt.Println(resp.StatusCode, "connection closed:", resp.Close)
	}
	stop()
	fmt.Println(<-done)
	// Output:
	// 401 connection closed: true
	// 413 connection closed: true
	// <nil>
}

// An --allow-origin value is checked and made canonical: the browser
// leaves out a default port, the comparison does not.
func ExampleParseOrigin() {
	fmt.Println(mcphttp.ParseOrigin("https://App.Example"))
	_, err := mcphttp.ParseOrigin("*")
	fmt.Println(err)
	// Output:
	// https://app.example:443 <nil>
	// mcphttp: --allow-origin "*": scheme "" is not http or https (want scheme://host[:port], e.g. https://app.example:8443)
}

// A front without a configured token generates one into a directory of
// its choosing, private to the server's user, and reuses it next time.
func ExampleEnsureTokenFile() {
	dir, _ := os.MkdirTemp("", "mcphttp-example-")
	defer os.RemoveAll(dir)
	path, token, generated, _ := mcphttp.EnsureTokenFile(filepath.Join(dir, "state"), "mcp-token")
	fi, _ := os.Stat(path)
	fmt.Println(filepath.Base(path), fi.Mode().Perm(), len(token), generated)
	_, again, generated, _ := mcphttp.EnsureTokenFile(filepath.Join(dir, "state"), "mcp-token")
	fmt.Println(again == token, generated)
	// Output:
	// mcp-token -rw------- 43 true
	// true false
}
