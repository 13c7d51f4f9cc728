package projector

import (
	"fmt"
	"slices"
)

// NoDashPattern is the pattern of [Constraint.NoDash]: an empty value, or
// one whose first character is not "-".
const NoDashPattern = `^(?:$|[^-])`

// Constraint is an operator's word on the values of one parameter, beyond
// what the parser says: a parser reads any string as a commit, but a
// program that hands the value on to another program (a linter to git log,
// a wrapper to ssh) gives that program a word it may read as an option
// ({"commit": "--output=FILE"} made git write FILE). The parser cannot know
// it; the operator can.
//
// Every field narrows: the value (or each item of an array) must satisfy
// the parser's own constraints and every constraint given here.
type Constraint struct {
	// Param names the parameter, as [Param.Named] reads names: its
	// schema name or one of its option strings.
	Param string
	// Pattern is an RE2 pattern (Go regexp syntax, matched anywhere in
	// the value, as JSON Schema's "pattern": anchor it with ^ and $) the
	// value must match. Strings only.
	Pattern string
	// Enum lists the values allowed, as JSON scalars of the parameter's
	// kind. On a parameter with choices of its own, each must be one of
	// them.
	Enum []any
	// NoDash says no value may begin with "-" ([NoDashPattern]). Strings
	// only.
	NoDash bool
}

// Constrain returns a copy of cmd whose parameters carry cs: a pattern
// and NoDash are added to [Param.Patterns] (the parser's own pattern
// stays), an enum becomes the parameter's Choices. cmd is not modified.
// It returns an error, naming the constraint and the parameter, when:
//
//  1. a constraint names no parameter of cmd, or sets nothing;
//  2. a pattern or NoDash is given for a parameter that is not a string,
//     or a pattern does not compile;
//  3. an enum value is not a value of the parameter (its kind, its
//     pattern, its bounds), or not one of the parser's own choices;
//  4. the parameter's values are stated position by position
//     ([Param.Elements]).
//
// Constraints apply to what a caller gives; [Project] emits them (an enum
// as "enum", patterns as "allOf" of "pattern") and [RenderArgv] enforces
// them, so the schema an agent reads says what is refused.
func Constrain(cmd *Command, cs ...Constraint) (*Command, error) {
	if len(cs) == 0 {
		return cmd, nil
	}
	cp := *cmd
	cp.Params = slices.Clone(cmd.Params)
	for _, c := range cs {
		i := slices.IndexFunc(cp.Params, func(p *Param) bool { return p.Named(c.Param) })
		bad := func(format string, a ...any) error {
			return fmt.Errorf("projector: %s: constraint on %q: %s", commandName(cmd.Path), c.Param, fmt.Sprintf(format, a...))
		}
		if i < 0 {
			return nil, bad("the command has no such parameter")
		}
		if c.Pattern == "" && !c.NoDash && len(c.Enum) == 0 {
			return nil, bad("it says nothing (give pattern, enum or no_dash)")
		}
		q := *cp.Params[i]
		if len(q.Elements) > 0 {
			return nil, bad("parameter %s states each of its %d values on its own; it takes no constraint as a whole", q.Name, q.N)
		}
		if c.Pattern != "" || c.NoDash {
			if q.Kind != KindString {
				return nil, bad("parameter %s takes %s values; a pattern and no_dash apply to strings", q.Name, q.Kind)
			}
			q.Patterns = slices.Clone(q.Patterns)
			pats := []string{c.Pattern}
			if c.NoDash {
				pats = append(pats, NoDashPattern)
			}
			for _, pat := range pats {
				if pat == "" || slices.Contains(q.Patterns, pat) {
					continue
				}
				if _, err := compilePattern(pat); err != nil {
					return nil, bad("pattern %q: %v", pat, err)
				}
				q.Patterns = append(q.Patterns, pat)
			}
		}
		if len(c.Enum) > 0 {
			// Each value is checked against the parameter as it stands
			// (its own choices included), then normalized, so a YAML
			// integer and a JSON one are the same choice.
			r, err := scalarRuleOf(cmd, &q)
			if err != nil {
				return nil, bad("%v", err)
			}
			enum := make([]any, 0, len(c.Enum))
			for _, v := range c.Enum {
				norm, err := r.check(v)
				if err != nil {
					return nil, bad("enum value %v: %v", v, err)
				}
				if !slices.ContainsFunc(enum, func(e any) bool { return sameScalar(e, norm) }) {
					enum = append(enum, norm)
				}
			}
			q.Choices = enum
		}
		cp.Params[i] = &q
	}
	return &cp, nil
}
