package projector

import (
	"fmt"
	"slices"
	"strings"
)

// Named reports whether name names p: its schema name ("home"), one of its
// option strings ("--home", "-H") or negations, an option string
// without its dashes ("home", "H"), or, for a positional, the word the
// program's --help shows for it (its metavar, "FILE_OR_DIR", or its name
// in capitals, "SRC", as click shows it). It is how an operator's
// configuration names a parameter.
func (p *Param) Named(name string) bool {
	if name == "" {
		return false
	}
	if p.Name == name {
		return true
	}
	if p.Positional() && (name == p.Metavar || name == strings.ToUpper(p.Name) && name != p.Name) {
		return true
	}
	for _, o := range append(slices.Clone(p.Options), p.NegOptions...) {
		if o == name || strings.TrimLeft(o, "-") == name {
			return true
		}
	}
	return false
}

// ExcludeParams returns a copy of t in which the parameters named in names
// are no caller's parameters anywhere in the tree: a flag the operator
// sets itself (a state home such as --home), or a machine-mode flag. A
// name matches a parameter as [Param.Named] says. An excluded parameter is
// removed from Params, Groups and AnyRequired, and its option strings are
// recorded in Command.Excluded, so a consumer can tell a flag it excluded
// from one the command lacks (the surface's machine-seam check relies on
// that). t is not modified. Per command, in this order:
//
//  1. A command that requires an excluded parameter becomes
//     unrepresentable: the surface could never supply it.
//  2. So does one whose excluded positional comes before a positional
//     that stays: the CLI would still give the excluded one the words the
//     surface renders for the other.
//  3. A command unrepresentable only for how its parameters sit together
//     (Unrepresentable.ByParams: two storing to one destination,
//     positionals argv cannot tell apart) is checked again without the
//     excluded ones, and offered once they no longer conflict. A kept
//     parameter that shared its name with an excluded one loses its
//     default when theirs differed: which one the parser keeps is the
//     parser's business, and a schema must not guess it.
//
// It does for any adapter's tree what fromcobra.Options.ExcludeFlags does
// during a cobra walk.
func ExcludeParams(t *Tree, names ...string) *Tree {
	if t == nil || len(names) == 0 {
		return t
	}
	out := *t
	out.Commands = make([]*Command, len(t.Commands))
	for i, c := range t.Commands {
		out.Commands[i] = excludeFrom(c, names)
	}
	return &out
}

// ExcludeFromCommand is [ExcludeParams] for one command: cmd without the
// parameters names name, and the names that matched none of its
// parameters (a misspelt name, which a strict configuration refuses).
// cmd is not modified.
func ExcludeFromCommand(cmd *Command, names ...string) (*Command, []string) {
	var unmatched []string
	for _, n := range names {
		if !slices.ContainsFunc(cmd.Params, func(p *Param) bool { return p.Named(n) }) {
			unmatched = append(unmatched, n)
		}
	}
	return excludeFrom(cmd, names), unmatched
}

func excludeFrom(c *Command, names []string) *Command {
	match := func(p *Param) bool {
		return slices.ContainsFunc(names, p.Named)
	}
	if !slices.ContainsFunc(c.Params, match) {
		return c
	}
	cp := *c
	cp.Params = nil
	cp.Excluded = slices.Clone(c.Excluded)
	var gone []*Param
	var excludedPositional *Param // the first excluded positional not yet followed by a kept one
	for _, p := range c.Params {
		if !match(p) {
			if p.Positional() && excludedPositional != nil && (cp.Unrepresentable == nil || cp.Unrepresentable.ByParams) {
				cp.Unrepresentable = &Unrepresentable{Reason: fmt.Sprintf(
					"positional %s is excluded but comes before positional %s, whose words the CLI would still give it", excludedPositional.Name, p.Name)}
			}
			cp.Params = append(cp.Params, p)
			continue
		}
		gone = append(gone, p)
		cp.Excluded = append(cp.Excluded, p.Options...)
		cp.Excluded = append(cp.Excluded, p.NegOptions...)
		if p.Positional() && excludedPositional == nil {
			excludedPositional = p
		}
		if p.Required && (cp.Unrepresentable == nil || cp.Unrepresentable.ByParams) {
			cp.Unrepresentable = &Unrepresentable{Reason: fmt.Sprintf(
				"parameter %s is required but excluded, so the surface cannot supply it", p.Name)}
		}
	}
	goneName := func(n string) bool { return slices.ContainsFunc(gone, func(p *Param) bool { return p.Name == n }) }
	keptName := func(n string) bool { return slices.ContainsFunc(cp.Params, func(p *Param) bool { return p.Name == n }) }
	cp.Groups = nil
	for _, g := range c.Groups {
		g.Params = slices.DeleteFunc(slices.Clone(g.Params), func(n string) bool { return goneName(n) && !keptName(n) })
		if len(g.Params) > 0 {
			cp.Groups = append(cp.Groups, g)
		}
	}
	cp.AnyRequired = nil
	for _, set := range c.AnyRequired {
		set = slices.DeleteFunc(slices.Clone(set), func(n string) bool { return goneName(n) && !keptName(n) })
		if len(set) > 0 {
			cp.AnyRequired = append(cp.AnyRequired, set)
		}
	}
	if u := cp.Unrepresentable; u != nil && u.ByParams && paramsSettled(&cp) {
		cp.Unrepresentable = nil
		for i, p := range cp.Params {
			for _, g := range gone {
				if g.Name == p.Name && fmt.Sprint(g.Default) != fmt.Sprint(p.Default) {
					q := *p
					q.Default = nil
					cp.Params[i] = &q
				}
			}
		}
	}
	return &cp
}

// paramsSettled reports whether cmd's parameters no longer conflict: every
// name is one parameter's, and the positionals argv can tell apart (the
// rule Project checks).
func paramsSettled(cmd *Command) bool {
	seen := map[string]bool{}
	var positionals []*Param
	var variable []int
	for _, p := range cmd.Params {
		if seen[p.Name] {
			return false
		}
		seen[p.Name] = true
		if p.Positional() {
			switch p.Arity {
			case ArityOptional, ArityZeroOrMore, ArityOneOrMore:
				variable = append(variable, len(positionals))
			}
			positionals = append(positionals, p)
		}
	}
	return checkVariablePositionals(cmd, positionals, variable) == nil
}

// WithdrawParams returns cmd without the parameters named (by
// [Param.Named]) that the front supplies itself on every run: the
// machine-mode option, an operator's fixed arguments. Unlike an excluded
// parameter, a withdrawn one is given, so a command requiring it stays
// offerable; for the same reason every parameter mutually exclusive with
// it is withdrawn too (a caller giving one would contradict the fixed
// argument), and a required group or an at-least-one set holding it is
// satisfied. Its option strings are recorded in Command.Excluded. cmd is
// not modified.
func WithdrawParams(cmd *Command, names ...string) *Command {
	withdrawn := map[string]bool{}
	for _, p := range cmd.Params {
		if slices.ContainsFunc(names, p.Named) {
			withdrawn[p.Name] = true
		}
	}
	if len(withdrawn) == 0 {
		return cmd
	}
	for _, g := range cmd.Groups {
		if slices.ContainsFunc(g.Params, func(n string) bool { return withdrawn[n] }) {
			for _, n := range g.Params {
				withdrawn[n] = true
			}
		}
	}
	cp := *cmd
	cp.Params = nil
	cp.Excluded = slices.Clone(cmd.Excluded)
	for _, p := range cmd.Params {
		if withdrawn[p.Name] {
			cp.Excluded = append(cp.Excluded, p.Options...)
			cp.Excluded = append(cp.Excluded, p.NegOptions...)
			continue
		}
		cp.Params = append(cp.Params, p)
	}
	cp.Groups = nil
	for _, g := range cmd.Groups {
		if !slices.ContainsFunc(g.Params, func(n string) bool { return withdrawn[n] }) {
			cp.Groups = append(cp.Groups, g)
		}
	}
	cp.AnyRequired = nil
	for _, set := range cmd.AnyRequired {
		if !slices.ContainsFunc(set, func(n string) bool { return withdrawn[n] }) {
			cp.AnyRequired = append(cp.AnyRequired, set)
		}
	}
	return &cp
}
