package projector

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
)

// What a reader cannot know, the operator can say: the values of some
// parameters (a method word a caller must not choose), and the
// positionals of a command whose parser states them in a way no reader
// can (a cobra Args validator that judges content, a usage line that
// departs from it). Both are pure functions of a command, like
// [ExcludeParams] and [Constrain].

// Fixed is a command some of whose parameters have values the operator
// fixed ([FixParams]): what a caller is offered, and how a run renders.
type Fixed struct {
	// Offered is the command a caller sees: without the fixed
	// parameters (as [WithdrawParams] leaves it: a parameter mutually
	// exclusive with a fixed one goes too, a required group holding one
	// is satisfied). Project it for the schema.
	Offered *Command
	// Values are the fixed values by schema name, normalized as
	// [RenderArgv] reads them.
	Values map[string]any
	// render is the command a run renders: the original, with each fixed
	// positional required (it is always given).
	render *Command
}

// RenderArgv renders a caller's args (valid for Offered) together with
// the fixed values, by the rules of [RenderArgv]: a fixed value is
// rendered where the parser reads it and checked like a caller's. A
// caller's arg naming a fixed parameter is refused as unknown.
func (f *Fixed) RenderArgv(d Dialect, args map[string]any) ([]string, error) {
	all := make(map[string]any, len(args)+len(f.Values))
	for k, v := range args {
		if _, fixed := f.Values[k]; fixed {
			return nil, &ArgError{Path: slices.Clone(f.Offered.Path), Param: k, Reason: "unknown parameter (its value is fixed)"}
		}
		all[k] = v
	}
	maps.Copy(all, f.Values)
	return RenderArgv(d, f.render, all)
}

// FixParams gives parameters of cmd values the operator chooses, by
// name as [Param.Named] reads names (positionals included, by schema
// name). A run renders cmd with the caller's arguments and the fixed
// values together ([Fixed.RenderArgv]), so a fixed value is rendered by
// the same rules as a caller's and checked by the same constraints. A
// command unavailable only for how its parameters sit together
// (Unrepresentable.ByParams: an optional method word before a URL and a
// list, which argv cannot tell apart) is available once the fixed values
// settle it. cmd is not modified. It returns an error when, in this
// order:
//
//  1. a name matches no parameter of cmd, or two names match one;
//  2. a value is not one the parameter admits (its kind, choices,
//     pattern, bounds, arity);
//  3. a fixed positional is one of a run of optional positionals
//     ([DependentRequired]) and an earlier one of the run is not fixed:
//     argv fills positionals left to right, so its value would be read as
//     the earlier one's whenever a caller left that out.
func FixParams(cmd *Command, values map[string]any) (*Fixed, error) {
	if len(values) == 0 {
		return &Fixed{Offered: cmd, render: cmd}, nil
	}
	bad := func(format string, a ...any) error {
		return fmt.Errorf("projector: %s: %s", commandName(cmd.Path), fmt.Sprintf(format, a...))
	}
	fixed := make(map[string]any, len(values))
	by := map[string]string{} // schema name -> the name the operator used
	for _, name := range slices.Sorted(maps.Keys(values)) {
		i := slices.IndexFunc(cmd.Params, func(p *Param) bool { return p.Named(name) })
		if i < 0 {
			return nil, bad("fixed value for %q: the command has no such parameter", name)
		}
		p := cmd.Params[i]
		if other, dup := by[p.Name]; dup {
			return nil, bad("fixed values for %q and %q both name parameter %s", other, name, p.Name)
		}
		by[p.Name] = name
		if p.Unrepresentable != nil {
			return nil, unavailable(cmd, p, p.Unrepresentable)
		}
		r, err := ruleOf(cmd, p)
		if err != nil {
			return nil, err
		}
		v := values[name]
		if v == nil {
			return nil, bad("fixed value for %q: null is not a value (exclude the parameter to leave it out)", name)
		}
		norm, err := r.check(v)
		if err != nil {
			return nil, bad("fixed value for %q: %v", name, err)
		}
		fixed[p.Name] = norm
	}
	for _, d := range DependentRequired(cmd) {
		if _, ok := fixed[d.Name]; !ok {
			continue
		}
		for _, earlier := range d.Requires {
			if _, ok := fixed[earlier]; !ok {
				return nil, bad("fixed positional %s comes after optional positional %s, which is not fixed: argv fills positionals left to right, so fix %s too", d.Name, earlier, earlier)
			}
		}
	}
	render := *cmd
	render.Params = make([]*Param, 0, len(cmd.Params))
	for _, p := range cmd.Params {
		v, ok := fixed[p.Name]
		if !ok || !p.Positional() {
			render.Params = append(render.Params, p)
			continue
		}
		// A fixed positional is always given: of fixed count, so argv
		// delimits the positionals around it. An empty list renders no
		// word, and leaves.
		q := *p
		q.Required = true
		switch q.Arity {
		case ArityOptional:
			q.Arity = ArityOne
		case ArityZeroOrMore, ArityOneOrMore:
			n := len(v.([]any))
			if n == 0 {
				delete(fixed, p.Name)
				continue
			}
			q.Arity, q.N, q.MinItems = ArityExactly, n, 0
		}
		render.Params = append(render.Params, &q)
	}
	// The conflict is settled when what a run renders is settled: the
	// offered command may look settled without a positional whose
	// fixed value still leaves argv ambiguous around it.
	offered := WithdrawParams(cmd, slices.Sorted(maps.Keys(by))...)
	if u := render.Unrepresentable; u != nil && u.ByParams && paramsSettled(&render) && paramsSettled(offered) {
		render.Unrepresentable, offered.Unrepresentable = nil, nil
	}
	return &Fixed{Offered: offered, Values: fixed, render: &render}, nil
}

// StatePositionals returns a copy of cmd whose positionals are stated,
// in order, in place of those its adapter read; its options stay. A
// command unavailable only because its positionals could not be
// determined (Unrepresentable.ByPositionals) is available again. Each
// stated parameter needs a Name and an Arity of one, optional,
// zero_or_more, one_or_more or exactly (with N); an empty Kind is a
// string, and Required is set from the arity (one, exactly and
// one_or_more are required). cmd and stated are not modified. It returns
// an error when a stated parameter has option strings, a name an option
// already has, or the positionals it makes are ones argv cannot delimit
// (two of variable count, as [Project] checks).
func StatePositionals(cmd *Command, stated []*Param) (*Command, error) {
	bad := func(format string, a ...any) error {
		return fmt.Errorf("projector: %s: stated positionals: %s", commandName(cmd.Path), fmt.Sprintf(format, a...))
	}
	cp := *cmd
	cp.Params = nil
	for _, p := range cmd.Params {
		if !p.Positional() {
			cp.Params = append(cp.Params, p)
		}
	}
	for _, s := range stated {
		q := *s
		switch {
		case q.Name == "":
			return nil, bad("a positional has no name")
		case !q.Positional():
			return nil, bad("%s has option strings %q; a positional has none", q.Name, q.Options)
		case slices.ContainsFunc(cp.Params, func(p *Param) bool { return p.Name == q.Name }):
			return nil, bad("%s is already the name of a parameter", q.Name)
		}
		if q.Kind == "" {
			q.Kind = KindString
		}
		switch q.Arity {
		case ArityOne, ArityExactly, ArityOneOrMore:
			q.Required = true
		case ArityOptional, ArityZeroOrMore:
			q.Required = false
		default:
			return nil, bad("%s has arity %q; a positional takes one, optional, zero_or_more, one_or_more or exactly", q.Name, q.Arity)
		}
		if q.Action == "" {
			q.Action = "stated"
		}
		cp.Params = append(cp.Params, &q)
	}
	if u := cmd.Unrepresentable; u != nil && u.ByPositionals {
		cp.Unrepresentable = nil
	}
	// A model the statement makes inconsistent (two positionals of
	// variable count) is the operator's mistake; a command unavailable
	// for a reason of its own (an option the model cannot express) stays
	// so, and says why when it is projected.
	if _, err := commandRules(&cp); err != nil {
		var ue *UnavailableError
		if !errors.As(err, &ue) {
			return nil, bad("%s", strings.TrimPrefix(err.Error(), "projector: "))
		}
	}
	return &cp, nil
}
