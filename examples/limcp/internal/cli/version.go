//go:build unix

package cli

import (
	"fmt"
	"io"
	"runtime"

	"github.com/spf13/cobra"
	"github.com/verbsurface/verbsurface/internal/buildinfo"
)

// versionCmd is `limcp version`: the line `--version` prints too
// (buildinfo.Line: the version the MCP server reports as
// serverInfo.version, the Go toolchain and the platform), or its parts as
// a machine result under --json. It is not a verb: nothing an agent needs.
func (a *app) versionCmd() *cobra.Command {
	c := &cobra.Command{Use: "version", Short: "print limcp's version (the same as --version and the MCP serverInfo)", Args: cobra.NoArgs}
	c.RunE = a.runE(func(cmd *cobra.Command, args []string) error {
		v := map[string]any{"version": buildinfo.Version(), "go": runtime.Version(), "platform": runtime.GOOS + "/" + runtime.GOARCH}
		return a.ok(v, func(w io.Writer) {
			fmt.Fprintln(w, buildinfo.Line("limcp"))
		})
	})
	return c
}
