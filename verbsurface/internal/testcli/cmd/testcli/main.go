// Command testcli is the fixture CLI the verbsurface tests build and run
// as a real subprocess.
package main

import (
	"os"

	"github.com/verbsurface/verbsurface/verbsurface/internal/testcli"
)

func main() { os.Exit(testcli.Main(os.Args[1:], os.Stdout, os.Stderr)) }
