//go:build unix

package cli

import (
	"fmt"
	"io"
	"runtime"

	"github.com/spf13/cobra"
	"github.com/verbsurface/verbsurface/examples/limcp/internal/buildinfo"
)

// versionCmd is `limcp version`: the same version `--version` prints and
// the MCP server reports as serverInfo.version, with the Go toolchain and
// platform. It is not a verb: nothing an agent needs.
func (a *app) versionCmd() *cobra.Command {
	c := &cobra.Command{Use: "version", Short: "print limcp's version (the same as --version and the MCP serverInfo)", Args: cobra.NoArgs}
	c.RunE = a.runE(func(cmd *cobra.Command, args []string) error {
		v := map[string]any{"version": buildinfo.Version(), "go": runtime.Version(), "platform": runtime.GOOS + "/" + runtime.GOARCH}
		return a.ok(v, func(w io.Writer) {
			fmt.Fprintf(w, "limcp %s (%s, %s/%s)\n", v["version"], runtime.Version(), runtime.GOOS, runtime.GOARCH)
		})
	})
	return c
}
