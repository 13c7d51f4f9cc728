//go:build unix

package main

import (
	"os"

	"github.com/verbsurface/verbsurface/examples/limcp/internal/cli"
	_ "github.com/verbsurface/verbsurface/examples/limcp/internal/undumpable" // first: see its doc
)

func main() {
	os.Exit(cli.Main(os.Args[1:], cli.Options{}))
}
