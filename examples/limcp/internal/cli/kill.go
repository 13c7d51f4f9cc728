//go:build unix

package cli

import (
	"fmt"
	"io"
	"time"

	"github.com/spf13/cobra"
	"github.com/verbsurface/verbsurface/examples/limcp/internal/machine"
	"github.com/verbsurface/verbsurface/kill"
)

func (a *app) killCmd() *cobra.Command {
	var grace time.Duration
	c := &cobra.Command{
		Use:   "kill ID",
		Short: "stop a run and everything under it (play → session → invocations)",
		Long: `Stop the run ID and, transitively, everything under it. Each process group is
signalled only after its leader's identity (pid and start time) is proven:
SIGTERM, then SIGKILL after the grace. Ends are recorded as
run.cancelled.manual_kill, or run.cancelled.force_kill when SIGKILL was needed.
An entity that cannot be stopped is reported (kill_partial) and left as it is.
A show is never killed as a whole: kill its plays.`,
		Args: cobra.ExactArgs(1),
	}
	c.Flags().DurationVar(&grace, "grace", kill.DefaultGrace, "time between SIGTERM and SIGKILL")
	c.RunE = a.runE(func(cmd *cobra.Command, args []string) error {
		if grace <= 0 {
			return machine.Errorf(machine.InvalidArgument, map[string]any{"argument": "grace"}, "--grace %s must be positive", grace)
		}
		rt, err := a.runtime(cmd.Context())
		if err != nil {
			return err
		}
		rep, err := rt.Kill(cmd.Context(), args[0], grace)
		if err != nil {
			return err
		}
		return a.ok(rep, func(w io.Writer) {
			for _, r := range rep.Reaped {
				fmt.Fprintf(w, "%-10s %s %s %s\n", r.Kind, r.ID, r.Status, r.ReasonCode)
			}
			for _, r := range rep.AlreadyEnded {
				fmt.Fprintf(w, "%-10s %s already %s (%s)\n", r.Kind, r.ID, r.Status, r.ReasonCode)
			}
		})
	})
	return c
}
