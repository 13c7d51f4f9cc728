//go:build unix

package cli

import (
	"github.com/spf13/cobra"
	"github.com/verbsurface/verbsurface/examples/limcp/internal/run"
)

func (a *app) workerCmd() *cobra.Command {
	c := &cobra.Command{
		Use:    run.WorkerCommand + " ID",
		Short:  "run a record (internal: started detached by the spawn commands)",
		Hidden: true,
		Args:   cobra.ExactArgs(1),
	}
	c.RunE = a.runE(func(cmd *cobra.Command, args []string) error {
		rt, err := a.runtime(cmd.Context())
		if err != nil {
			return err
		}
		if err := rt.Work(cmd.Context(), args[0]); err != nil {
			return err
		}
		return a.ok(map[string]any{"id": args[0]}, nil)
	})
	return c
}
