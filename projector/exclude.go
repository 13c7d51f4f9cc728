package projector

import (
	"fmt"
	"slices"
	"strings"
)

// ExcludeParams returns a copy of t in which the parameters named in names
// are no caller's parameters anywhere in the tree: a flag the operator
// sets itself (a state home such as --home), or a machine-mode flag. A
// name matches a parameter by its schema name ("home") or by any of its
// option strings ("--home", "-H"). An excluded parameter is removed from
// Params, Groups and AnyRequired, and its option strings are recorded in
// Command.Excluded, so a consumer can tell a flag it excluded from one the
// command lacks (the surface's machine-seam check relies on that). A
// command that requires an excluded parameter becomes unrepresentable: the
// surface could never supply it. t is not modified.
//
// It does for any adapter's tree what fromcobra.Options.ExcludeFlags does
// during a cobra walk.
func ExcludeParams(t *Tree, names ...string) *Tree {
	if t == nil || len(names) == 0 {
		return t
	}
	match := func(p *Param) bool {
		if slices.Contains(names, p.Name) {
			return true
		}
		return slices.ContainsFunc(p.Options, func(o string) bool {
			return slices.Contains(names, o) || slices.Contains(names, strings.TrimLeft(o, "-"))
		})
	}
	out := *t
	out.Commands = make([]*Command, len(t.Commands))
	for i, c := range t.Commands {
		cp := *c
		cp.Params = nil
		cp.Excluded = slices.Clone(c.Excluded)
		var gone []string
		for _, p := range c.Params {
			if !match(p) {
				cp.Params = append(cp.Params, p)
				continue
			}
			gone = append(gone, p.Name)
			cp.Excluded = append(cp.Excluded, p.Options...)
			if p.Required && cp.Unrepresentable == nil {
				cp.Unrepresentable = &Unrepresentable{Reason: fmt.Sprintf(
					"parameter %s is required but excluded, so the surface cannot supply it", p.Name)}
			}
		}
		if len(gone) > 0 {
			cp.Groups = nil
			for _, g := range c.Groups {
				g.Params = slices.DeleteFunc(slices.Clone(g.Params), func(n string) bool { return slices.Contains(gone, n) })
				if len(g.Params) > 0 {
					cp.Groups = append(cp.Groups, g)
				}
			}
			cp.AnyRequired = nil
			for _, set := range c.AnyRequired {
				set = slices.DeleteFunc(slices.Clone(set), func(n string) bool { return slices.Contains(gone, n) })
				if len(set) > 0 {
					cp.AnyRequired = append(cp.AnyRequired, set)
				}
			}
		}
		out.Commands[i] = &cp
	}
	return &out
}
