//go:build unix

package main

import (
	"fmt"
	"maps"
	"slices"

	"github.com/verbsurface/verbsurface/internal/pattern"
	"github.com/verbsurface/verbsurface/projector"
	"github.com/verbsurface/verbsurface/verbsurface"
)

// VerbOperatorConfig is what a verb's operator says that no reader can
// know (docs/fronting.md, "What the reader cannot know"): constraints on
// the values a caller gives, values fixed for every run, and the
// command's positionals. It is inlined into [VerbConfig].
type VerbOperatorConfig struct {
	// Constraints narrow a parameter's values, by schema name or option
	// string (projector.Constrain).
	Constraints map[string]ConstraintConfig `yaml:"constraints"`
	// Fixed gives parameters values no caller sees or sets, by schema
	// name or option string, positionals included (projector.FixParams).
	Fixed map[string]any `yaml:"fixed"`
	// Positionals state the command's positionals, in order, in place of
	// those the reader found (projector.StatePositionals).
	Positionals []PositionalConfig `yaml:"positionals"`
}

// ConstraintConfig is one parameter's constraints: every one given must
// hold.
type ConstraintConfig struct {
	// Pattern is an RE2 pattern the value (each item) must match
	// somewhere: anchor it (^...$) to match the whole value.
	Pattern string `yaml:"pattern"`
	// Enum lists the values allowed.
	Enum []any `yaml:"enum"`
	// NoDash refuses any value that begins with "-".
	NoDash bool `yaml:"no_dash"`
}

// PositionalConfig is one stated positional.
type PositionalConfig struct {
	Name string `yaml:"name"`
	// Arity is one (the default), optional, zero_or_more, one_or_more,
	// or exactly (with n).
	Arity string `yaml:"arity"`
	N     int    `yaml:"n"`
	// Kind is string (the default), integer, number.
	Kind string `yaml:"kind"`
	Help string `yaml:"help"`
}

// check is what is wrong with a verb's operator keys, as the key and a
// message ("" when nothing): what can be known without the program's
// tree. Whether each name is a parameter of the command is checked when
// the verb is projected (check, serve).
func (o *VerbOperatorConfig) check() (key, msg string) {
	for _, name := range slices.Sorted(maps.Keys(o.Constraints)) {
		c := o.Constraints[name]
		switch {
		case name == "":
			return "constraints", "a constraint names no parameter"
		case c.Pattern == "" && len(c.Enum) == 0 && !c.NoDash:
			return "constraints", fmt.Sprintf("%s: says nothing (give pattern, enum or no_dash)", name)
		}
		if c.Pattern != "" {
			if _, err := pattern.Compile(c.Pattern); err != nil {
				return "constraints", fmt.Sprintf("%s: pattern %q: %v", name, c.Pattern, err)
			}
		}
		for _, v := range c.Enum {
			if !scalar(v) {
				return "constraints", fmt.Sprintf("%s: enum value %v is not a string, number or boolean", name, v)
			}
		}
	}
	for _, name := range slices.Sorted(maps.Keys(o.Fixed)) {
		v := o.Fixed[name]
		if list, ok := v.([]any); ok {
			if !all(list, scalar) {
				return "fixed", fmt.Sprintf("%s: a list of values holds one that is not a string, number or boolean", name)
			}
			continue
		}
		if !scalar(v) {
			return "fixed", fmt.Sprintf("%s: %v is not a string, number, boolean or list of them", name, v)
		}
	}
	seen := map[string]bool{}
	for i, p := range o.Positionals {
		where := fmt.Sprintf("[%d]", i)
		if p.Name == "" {
			return "positionals", where + ": name: required"
		}
		if seen[p.Name] {
			return "positionals", fmt.Sprintf("%s: %q is stated twice", where, p.Name)
		}
		seen[p.Name] = true
		if _, err := p.param(); err != nil {
			return "positionals", fmt.Sprintf("%s (%s): %v", where, p.Name, err)
		}
	}
	return "", ""
}

func scalar(v any) bool {
	switch v.(type) {
	case string, bool, int, int64, uint64, float64:
		return true
	}
	return false
}

func all[T any](list []T, f func(T) bool) bool {
	for _, x := range list {
		if !f(x) {
			return false
		}
	}
	return true
}

// param is the stated positional as the model's parameter.
func (p *PositionalConfig) param() (*projector.Param, error) {
	q := &projector.Param{Name: p.Name, Kind: projector.KindString, Arity: projector.ArityOne, Help: p.Help, Action: "stated"}
	switch p.Kind {
	case "", "string":
	case "integer", "number":
		q.Kind = projector.Kind(p.Kind)
	default:
		return nil, fmt.Errorf("kind %q is not string, integer or number", p.Kind)
	}
	switch p.Arity {
	case "", "one":
	case "optional", "zero_or_more", "one_or_more":
		q.Arity = projector.Arity(p.Arity)
	case "exactly":
		if p.N < 1 {
			return nil, fmt.Errorf("arity exactly needs n, the number of words (1 or more)")
		}
		q.Arity, q.N = projector.ArityExactly, p.N
	default:
		return nil, fmt.Errorf("arity %q is not one, optional, zero_or_more, one_or_more or exactly", p.Arity)
	}
	if p.N != 0 && q.Arity != projector.ArityExactly {
		return nil, fmt.Errorf("n goes with arity exactly")
	}
	return q, nil
}

// offered is c as the verb offers it, for an inventory: its stated
// positionals, its exclusions, its constraints and its fixed values
// applied (the machine mode and args: are judged on their own). A step
// that fails leaves c unavailable for that reason.
func (v *VerbConfig) offered(c *projector.Command) *projector.Command {
	var vb verbsurface.Verb
	v.VerbOperatorConfig.apply(&vb)
	unavailable := func(err error) *projector.Command {
		cp := *c
		cp.Unrepresentable = &projector.Unrepresentable{Reason: err.Error()}
		return &cp
	}
	if vb.Positionals != nil {
		stated, err := projector.StatePositionals(c, vb.Positionals)
		if err != nil {
			return unavailable(err)
		}
		c = stated
	}
	c, _ = projector.ExcludeFromCommand(c, v.Exclude...)
	if len(vb.Constraints) > 0 {
		constrained, err := projector.Constrain(c, vb.Constraints...)
		if err != nil {
			return unavailable(err)
		}
		c = constrained
	}
	if len(vb.Fixed) > 0 {
		fixed, err := projector.FixParams(c, vb.Fixed)
		if err != nil {
			return unavailable(err)
		}
		c = fixed.Offered
	}
	return c
}

// apply sets the verb's operator fields (the configuration was checked).
func (o *VerbOperatorConfig) apply(v *verbsurface.Verb) {
	for _, name := range slices.Sorted(maps.Keys(o.Constraints)) {
		c := o.Constraints[name]
		v.Constraints = append(v.Constraints, projector.Constraint{Param: name, Pattern: c.Pattern, Enum: c.Enum, NoDash: c.NoDash})
	}
	if len(o.Fixed) > 0 {
		v.Fixed = maps.Clone(o.Fixed)
	}
	if o.Positionals != nil {
		v.Positionals = []*projector.Param{}
		for _, p := range o.Positionals {
			q, _ := p.param()
			v.Positionals = append(v.Positionals, q)
		}
	}
}
