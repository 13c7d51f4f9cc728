//go:build unix

// Command testserver embeds the verbsurface over the fixture CLI and serves
// it on stdio: the embedding the package documentation describes, run for
// real by the tests over the stdio transport. TESTCLI_BIN names the built
// fixture CLI; the fixture's own variables (TESTCLI_STATE,
// TESTCLI_PLAYBOOKS) pass through to it.
package main

import (
	"context"
	"log"
	"os"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/verbsurface/verbsurface/dispatch"
	"github.com/verbsurface/verbsurface/verbsurface"
	"github.com/verbsurface/verbsurface/verbsurface/internal/testcli"
)

func main() {
	env := testcli.EnvFromOS()
	tree, err := testcli.Tree(env)
	if err != nil {
		log.Fatal(err)
	}
	runner, err := dispatch.NewRunner(os.Getenv("TESTCLI_BIN"), &dispatch.Options{})
	if err != nil {
		log.Fatal(err)
	}
	reg, _ := verbsurface.NewRegistry(nil)
	for _, v := range []verbsurface.Verb{
		{Name: "agent.submit", Class: verbsurface.ClassSpawn, Path: []string{"agent", "submit"},
			Summary: "start one agent run in the background", Prepare: dispatch.PromptSnapshots{}.Prepare},
		{Name: "job.status", Class: verbsurface.ClassObserve, Path: []string{"job", "status"}, Summary: "show one job's status"},
		{Name: "play.submit", Class: verbsurface.ClassSpawn, Path: []string{"play"}, Summary: "run a playbook",
			Dynamic: &verbsurface.Dynamic{Param: "playbook", Inject: testcli.Injector(env)}},
	} {
		if err := reg.Register(v); err != nil {
			log.Fatal(err)
		}
	}
	surface, err := verbsurface.New(reg, &verbsurface.Options{Source: verbsurface.StaticTree(tree), Runner: runner, Machine: verbsurface.Machine{Args: []string{"--json"}}})
	if err != nil {
		log.Fatal(err)
	}
	server := mcp.NewServer(&mcp.Implementation{Name: "testserver", Version: "v0.0.1"}, nil)
	verbsurface.AddRequestTool(server, surface)
	if err := server.Run(context.Background(), &mcp.StdioTransport{}); err != nil {
		log.Fatal(err)
	}
}
