//go:build unix

package dispatch_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/verbsurface/verbsurface/dispatch"
)

func ExamplePromptSnapshots_Prepare() {
	prep := dispatch.PromptSnapshots{} // "prompt" / "prompt_file", 1 MiB cap, 64 KiB argv limit
	ctx := context.Background()

	// Short text stays in argv; info carries its hash and size.
	args, info, cleanup, _ := prep.Prepare(ctx, map[string]any{"model": "m", "prompt": "hello"})
	fmt.Println(args["prompt"], info["prompt_bytes"], info["prompt_sha256"])
	cleanup()

	// Text too large for one argv entry moves to a private snapshot file.
	args, info, cleanup, _ = prep.Prepare(ctx, map[string]any{"model": "m", "prompt": strings.Repeat("a", 100_000)})
	// The snapshot is handed to the command by a dispatch.Runner (as
	// /dev/fd/N); dispatch.Snapshot finds its open file by the key.
	snap := args["prompt_file"].(string)
	var st os.FileInfo
	if f := dispatch.Snapshot(snap); f != nil {
		st, _ = f.Stat()
	} else {
		st, _ = os.Stat(snap)
	}
	_, stillText := args["prompt"]
	fmt.Println(stillText, info["prompt_bytes"], st.Mode().Perm())
	cleanup() // after the command exits
	_, err := os.Stat(snap)
	fmt.Println(errors.Is(err, os.ErrNotExist) && dispatch.Snapshot(snap) == nil)
	// Output:
	// hello 5 2cf24dba5fb0a30e26e83b2ac5b9e29e1b161e5c1fa7425e73043362938b9824
	// false 100000 -rw-------
	// true
}

func ExamplePromptError() {
	_, _, _, err := dispatch.PromptSnapshots{}.Prepare(context.Background(), map[string]any{"prompt_file": "notes/prompt.md"})
	var pe *dispatch.PromptError
	if errors.As(err, &pe) {
		fmt.Printf("%s: %s\n", pe.Param(), pe)
	}
	// Output:
	// prompt_file: prompt file "notes/prompt.md" is not an absolute path
}
