//go:build unix

package run_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/verbsurface/verbsurface/examples/limcp/internal/run"
	"github.com/verbsurface/verbsurface/examples/limcp/internal/store"
)

// The Observer is what `job observe` and `job wait` read: one observation
// per id, in order, with per-id errors.
func ExampleObserver() {
	ctx := context.Background()
	dir, _ := os.MkdirTemp("", "limcp-example-")
	defer os.RemoveAll(dir)
	st, _ := store.Open(ctx, filepath.Join(dir, "state.db"), store.Options{})
	defer st.Close()
	recs, _ := st.Create(ctx, store.CreateOptions{}, store.NewRecord{ID: "0123456789abcdef", Kind: store.KindInvocation})

	obs, _ := (&run.Observer{Store: st}).Observe(ctx, []string{recs[0].ID[:8], "ffffffffffffffff"})
	for _, o := range obs {
		if o.Error != nil {
			fmt.Println(o.ID, o.Error.Code)
			continue
		}
		fmt.Println(o.ID, o.Kind, o.Status, o.Phase, o.Process)
	}
	// Output:
	// 01234567 invocation preparing preparing unknown
	// ffffffffffffffff unknown_id
}

func ExampleReadPrompt() {
	p, err := run.ReadPrompt("summarise the logs", true, "")
	fmt.Println(p.Info.Bytes, p.Info.Source, p.Info.SHA256[:12], err)
	_, err = run.ReadPrompt("", false, "")
	fmt.Println(err)
	// Output:
	// 18 prompt 6f1fec8e71e7 <nil>
	// a prompt is required: give PROMPT or --prompt-file
}
