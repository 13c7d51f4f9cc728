// Command minimal is the floor of the server figures: the smallest go-sdk
// MCP server that runs the same command as the op being measured. It
// serves one tool, "run", over stdio; a call {"args": [...]} runs the
// program given on its own command line with its fixed arguments and
// those args (os/exec, no shell), and returns the command's stdout as
// text, an error result when it exits non-zero. No schema projection, no
// validation beyond the SDK's, no process group, no caps: what any go-sdk
// server pays to run a command per call.
//
//	minimal PROGRAM [FIXED ARGS...]
package main

import (
	"context"
	"fmt"
	"os"
	"os/exec"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

type input struct {
	Args []string `json:"args" jsonschema:"the arguments after the fixed ones"`
}

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: minimal PROGRAM [FIXED ARGS...]")
		os.Exit(2)
	}
	program, fixed := os.Args[1], os.Args[2:]
	srv := mcp.NewServer(&mcp.Implementation{Name: "minimal", Version: "v1"}, nil)
	mcp.AddTool(srv, &mcp.Tool{Name: "run", Description: "run the command with args"},
		func(ctx context.Context, _ *mcp.CallToolRequest, in input) (*mcp.CallToolResult, any, error) {
			out, err := exec.CommandContext(ctx, program, append(append([]string(nil), fixed...), in.Args...)...).Output()
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: string(out)}}, IsError: err != nil}, nil, nil
		})
	if err := srv.Run(context.Background(), &mcp.StdioTransport{}); err != nil {
		fmt.Fprintln(os.Stderr, "minimal:", err)
		os.Exit(1)
	}
}
