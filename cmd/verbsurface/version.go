//go:build unix

package main

import (
	"fmt"
	"io"

	"github.com/spf13/cobra"
	"github.com/verbsurface/verbsurface/internal/buildinfo"
)

// setVersion gives the root --version and adds `verbsurface version`;
// both print buildinfo.Line, as limcp's do, and the served
// serverInfo.version is the same buildinfo.Version.
func setVersion(root *cobra.Command, stdout io.Writer) {
	root.Version = buildinfo.Version()
	root.SetVersionTemplate(buildinfo.Line("verbsurface") + "\n")
	root.AddCommand(&cobra.Command{
		Use:   "version",
		Short: "print verbsurface's version (the same as --version and the MCP serverInfo)",
		Args:  cobra.NoArgs,
		RunE: func(*cobra.Command, []string) error {
			_, err := fmt.Fprintln(stdout, buildinfo.Line("verbsurface"))
			return err
		},
	})
}

// callExit is `verbsurface call`'s exit status for a response, the rule
// `limcp call` follows: 0 success, 2 partial (some parts succeeded, some
// failed: look at the results), 1 error (nothing succeeded).
func callExit(status string, isError bool) error {
	switch {
	case status == "error" || isError:
		return exitError(1)
	case status == "partial":
		return exitError(2)
	}
	return nil
}
