//go:build unix

package cli

import (
	"github.com/spf13/cobra"
	"github.com/verbsurface/verbsurface/examples/limcp/internal/run"
)

func (a *app) workerCmd() *cobra.Command {
	envFD := -1
	c := &cobra.Command{
		Use:    run.WorkerCommand + " ID",
		Short:  "run a record (internal: started detached by the spawn commands)",
		Hidden: true,
		Args:   cobra.ExactArgs(1),
	}
	c.Flags().IntVar(&envFD, run.EnvFDFlag, -1, "read the providers' variables from this descriptor (internal)")
	c.RunE = a.runE(func(cmd *cobra.Command, args []string) error {
		var secrets map[string]string
		if envFD >= 0 {
			var err error
			if secrets, err = run.ReadSecrets(envFD); err != nil {
				return err
			}
		}
		rt, err := a.runtime(cmd.Context())
		if err != nil {
			return err
		}
		rt.Secrets = secrets
		if err := rt.Work(cmd.Context(), args[0]); err != nil {
			return err
		}
		return a.ok(map[string]any{"id": args[0]}, nil)
	})
	return c
}
