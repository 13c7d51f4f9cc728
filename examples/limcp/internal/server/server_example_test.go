package server_test

import (
	"context"
	"errors"
	"fmt"
	"os"

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
	fmt.Println(res.StructuredContent.(map[string]any)["status"])
	// Output: partial
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
