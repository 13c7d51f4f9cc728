//go:build unix

package main

import (
	"context"
	"slices"

	"github.com/verbsurface/verbsurface/projector"
	"github.com/verbsurface/verbsurface/verbsurface"
)

// Inventory is what `verbsurface inventory -c FILE` prints: the parser
// tree's inventory with the configuration's exclusions, fence and machine
// mode applied (a command that does not accept the machine-mode option
// where the configuration puts it is unavailable, however clean its
// parameters; a command a verb runs is judged with that verb's own
// machine:, args:, exclude:, positionals:, constraints: and fixed:, so a
// command is counted clean only when the front can offer it as configured), the configured verbs that cannot be
// offered now, and check's warnings (parameters that look like paths and
// are not confined).
type Inventory struct {
	Tree        *projector.InventoryReport `json:"tree"`
	Unavailable []verbsurface.Unoffered    `json:"unavailable_verbs"`
	Warnings    []string                   `json:"warnings"`
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
	// verbOf is the configured verb that runs c (-1 for none).
	verbOf := func(t *projector.Tree, c *projector.Command) int {
		for i, v := range f.cfg.Verbs {
			if vc := t.Find(v.Path...); vc != nil && slices.Equal(vc.Path, c.Path) {
				return i
			}
		}
		return -1
	}
	offered := func(t *projector.Tree, c *projector.Command) *projector.Command {
		if i := verbOf(t, c); i >= 0 {
			c = f.cfg.Verbs[i].offered(c)
		}
		return c
	}
	offerable := func(t *projector.Tree, c *projector.Command) error {
		m := verbsurface.Machine{Args: f.cfg.Machine.Args, At: verbsurface.MachineAt(f.cfg.Machine.At)}
		var args []string
		var paths map[string]projector.PathUse
		if i := verbOf(t, c); i >= 0 {
			vm := f.cfg.verbMachine(i)
			m = verbsurface.Machine{Args: vm.Args, At: verbsurface.MachineAt(vm.At)}
			args = f.cfg.Verbs[i].Args
			paths = f.cfg.Verbs[i].pathParams()
		}
		if err := m.SeamWith(t, c, paths); err != nil {
			return err
		}
		return verbsurface.CheckFixedArgs(c, args)
	}
	_, warns := f.lint(ctx)
	inv := &Inventory{
		Tree:        projector.Inventory(t, &projector.InventoryOptions{Fenced: fence, Offered: offered, Offerable: offerable}),
		Unavailable: f.surface.Check(ctx),
		Warnings:    []string{},
	}
	for _, w := range warns {
		inv.Warnings = append(inv.Warnings, w.String())
	}
	return inv, nil
}
