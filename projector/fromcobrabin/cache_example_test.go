//go:build unix

package fromcobrabin_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/verbsurface/verbsurface/projector/fromcobrabin"
)

// A server keeps the tree of the cobra program it fronts in its state
// directory: the first start walks the program, the next ones read the
// file while the program is unchanged.
func ExampleCachedWalk() {
	state, err := os.MkdirTemp("", "state-")
	if err != nil {
		fmt.Println(err)
		return
	}
	defer os.RemoveAll(state)
	cache := filepath.Join(state, "cobra-tree.json")
	for range 2 {
		tree, err := fromcobrabin.CachedWalk(context.Background(), []string{fixtureBin}, nil, cache)
		if err != nil {
			fmt.Println(err)
			return
		}
		fi, _ := os.Stat(cache)
		fmt.Println(tree.Program, len(tree.Commands) > 0, fi.Mode())
	}
	// Output:
	// fixture true -rw-------
	// fixture true -rw-------
}
