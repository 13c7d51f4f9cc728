package client_test

import (
	"context"
	"fmt"
	"os/exec"

	"github.com/verbsurface/verbsurface/examples/limcp/internal/client"
)

// One request over a real stdio MCP session with `limcp mcp`, as
// `limcp call '{"help": true}'` sends it. (Compiled, not run: it needs a
// built limcp on PATH; the end-to-end tests run it.)
func ExampleCall() {
	server := exec.Command("limcp", "--home", "/tmp/limcp-demo", "mcp")
	resp, err := client.Call(context.Background(), server, []byte(`{"help": true}`))
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(resp.Status, string(resp.JSON))
}
