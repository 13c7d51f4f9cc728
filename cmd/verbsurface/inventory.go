//go:build unix

package main

import (
	"context"

	"github.com/verbsurface/verbsurface/projector"
	"github.com/verbsurface/verbsurface/verbsurface"
)

// Inventory is what `verbsurface inventory -c FILE` prints: the parser
// tree's inventory with the configuration's exclusions, fence and machine
// mode applied (a command that does not accept the machine-mode option
// where the configuration puts it is unavailable, however clean its
// parameters), and the configured verbs that cannot be offered now.
type Inventory struct {
	Tree        *projector.InventoryReport `json:"tree"`
	Unavailable []verbsurface.Unoffered    `json:"unavailable_verbs"`
}

func (f *front) inventory(ctx context.Context) (*Inventory, error) {
	t, err := f.source(ctx)
	if err != nil {
		return nil, err
	}
	fence := verbsurface.DefaultFence
	if f.cfg.Fence != nil {
		fence = *f.cfg.Fence
	}
	m := verbsurface.Machine{Args: f.cfg.Machine.Args, At: verbsurface.MachineAt(f.cfg.Machine.At)}
	return &Inventory{
		Tree:        projector.Inventory(t, &projector.InventoryOptions{Fenced: fence, Offerable: m.Seam}),
		Unavailable: f.surface.Check(ctx),
	}, nil
}
