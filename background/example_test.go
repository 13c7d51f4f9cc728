//go:build unix

package background_test

import (
	"context"
	"encoding/json"
	"fmt"
	"log"
	"os"

	"github.com/verbsurface/verbsurface/background"
	"github.com/verbsurface/verbsurface/dispatch"
	"github.com/verbsurface/verbsurface/projector"
	"github.com/verbsurface/verbsurface/verbsurface"
)

// A spawn verb of /bin/sh that starts its script in the background, and
// the job verbs that wait for the run and read its output. The
// supervisor is this binary's hidden subcommand (here the test binary's,
// whose TestMain calls background.Supervise).
func Example() {
	exe, err := os.Executable()
	if err != nil {
		log.Fatal(err)
	}
	state, err := os.MkdirTemp("", "example")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(state)
	runs, err := background.Open(&background.Options{Dir: state + "/runs", Supervisor: []string{exe, "__supervise-test"}})
	if err != nil {
		log.Fatal(err)
	}
	defer runs.Close()

	sh, err := dispatch.NewRunner("/bin/sh", &dispatch.Options{LeadingArgs: []string{"-c"}, Output: dispatch.OutputText})
	if err != nil {
		log.Fatal(err)
	}
	reg, err := verbsurface.NewRegistry(nil)
	if err != nil {
		log.Fatal(err)
	}
	if err := reg.Register(verbsurface.Verb{Name: "sh.run", Class: verbsurface.ClassSpawn, Path: []string{},
		Summary: "run a script in the background", Runner: runs.Verb("sh.run", sh, []string{"/bin/sh", "-c"}, nil)}); err != nil {
		log.Fatal(err)
	}
	if err := runs.RegisterJobVerbs(reg); err != nil {
		log.Fatal(err)
	}
	tree := &projector.Tree{Program: "sh", Dialect: projector.DialectPflag, Commands: []*projector.Command{
		{Path: []string{}, Runnable: true, Params: []*projector.Param{
			{Name: "script", Kind: projector.KindString, Arity: projector.ArityOne, Required: true, Action: "cobra:positional"},
		}},
	}}
	surface, err := verbsurface.New(reg, &verbsurface.Options{Source: runs.TreeSource(verbsurface.StaticTree(tree)), Runner: sh})
	if err != nil {
		log.Fatal(err)
	}

	ctx := context.Background()
	handle := func(req string) map[string]any {
		var out map[string]any
		if err := json.Unmarshal(surface.Handle(ctx, json.RawMessage(req), nil).JSON(), &out); err != nil {
			log.Fatal(err)
		}
		return out
	}
	request := func(req string) map[string]any { return handle(req)["results"].([]any)[0].(map[string]any) }
	// A spawn op carries the schema fingerprint its help gives.
	fp := handle(`{"help":"sh.run"}`)["help"].(map[string]any)["schema_fingerprint"].(string)
	start := request(`{"ops":[{"op":"sh.run","fingerprint":"` + fp + `","args":{"script":"echo built"}}]}`)
	fmt.Println("start:", start["ok"], start["result"].(map[string]any)["background"])
	id := start["result"].(map[string]any)["run_id"].(string)
	wait := request(`{"ops":[{"op":"job.wait","args":{"ids":["` + id + `"],"max_wait_seconds":60}}]}`)
	fmt.Println("all ended:", wait["result"].(map[string]any)["all_terminal"])
	output := request(`{"ops":[{"op":"job.output","args":{"id":"` + id + `"}}]}`)
	fmt.Printf("output: %q\n", output["result"].(map[string]any)["data"])
	// Output:
	// start: true true
	// all ended: true
	// output: "built\n"
}
