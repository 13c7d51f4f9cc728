//go:build unix

package verbsurface_test

import (
	"context"
	"encoding/json"
	"fmt"
	"log"
	"os"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/spf13/cobra"
	"github.com/verbsurface/verbsurface/dispatch"
	"github.com/verbsurface/verbsurface/projector/fromcobra"
	"github.com/verbsurface/verbsurface/verbsurface"
)

// newNotesRoot stands for the CLI's own cobra tree (mycli.NewRoot()).
func newNotesRoot() *cobra.Command {
	root := &cobra.Command{Use: "notes"}
	root.PersistentFlags().Bool("json", false, "machine mode")
	root.PersistentFlags().String("home", "", "state directory")
	add := &cobra.Command{Use: "add TEXT", Short: "add a note", Args: cobra.ExactArgs(1), RunE: func(*cobra.Command, []string) error { return nil }}
	list := &cobra.Command{Use: "list", Short: "list notes", Args: cobra.NoArgs, RunE: func(*cobra.Command, []string) error { return nil }}
	list.Flags().Int("limit", 10, "at most this many")
	root.AddCommand(add, list)
	return root
}

// Example_embedding is docs/embedding.md's program, complete: a cobra
// CLI in the same binary, its tree tied to the executable (a rebuilt
// binary makes every verb unavailable until restart instead of serving
// stale schemas), a verb that demands the fingerprint though it is not a
// spawn, the start-up check, and a server that returns nil when its
// client disconnects normally. Here the client is in memory; a real
// server runs on &mcp.StdioTransport{}.
func Example_embedding() {
	exe, err := os.Executable() // the binary whose tree this is
	if err != nil {
		log.Fatal(err)
	}
	tree, err := fromcobra.Walk(newNotesRoot(), &fromcobra.Options{ExcludeFlags: []string{"json", "home"}})
	if err != nil {
		log.Fatal(err)
	}
	source, err := verbsurface.ExecutableTree(tree, exe)
	if err != nil {
		log.Fatal(err)
	}
	runner, err := dispatch.NewRunner(exe, &dispatch.Options{
		Env: append(dispatch.AllowlistEnv(os.Environ(), "NOTES_*"), "NOTES_HOME=/srv/notes")})
	if err != nil {
		log.Fatal(err)
	}
	reg, err := verbsurface.NewRegistry(&verbsurface.RegistryOptions{Fence: [][]string{}})
	if err != nil {
		log.Fatal(err)
	}
	for _, v := range []verbsurface.Verb{
		{Name: "note.add", Class: verbsurface.ClassControl, Path: []string{"add"}, RequireFingerprint: true},
		{Name: "note.list", Class: verbsurface.ClassObserve, Path: []string{"list"}}, // summary: the parser's
	} {
		if err := reg.Register(v); err != nil {
			log.Fatal(err)
		}
	}
	surface, err := verbsurface.New(reg, &verbsurface.Options{Source: source, Runner: runner,
		Machine: verbsurface.Machine{Args: []string{"--json"}, At: verbsurface.MachineAtLeaf}})
	if err != nil {
		log.Fatal(err)
	}
	// A configuration mistake stops the operator, not the agent.
	for _, p := range surface.Check(context.Background()) {
		log.Fatalf("verb %s cannot be offered: %s", p.Verb, p.Reason)
	}
	server := mcp.NewServer(&mcp.Implementation{Name: "notes", Version: "v1"}, nil)
	verbsurface.AddRequestTool(server, surface)

	serverT, clientT := mcp.NewInMemoryTransports()
	done := make(chan error, 1)
	go func() { done <- server.Run(context.Background(), serverT) }()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "agent", Version: "v0"}, nil).Connect(context.Background(), clientT, nil)
	if err != nil {
		log.Fatal(err)
	}
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "request", Arguments: map[string]any{"help": true}})
	if err != nil {
		log.Fatal(err)
	}
	var resp struct {
		Help struct{ Verbs []string } `json:"help"`
	}
	json.Unmarshal([]byte(res.Content[0].(*mcp.TextContent).Text), &resp)
	fmt.Println(resp.Help.Verbs)
	cs.Close()
	// A normal disconnect is not an error: check it, do not log.Fatal it.
	if err := <-done; err != nil {
		log.Fatal(err)
	}
	fmt.Println("server stopped cleanly")
	// Output:
	// [note.add(text) — add a note note.list(+1) — list notes]
	// server stopped cleanly
}
