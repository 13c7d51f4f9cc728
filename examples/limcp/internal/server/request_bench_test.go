//go:build unix

package server_test

import (
	"context"
	"encoding/json"
	"os/exec"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/verbsurface/verbsurface/examples/limcp/internal/server"
)

// BenchmarkRequestJobStatus is one job.status request through an
// in-memory MCP session with the server (the newline-delimited JSON-RPC
// connection stdio uses, without the pipe), the command run as a real
// subprocess: the allocation figure of docs/figures.md. It counts the
// client's allocations too; -memprofile splits them by side.
//
//	go test -run '^$' -bench RequestJobStatus -benchmem ./examples/limcp/internal/server
func BenchmarkRequestJobStatus(b *testing.B) {
	home := b.TempDir()
	out, err := exec.Command(limcpBin, "--home", home, "--json", "agent", "echo", "bench").Output()
	if err != nil {
		b.Fatalf("limcp agent: %v: %s", err, out)
	}
	var sub struct{ Data struct{ ID string } }
	if err := json.Unmarshal(out, &sub); err != nil || sub.Data.ID == "" {
		b.Fatalf("limcp agent: %s", out)
	}
	srv, err := server.New(server.Options{Home: home, Executable: limcpBin, Env: environ(home), NewRoot: freshRoot, NoNotify: true})
	if err != nil {
		b.Fatal(err)
	}
	defer srv.Close()
	ctx := context.Background()
	st, ct := mcp.NewInMemoryTransports()
	ss, err := srv.MCPServer().Connect(ctx, st, nil)
	if err != nil {
		b.Fatal(err)
	}
	defer ss.Close()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "bench", Version: "v0"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		b.Fatal(err)
	}
	defer cs.Close()
	req := json.RawMessage(`{"ops":[{"op":"job.status","args":{"ids":["` + sub.Data.ID + `"]}}]}`)
	b.ReportAllocs()
	for b.Loop() {
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "request", Arguments: req})
		if err != nil || res.IsError {
			b.Fatalf("job.status: %v %+v", err, res)
		}
	}
}
