package verbsurface_test

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"

	"github.com/verbsurface/verbsurface/projector"
	"github.com/verbsurface/verbsurface/verbsurface"
)

// A source that lists commands before it reads them: job.start is listed
// (path and summary) but not read, so the catalog shows it pending; a help
// on it calls Read first, which swaps in the tree with it read.
func ExampleOptions_read() {
	listed := exampleTree()
	listed.Commands[3] = &projector.Command{Path: []string{"job", "start"}, Summary: "start a job", Unread: true}
	var mu sync.Mutex
	current := listed
	surface := exampleSurface(verbsurface.Options{
		Machine: verbsurface.Machine{Args: []string{"--json"}},
		Source: func(context.Context) (*projector.Tree, error) {
			mu.Lock()
			defer mu.Unlock()
			return current, nil
		},
		Read: func(_ context.Context, paths [][]string) error {
			fmt.Println("read:", paths)
			mu.Lock()
			defer mu.Unlock()
			current = exampleTree() // every command read
			return nil
		},
	})
	ctx := context.Background()
	cat := surface.Handle(ctx, json.RawMessage(`{"help":true}`), nil).Help.(*verbsurface.Catalog)
	fmt.Println(cat.Verbs)
	fmt.Println(cat.Next)
	h := surface.Handle(ctx, json.RawMessage(`{"help":"job.start"}`), nil).Help.(*verbsurface.VerbHelp)
	fmt.Println(h.Schema.Required)
	// Output:
	// [job.status(id, +1) — show one job's status job.start(…) — start a job]
	// {"help":"VERB"} gives a verb's schema and fingerprint; "(…)": parameters not read yet, {"help":"VERB"} reads them
	// read: [[job start]]
	// [name]
}
