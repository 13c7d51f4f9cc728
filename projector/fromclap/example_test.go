//go:build unix

package fromclap_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/verbsurface/verbsurface/projector"
	"github.com/verbsurface/verbsurface/projector/fromclap"
)

// Reading a program that prints clap 4's help: here a shell script that
// prints it, standing in for a Rust binary.
func ExampleWalk() {
	dir, _ := os.MkdirTemp("", "fromclap")
	defer os.RemoveAll(dir)
	prog := filepath.Join(dir, "grab")
	os.WriteFile(prog, []byte(`#!/bin/sh
cat <<'END'
Fetch things

Usage: grab [OPTIONS] <URL> [DEST]

Arguments:
  <URL>   what to fetch
  [DEST]  where to put it

Options:
  -q, --quiet          Say nothing
  -f, --format <FMT>   Output format [default: json] [possible values: json, text]
  -h, --help           Print help
END
`), 0o755)
	tree, err := fromclap.Walk(context.Background(), []string{prog}, nil)
	if err != nil {
		panic(err)
	}
	root := tree.Find()
	fmt.Println(tree.Dialect, root.Summary)
	argv, err := projector.RenderArgv(tree.Dialect, root, map[string]any{"URL": "-x", "format": "text", "quiet": true})
	if err != nil {
		panic(err)
	}
	fmt.Printf("grab %q\n", argv)
	// Output:
	// clap Fetch things
	// grab ["--quiet" "--format=text" "--" "-x"]
}
