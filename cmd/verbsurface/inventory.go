//go:build unix

package main

import (
	"context"
	"slices"
	"strings"

	"github.com/verbsurface/verbsurface/projector"
	"github.com/verbsurface/verbsurface/verbsurface"
)

// Inventory is what `verbsurface inventory -c FILE` prints: the parser
// tree's inventory with the configuration's exclusions and fence applied,
// the commands that lack the configured machine mode (never offerable,
// however clean their parameters), and the configured verbs that cannot be
// offered now.
type Inventory struct {
	Tree *projector.InventoryReport `json:"tree"`
	// NoMachineSeam lists runnable, unfenced commands that do not accept
	// the machine-mode option where the configuration puts it.
	NoMachineSeam []string `json:"no_machine_seam"`
	// OfferableWithSeam counts the commands that are clean, unfenced and
	// have the seam: what a verb could really offer.
	OfferableWithSeam int                     `json:"offerable_with_seam"`
	Unavailable       []verbsurface.Unoffered `json:"unavailable_verbs"`
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
	inv := &Inventory{Tree: projector.Inventory(t, &projector.InventoryOptions{Fenced: fence}), NoMachineSeam: []string{}}
	opt := ""
	if len(f.cfg.Machine.Args) > 0 {
		opt, _, _ = strings.Cut(f.cfg.Machine.Args[0], "=")
	}
	accepts := func(c *projector.Command) bool {
		return opt == "" || slices.Contains(c.Excluded, opt) ||
			slices.ContainsFunc(c.Params, func(p *projector.Param) bool { return slices.Contains(p.Options, opt) })
	}
	root := t.Find()
	fenced := func(path []string) bool {
		return slices.ContainsFunc(inv.Tree.Fenced, func(p []string) bool { return slices.Equal(p, path) })
	}
	for _, c := range t.Commands {
		if !c.Runnable || fenced(c.Path) {
			continue
		}
		seam := accepts(c)
		if f.cfg.Machine.At == "root" {
			seam = root != nil && accepts(root)
		}
		if !seam {
			inv.NoMachineSeam = append(inv.NoMachineSeam, strings.Join(c.Path, " "))
			continue
		}
		if _, err := projector.Project(c); err == nil && c.Unrepresentable == nil {
			inv.OfferableWithSeam++
		}
	}
	inv.Unavailable = f.surface.Check(ctx)
	return inv, nil
}
