package projector

import (
	"encoding/json"
	"fmt"
	"strconv"

	"github.com/google/jsonschema-go/jsonschema"
)

// Project returns the closed JSON Schema (draft 2020-12) of cmd's args.
// If cmd or any of its parameters is unrepresentable the error is an
// *UnavailableError and the schema is nil.
//
// The schema uses only the keyword subset listed in the package
// documentation, which the surface's validator interprets exactly. Its
// checks are made in this order:
//
//  1. cmd.Unrepresentable set: unavailable for that reason.
//  2. cmd not runnable (a group that only dispatches): unavailable.
//  3. The first parameter, in parser order, whose Unrepresentable is set:
//     unavailable, naming it and its action or type.
//  4. An inconsistent model (duplicate names, unknown kind or arity, a group
//     naming an unknown parameter): a plain error, a bug in the adapter.
//
// Project is pure: it reads cmd and does not retain or modify it.
// Positional parameters are properties like any other; their order lives in
// the model and matters only to [RenderArgv].
func Project(cmd *Command) (*jsonschema.Schema, error) {
	rules, err := commandRules(cmd)
	if err != nil {
		return nil, err
	}
	root := &jsonschema.Schema{
		Type:                 "object",
		Description:          cmd.Summary,
		Properties:           make(map[string]*jsonschema.Schema, len(rules)),
		PropertyOrder:        make([]string, 0, len(rules)),
		AdditionalProperties: &jsonschema.Schema{Not: &jsonschema.Schema{}},
	}
	for _, r := range rules {
		p := r.param
		s, err := r.schema()
		if err != nil {
			return nil, err
		}
		root.Properties[p.Name] = s
		root.PropertyOrder = append(root.PropertyOrder, p.Name)
		if p.Required {
			root.Required = append(root.Required, p.Name)
		}
	}
	for _, g := range cmd.Groups {
		for i := 0; i < len(g.Params); i++ {
			for j := i + 1; j < len(g.Params); j++ {
				root.AllOf = append(root.AllOf, &jsonschema.Schema{
					Not: &jsonschema.Schema{Required: []string{g.Params[i], g.Params[j]}},
				})
			}
		}
		if g.Required {
			root.AllOf = append(root.AllOf, anyRequired(g.Params))
		}
	}
	for _, set := range cmd.AnyRequired {
		root.AllOf = append(root.AllOf, anyRequired(set))
	}
	if deps := DependentRequired(cmd); len(deps) > 0 {
		root.DependentRequired = make(map[string][]string, len(deps))
		for _, d := range deps {
			root.DependentRequired[d.Name] = d.Requires
		}
	}
	return root, nil
}

func anyRequired(names []string) *jsonschema.Schema {
	s := &jsonschema.Schema{}
	for _, n := range names {
		s.AnyOf = append(s.AnyOf, &jsonschema.Schema{Required: []string{n}})
	}
	return s
}

// commandRules checks that cmd can be offered and returns one rule per
// parameter in parser order.
func commandRules(cmd *Command) ([]*rule, error) {
	if cmd == nil {
		return nil, fmt.Errorf("projector: nil command")
	}
	if cmd.Unrepresentable != nil {
		return nil, unavailable(cmd, nil, cmd.Unrepresentable)
	}
	if !cmd.Runnable {
		return nil, unavailable(cmd, nil, &Unrepresentable{Reason: "the command only dispatches to subcommands and runs nothing itself"})
	}
	for _, p := range cmd.Params {
		if p.Unrepresentable != nil {
			return nil, unavailable(cmd, p, p.Unrepresentable)
		}
		if len(p.Choices) > MaxChoices {
			return nil, unavailable(cmd, p, &Unrepresentable{Reason: fmt.Sprintf(
				"%d choices, more than the %d a schema lists: exclude it, or declare the value's pattern instead", len(p.Choices), MaxChoices)})
		}
	}
	rules := make([]*rule, 0, len(cmd.Params))
	byName := make(map[string]bool, len(cmd.Params))
	var positionals []*Param
	var variable []int // indexes into positionals of those taking a variable number of values
	for _, p := range cmd.Params {
		if p.Name == "" {
			return nil, modelError(cmd, "a parameter has no name")
		}
		if byName[p.Name] {
			return nil, modelError(cmd, "two parameters are named %q", p.Name)
		}
		byName[p.Name] = true
		r, err := ruleOf(cmd, p)
		if err != nil {
			return nil, err
		}
		if p.Positional() {
			switch p.Arity {
			case ArityNone, ArityRepeated, ArityRepeatedTuple:
				return nil, modelError(cmd, "positional parameter %q has arity %s", p.Name, p.Arity)
			case ArityOne, ArityExactly:
				if !p.Required {
					return nil, modelError(cmd, "positional parameter %q takes a fixed number of values but is not required", p.Name)
				}
			}
			switch p.Arity {
			case ArityOptional, ArityZeroOrMore, ArityOneOrMore:
				variable = append(variable, len(positionals))
			}
			positionals = append(positionals, p)
		}
		rules = append(rules, r)
	}
	if err := checkVariablePositionals(cmd, positionals, variable); err != nil {
		return nil, err
	}
	checkNames := func(what string, names []string) error {
		for _, n := range names {
			if !byName[n] {
				return modelError(cmd, "%s names unknown parameter %q", what, n)
			}
		}
		return nil
	}
	for _, g := range cmd.Groups {
		if err := checkNames("a mutually exclusive group", g.Params); err != nil {
			return nil, err
		}
	}
	for _, set := range cmd.AnyRequired {
		if err := checkNames("an at-least-one group", set); err != nil {
			return nil, err
		}
	}
	return rules, nil
}

// checkVariablePositionals accepts one positional of variable count
// anywhere, or a run of consecutive optional ones (nargs='?', cobra [NAME])
// of which only the last may be a zero-or-more array: argv fills them left
// to right, so each later one is given only with every earlier one (see
// [DependentRequired]). Anything else (two arrays, a one-or-more array after
// an optional one) leaves argv unable to say where one ends: the adapters
// mark such commands unrepresentable; a model that does not is inconsistent.
func checkVariablePositionals(cmd *Command, positionals []*Param, variable []int) error {
	for i := 1; i < len(variable); i++ {
		prev, p := positionals[variable[i-1]], positionals[variable[i]]
		if variable[i] != variable[i-1]+1 || prev.Arity != ArityOptional || p.Arity == ArityOneOrMore {
			return modelError(cmd, "positionals %q and %q both take a variable number of values", prev.Name, p.Name)
		}
	}
	return nil
}

// Dependency is one dependentRequired entry: Name may be given only with
// every parameter in Requires.
type Dependency struct {
	Name     string
	Requires []string
}

// DependentRequired returns the dependencies between cmd's consecutive
// variable positionals, in parser order: each one after the first of a run
// requires every earlier one, since argv fills them left to right (given
// alone, the later one's value would be read as the earlier one's). The
// model is assumed consistent (as [Project] checks); Project emits these as
// the schema's "dependentRequired" and [RenderArgv] enforces them.
func DependentRequired(cmd *Command) []Dependency {
	var run []string
	var deps []Dependency
	for _, p := range cmd.Params {
		if !p.Positional() {
			continue
		}
		switch p.Arity {
		case ArityOptional, ArityZeroOrMore:
			if len(run) > 0 {
				deps = append(deps, Dependency{Name: p.Name, Requires: append([]string(nil), run...)})
			}
			run = append(run, p.Name)
		default:
			run = nil
		}
	}
	return deps
}

// Representable returns the error [Project] would return for cmd, nil
// when Project would succeed, without building the schema. A server that
// checks thousands of commands at start needs only to know which it can
// offer; the schema of each is projected when something needs it.
func Representable(cmd *Command) error {
	rules, err := commandRules(cmd)
	if err != nil {
		return err
	}
	for _, r := range rules {
		if _, err := r.defaultJSON(); err != nil {
			return err
		}
	}
	return nil
}

// defaultJSON is the parameter's default as the schema's "default" (nil
// when it has none).
func (r *rule) defaultJSON() (json.RawMessage, error) {
	p := r.param
	if p.Default == nil {
		return nil, nil
	}
	raw, err := marshalDefault(p.Default)
	if err != nil {
		return nil, fmt.Errorf("projector: parameter %q: default %v: %w", p.Name, p.Default, err)
	}
	return raw, nil
}

func (r *rule) schema() (*jsonschema.Schema, error) {
	p := r.param
	item := r.item.schema()
	s := item
	var prefix []*jsonschema.Schema // a tuple's positions (Param.Elements)
	for i := range r.elems {
		prefix = append(prefix, r.elems[i].schema())
	}
	if prefix != nil {
		item = nil
	}
	if r.tuple > 0 {
		n := r.tuple
		item = &jsonschema.Schema{Type: "array", Items: item, PrefixItems: prefix, MinItems: &n, MaxItems: &n}
		prefix = nil
	}
	if r.array {
		s = &jsonschema.Schema{Type: "array", Items: item, PrefixItems: prefix, MinItems: r.minItems, MaxItems: r.maxItems, UniqueItems: r.unique}
	}
	if r.bare {
		bareSchema(s)
	}
	s.Description = p.Help
	raw, err := r.defaultJSON()
	if err != nil {
		return nil, err
	}
	s.Default = raw
	return s, nil
}

// bareSchema widens an option's value schema to also admit true, its bare
// spelling: "type": ["boolean", kind], with true added to any enum and
// false forbidden (saying nothing is how to leave the option out).
func bareSchema(s *jsonschema.Schema) {
	s.Types, s.Type = []string{"boolean", s.Type}, ""
	if len(s.Enum) > 0 {
		s.Enum = append([]any{true}, s.Enum...)
	}
	if s.Not == nil {
		s.Not = &jsonschema.Schema{}
	}
	s.Not.Enum = append([]any{false}, s.Not.Enum...)
}

func (s *scalarRule) schema() *jsonschema.Schema {
	out := &jsonschema.Schema{Type: string(s.kind)}
	if len(s.choices) > 0 {
		out.Enum = append([]any(nil), s.choices...)
	}
	if s.pattern != nil {
		out.Pattern = s.pattern.String()
	}
	for _, re := range s.patterns {
		out.AllOf = append(out.AllOf, &jsonschema.Schema{Pattern: re.String()})
	}
	if len(s.forbidden) > 0 {
		out.Not = &jsonschema.Schema{Enum: append([]any(nil), s.forbidden...)}
	}
	if s.min != nil || s.max != nil {
		bounds := [2]float64{} // one allocation for both
		if s.min != nil {
			bounds[0] = *s.min
			out.Minimum = &bounds[0]
		}
		if s.max != nil {
			bounds[1] = *s.max
			out.Maximum = &bounds[1]
		}
	}
	return out
}

// marshalDefault is json.Marshal for the plain values adapters store as
// defaults, written directly (a projection marshals one per parameter).
func marshalDefault(v any) (json.RawMessage, error) {
	var b []byte
	switch x := v.(type) {
	case []string:
		b = append(b, '[')
		for i, s := range x {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendString(b, s)
		}
		return append(b, ']'), nil
	case []int64:
		b = append(b, '[')
		for i, n := range x {
			if i > 0 {
				b = append(b, ',')
			}
			b = strconv.AppendInt(b, n, 10)
		}
		return append(b, ']'), nil
	}
	if b, ok := appendCanonicalValue(b, v); ok {
		return b, nil
	}
	return json.Marshal(v)
}
