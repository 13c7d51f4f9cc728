//go:build unix

package cli

import (
	"errors"
	"fmt"
	"sync"

	"github.com/spf13/cobra"
	"github.com/verbsurface/verbsurface/examples/limcp/internal/notify"
	"github.com/verbsurface/verbsurface/examples/limcp/internal/store"
)

// notifyCmd is the delivery process a terminal transition starts
// (notify.Launch): it delivers the pending notifications of the records
// named and exits. It is hidden and never projected.
func (a *app) notifyCmd() *cobra.Command {
	c := &cobra.Command{
		Use:    notify.DeliverCommand + " IDS...",
		Short:  "deliver the terminal notifications of records (internal: started detached when a run ends)",
		Hidden: true,
		Args:   cobra.MinimumNArgs(1),
	}
	c.RunE = a.runE(func(cmd *cobra.Command, args []string) error {
		st, err := a.store(cmd.Context())
		if err != nil {
			return err
		}
		home, _ := a.resolvedHome()
		d := &notify.Deliverer{Store: st, Home: home}
		// Records are delivered concurrently: one slow target must not hold
		// up the others handed to this process.
		got := make([][]store.Delivery, len(args))
		errs := make([]error, len(args))
		var wg sync.WaitGroup
		for i, id := range args {
			wg.Add(1)
			go func(i int, id string) {
				defer wg.Done()
				if got[i], errs[i] = d.Deliver(cmd.Context(), id); errs[i] != nil {
					errs[i] = fmt.Errorf("record %s: %w", id, errs[i])
				}
			}(i, id)
		}
		wg.Wait()
		if err := errors.Join(errs...); err != nil {
			return err
		}
		out := map[string][]store.DeliveryJSON{}
		for i, id := range args {
			out[id] = []store.DeliveryJSON{}
			for _, x := range got[i] {
				out[id] = append(out[id], x.JSON())
			}
		}
		return a.ok(map[string]any{"deliveries": out}, nil)
	})
	return c
}
