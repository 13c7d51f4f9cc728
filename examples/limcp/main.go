//go:build unix

package main

import (
	"os"

	"github.com/verbsurface/verbsurface/examples/limcp/internal/cli"
)

func main() {
	os.Exit(cli.Main(os.Args[1:], cli.Options{}))
}
