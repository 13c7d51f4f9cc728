//go:build unix

package cli_test

import (
	"fmt"
	"os"

	"github.com/verbsurface/verbsurface/examples/limcp/internal/cli"
)

// NewRoot returns a fresh tree on every call: the MCP server projects it.
func ExampleNewRoot() {
	root := cli.NewRoot(cli.Options{})
	wait, _, _ := root.Find([]string{"job", "wait"})
	fmt.Println(wait.Use)
	fmt.Println(wait.Flags().Lookup("max-wait-seconds").DefValue)
	// Output:
	// wait IDS...
	// 25
}

// Main runs a command line and returns the exit status; with --json the
// one machine result is printed on stdout.
func ExampleMain() {
	home, _ := os.MkdirTemp("", "limcp-example-")
	defer os.RemoveAll(home)
	code := cli.Main([]string{"--home", home, "--json", "job", "list"}, cli.Options{})
	fmt.Println("exit", code)
	// Output:
	// {"result_version":1,"ok":true,"data":{"next_cursor":null,"records":[]}}
	// exit 0
}

// ResolveHome: --home, else $LIMCP_HOME, else $XDG_STATE_HOME/limcp, else
// ~/.local/state/limcp.
func ExampleResolveHome() {
	env := map[string]string{"XDG_STATE_HOME": "/var/state", "HOME": "/home/ann"}
	home, _ := cli.ResolveHome("", func(k string) string { return env[k] })
	fmt.Println(home)
	home, _ = cli.ResolveHome("/srv/limcp", func(k string) string { return env[k] })
	fmt.Println(home)
	// Output:
	// /var/state/limcp
	// /srv/limcp
}
