//go:build unix

package fromclap_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/verbsurface/verbsurface/projector/fromclap"
)

// A server keeps the tree of the clap program it fronts in its state
// directory: the first start reads the program's help, the next ones read
// the file while the program is unchanged. Here the program is a script
// that prints clap 4's help, standing in for a Rust binary.
func ExampleCachedWalk() {
	dir, _ := os.MkdirTemp("", "fromclap")
	defer os.RemoveAll(dir)
	prog := filepath.Join(dir, "grab")
	os.WriteFile(prog, []byte(`#!/bin/sh
cat <<'END'
Fetch things

Usage: grab [OPTIONS] <URL>

Arguments:
  <URL>  what to fetch

Options:
  -q, --quiet  Say nothing
  -h, --help   Print help
END
`), 0o755)
	cache := filepath.Join(dir, "state", "clap-tree.json")
	for range 2 {
		tree, err := fromclap.CachedWalk(context.Background(), []string{prog}, nil, cache)
		if err != nil {
			fmt.Println(err)
			return
		}
		fi, _ := os.Stat(cache)
		fmt.Println(tree.Program, tree.Find().Summary, fi.Mode())
	}
	// Output:
	// grab Fetch things -rw-------
	// grab Fetch things -rw-------
}
