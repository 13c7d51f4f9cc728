//go:build unix

package server_test

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
	"github.com/verbsurface/verbsurface/examples/limcp/internal/server"
)

// A server over a state home, answering help through an in-memory MCP
// session: the same tool `limcp mcp` serves on stdio.
func ExampleNew() {
	home, _ := os.MkdirTemp("", "limcp-example-")
	defer os.RemoveAll(home)
	srv, err := server.New(server.Options{Home: home, Executable: limcpBin, NewRoot: freshRoot})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer srv.Close()

	ctx := context.Background()
	st, ct := mcp.NewInMemoryTransports()
	ss, _ := srv.MCPServer().Connect(ctx, st, nil)
	defer ss.Close()
	cs, _ := mcp.NewClient(&mcp.Implementation{Name: "example"}, nil).Connect(ctx, ct, nil)
	defer cs.Close()

	res, _ := cs.CallTool(ctx, &mcp.CallToolParams{Name: "request", Arguments: map[string]any{
		"ops": []any{map[string]any{"op": "state.migrate", "args": map[string]any{}}}}})
	// The fenced verb is refused, and since nothing else was asked,
	// nothing succeeded: the status is "error" and isError is set.
	fmt.Println(res.StructuredContent.(map[string]any)["status"], res.IsError)
	// Output: error true
}

// Without a bearer token, only a loopback address is served.
func ExampleListen() {
	_, err := server.Listen("0.0.0.0:0", "")
	fmt.Println(errors.Is(err, server.ErrNonLoopback))
	ln, err := server.Listen("127.0.0.1:0", "")
	fmt.Println(err)
	ln.Close()
	// Output:
	// true
	// <nil>
}

// With a bearer token, the HTTP handler answers 401 to a request without
// it, and serves the MCP session to one that carries it.
func ExampleServer_HTTPHandler() {
	home, _ := os.MkdirTemp("", "limcp-example-")
	defer os.RemoveAll(home)
	srv, err := server.New(server.Options{Home: home, Executable: limcpBin, NewRoot: freshRoot, NoNotify: true, NoStoreSignal: true})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer srv.Close()
	const token = "example-token-0123456789abcdefghij"
	ts := httptest.NewServer(srv.HTTPHandler(&server.HTTPOptions{Token: token}))
	defer ts.Close()

	initialize := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"example","version":"0"}}}`
	for _, auth := range []string{"", "Bearer " + token} {
		req, _ := http.NewRequest("POST", ts.URL+server.HTTPPath, strings.NewReader(initialize))
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
		fmt.Println(resp.StatusCode)
	}
	// Output:
	// 401
	// 200
}

// An --allow-origin value is checked and made canonical: the browser
// leaves out a default port, the comparison does not.
func ExampleParseOrigin() {
	fmt.Println(server.ParseOrigin("https://App.Example"))
	_, err := server.ParseOrigin("*")
	fmt.Println(err != nil)
	// Output:
	// https://app.example:443 <nil>
	// true
}

// Without a configured token, `limcp mcp --http` generates one into the
// home, private to the server's user, and reuses it on the next start.
func ExampleEnsureTokenFile() {
	home, _ := os.MkdirTemp("", "limcp-example-")
	defer os.RemoveAll(home)
	path, token, generated, _ := server.EnsureTokenFile(home)
	fi, _ := os.Stat(path)
	fmt.Println(filepath.Base(path), fi.Mode().Perm(), len(token), generated)
	_, again, generated, _ := server.EnsureTokenFile(home)
	fmt.Println(again == token, generated)
	// Output:
	// mcp-token -rw------- 43 true
	// true false
}

// The allowlist is explicit: a command added to limcp is reachable only
// once a row names it.
func ExampleAllowlist() {
	for _, v := range server.Allowlist()[:5] {
		fmt.Println(v.Verb, v.Class, strings.Join(v.Path, " "))
	}
	// Output:
	// agent.submit spawn agent
	// fanout.submit spawn fanout
	// flow.submit spawn flow
	// play.submit spawn play
	// job.status observe job status
}
