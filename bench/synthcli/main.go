//go:build unix

// Command synthcli is the synthetic cobra CLI of the growth figures
// (package synth): $SYNTH_COMMANDS leaf commands ("g0 c0" ...) with eight
// flags each; "synthcli mcp" serves them as the one tool over stdio.
package main

import (
	"context"
	"fmt"
	"os"
	"strconv"

	"github.com/verbsurface/verbsurface/bench/internal/synth"
)

func main() {
	n, err := strconv.Atoi(os.Getenv(synth.CommandsEnv))
	if err != nil || n < 1 {
		fmt.Fprintf(os.Stderr, "synthcli: $%s must be a positive number of commands\n", synth.CommandsEnv)
		os.Exit(2)
	}
	if len(os.Args) == 2 && os.Args[1] == "mcp" {
		exe, err := os.Executable()
		if err == nil {
			err = synth.Serve(context.Background(), exe, n)
		}
		if err != nil {
			fmt.Fprintln(os.Stderr, "synthcli mcp:", err)
			os.Exit(1)
		}
		return
	}
	if err := synth.NewRoot(n).Execute(); err != nil {
		fmt.Fprintln(os.Stderr, "synthcli:", err)
		os.Exit(1)
	}
}
