package projector

import (
	"fmt"
	"regexp"

	"github.com/verbsurface/verbsurface/internal/pattern"
)

// MaxSafeInteger bounds every integer parameter: the largest integer a JSON
// number carries exactly through any common decoder (2^53-1). A caller value
// beyond it could arrive rounded, so an integer parameter's schema never
// admits it, whatever the parser's own range.
const MaxSafeInteger = 1<<53 - 1

// NoNULPattern is the pattern of a string parameter that has no other
// constraint: argv cannot carry a NUL byte, so no string value may contain one.
const NoNULPattern = `^[^\x00]*$`

// rule is the single source of a parameter's constraints: Project emits it as
// schema keywords and RenderArgv checks values against it, so the two cannot
// drift apart.
type rule struct {
	param    *Param
	array    bool
	item     scalarRule
	minItems *int
	maxItems *int
	unique   bool
	// tuple, when above 0, says each item of the array is itself an
	// array of exactly tuple scalars, each checked by item
	// (ArityRepeatedTuple); otherwise the items are scalars.
	tuple int
	// elems, when set, has one rule per position of a tuple value
	// (Param.Elements), used instead of item.
	elems []scalarRule
	// bare: the option may be given without a value; the schema admits
	// true for that spelling (Param.Bare).
	bare bool
}

// at is the rule of position i of a tuple value.
func (r *rule) at(i int) *scalarRule {
	if r.elems != nil {
		return &r.elems[i]
	}
	return &r.item
}

type scalarRule struct {
	kind      Kind
	choices   []any
	pattern   *regexp.Regexp   // nil for non-strings
	patterns  []*regexp.Regexp // Param.Patterns: more patterns, each of which must match
	forbidden []any
	min, max  *float64
}

// compilePattern is the process's one compiled copy of p, shared with the
// surface's validators and the adapters' checks (internal/pattern).
func compilePattern(p string) (*regexp.Regexp, error) { return pattern.Compile(p) }

func ruleOf(cmd *Command, p *Param) (*rule, error) {
	r := &rule{param: p}
	switch p.Kind {
	case KindString, KindInteger, KindNumber, KindBoolean:
	default:
		return nil, modelError(cmd, "parameter %q has unknown kind %q", p.Name, p.Kind)
	}
	switch p.Arity {
	case ArityNone:
		if p.Kind != KindBoolean {
			return nil, modelError(cmd, "parameter %q takes no value but is of kind %q, not boolean", p.Name, p.Kind)
		}
	case ArityOne, ArityOptional:
	case ArityCount:
		if p.Kind != KindInteger || p.Positional() || p.Maximum == nil || *p.Maximum < 0 || *p.Maximum > 64 ||
			p.Minimum != nil && *p.Minimum != 0 {
			return nil, modelError(cmd, "parameter %q counts flag repetitions but is not an integer option with maximum 0..64", p.Name)
		}
	case ArityZeroOrMore, ArityRepeated:
		r.array = true
	case ArityOneOrMore:
		r.array = true
		r.minItems = intPtr(1)
	case ArityExactly:
		if p.N < 1 {
			return nil, modelError(cmd, "parameter %q has arity exactly %d", p.Name, p.N)
		}
		r.array = true
		r.minItems, r.maxItems = intPtr(p.N), intPtr(p.N)
	case ArityRepeatedTuple:
		if p.N < 1 {
			return nil, modelError(cmd, "parameter %q has arity repeated_tuple with n %d", p.Name, p.N)
		}
		if p.Path != PathUseNone {
			// The surface confines a path parameter's string or list of
			// strings; a list of tuples it would refuse at run time, so
			// the model must not promise it.
			return nil, modelError(cmd, "parameter %q is a path but takes a list of tuples", p.Name)
		}
		r.array, r.tuple = true, p.N
	default:
		return nil, modelError(cmd, "parameter %q has unknown arity %q", p.Name, p.Arity)
	}
	if p.MinItems > 0 {
		if !r.array {
			return nil, modelError(cmd, "parameter %q sets min_items but is not an array", p.Name)
		}
		if r.minItems == nil || *r.minItems < p.MinItems {
			r.minItems = intPtr(p.MinItems)
		}
	}
	if p.MaxItems > 0 || p.UniqueItems {
		if !r.array {
			return nil, modelError(cmd, "parameter %q sets max_items or unique_items but is not an array", p.Name)
		}
		if p.MaxItems > 0 && (r.maxItems == nil || *r.maxItems > p.MaxItems) {
			r.maxItems = intPtr(p.MaxItems)
		}
		if r.minItems != nil && r.maxItems != nil && *r.minItems > *r.maxItems {
			return nil, modelError(cmd, "parameter %q: min_items %d exceeds max_items %d", p.Name, *r.minItems, *r.maxItems)
		}
		r.unique = p.UniqueItems
	}
	item, err := scalarRuleOf(cmd, p)
	if err != nil {
		return nil, err
	}
	r.item = item
	if len(p.Elements) > 0 {
		switch {
		case p.Arity != ArityExactly && p.Arity != ArityRepeatedTuple || len(p.Elements) != p.N:
			return nil, modelError(cmd, "parameter %q has %d elements but is not a tuple of that many values", p.Name, len(p.Elements))
		case p.Path != PathUseNone:
			return nil, modelError(cmd, "parameter %q is a path with elements: the surface confines whole values, not positions", p.Name)
		case p.Choices != nil || p.Pattern != "" || p.Patterns != nil || p.Forbidden != nil || p.Minimum != nil || p.Maximum != nil || p.Kind != p.Elements[0].Kind:
			return nil, modelError(cmd, "parameter %q has elements and constraints of its own", p.Name)
		}
		r.elems = make([]scalarRule, len(p.Elements))
		for i := range p.Elements {
			if r.elems[i], err = scalarRuleOf(cmd, p.Element(i)); err != nil {
				return nil, err
			}
		}
	}
	if p.Bare {
		if p.Positional() || r.array || p.Kind == KindBoolean || (p.Arity != ArityOne && p.Arity != ArityOptional) {
			return nil, modelError(cmd, "parameter %q may be given bare but is not an option with one value", p.Name)
		}
		r.bare = true
	}
	return r, nil
}

// scalarRuleOf is the rule of one value of p: its kind and constraints.
func scalarRuleOf(cmd *Command, p *Param) (scalarRule, error) {
	s := scalarRule{kind: p.Kind, choices: p.Choices, forbidden: p.Forbidden}
	switch p.Kind {
	case KindString:
		pat := p.Pattern
		if pat == "" {
			pat = NoNULPattern
		}
		re, err := compilePattern(pat)
		if err != nil {
			return s, modelError(cmd, "parameter %q: pattern %q: %v", p.Name, pat, err)
		}
		s.pattern = re
	case KindInteger:
		lo, hi := float64(-MaxSafeInteger), float64(MaxSafeInteger)
		if p.Minimum != nil && *p.Minimum > lo {
			lo = *p.Minimum
		}
		if p.Maximum != nil && *p.Maximum < hi {
			hi = *p.Maximum
		}
		if p.Arity == ArityCount {
			lo = 0
		}
		s.min, s.max = &lo, &hi
	case KindNumber:
		s.min, s.max = p.Minimum, p.Maximum
	case KindBoolean:
	default:
		return s, modelError(cmd, "parameter %q has unknown kind %q", p.Name, p.Kind)
	}
	if p.Kind != KindString && (p.Pattern != "" || len(p.Patterns) > 0) {
		return s, modelError(cmd, "parameter %q of kind %s has a pattern", p.Name, p.Kind)
	}
	for _, pat := range p.Patterns {
		re, err := compilePattern(pat)
		if err != nil {
			return s, modelError(cmd, "parameter %q: pattern %q: %v", p.Name, pat, err)
		}
		s.patterns = append(s.patterns, re)
	}
	for _, f := range p.Forbidden {
		// A forbidden value need only be of the parameter's kind: it may
		// well lie outside the other constraints too.
		if _, err := s.normalize(f); err != nil {
			return s, modelError(cmd, "parameter %q: forbidden value %v: %v", p.Name, f, err)
		}
	}
	// Each choice is checked against every constraint but the choices
	// themselves: against them too, the check was quadratic (300,000
	// choices kept a check busy for over 12 minutes).
	choices := s.choices
	s.choices = nil
	for _, c := range p.Choices {
		if _, err := s.check(c); err != nil {
			return s, modelError(cmd, "parameter %q: choice %v: %v", p.Name, c, err)
		}
	}
	s.choices = choices
	return s, nil
}

func intPtr(n int) *int { return &n }

// check validates one scalar value and returns it normalized: a string, a
// bool, an int64 (integers) or a float64 (numbers).
func (s *scalarRule) check(v any) (any, error) {
	norm, err := s.normalize(v)
	if err != nil {
		return nil, err
	}
	switch x := norm.(type) {
	case string:
		if !s.pattern.MatchString(x) {
			return nil, fmt.Errorf("value %s does not match pattern %s", quoteShort(x), s.pattern)
		}
		for _, re := range s.patterns {
			if !re.MatchString(x) {
				return nil, fmt.Errorf("value %s does not match pattern %s", quoteShort(x), re)
			}
		}
	case int64:
		if float64(x) < *s.min || float64(x) > *s.max {
			return nil, fmt.Errorf("value %d is outside [%v, %v]", x, *s.min, *s.max)
		}
	case float64:
		if s.min != nil && x < *s.min {
			return nil, fmt.Errorf("value %v is below the minimum %v", x, *s.min)
		}
		if s.max != nil && x > *s.max {
			return nil, fmt.Errorf("value %v is above the maximum %v", x, *s.max)
		}
	}
	for _, f := range s.forbidden {
		if sameScalar(f, norm) {
			return nil, fmt.Errorf("value %s is not allowed: the parser would misread it", quoteShort(fmt.Sprint(norm)))
		}
	}
	if len(s.choices) > 0 {
		found := false
		for _, c := range s.choices {
			if sameScalar(c, norm) {
				found = true
				break
			}
		}
		if !found {
			return nil, fmt.Errorf("value %v is not one of the choices %v", norm, s.choices)
		}
	}
	return norm, nil
}

// normalize checks that v is a JSON value of the rule's kind and returns it
// as a string, a bool, an int64 (integers) or a float64 (numbers), without
// applying any other constraint.
func (s *scalarRule) normalize(v any) (any, error) {
	switch s.kind {
	case KindString:
		if str, ok := v.(string); ok {
			return str, nil
		}
		return nil, fmt.Errorf("want a string, got %s", jsonTypeName(v))
	case KindBoolean:
		if b, ok := v.(bool); ok {
			return b, nil
		}
		return nil, fmt.Errorf("want a boolean, got %s", jsonTypeName(v))
	case KindInteger:
		if n, ok := asInteger(v); ok {
			return n, nil
		}
		return nil, fmt.Errorf("want an integer, got %s", jsonTypeName(v))
	case KindNumber:
		if f, ok := asNumber(v); ok {
			return f, nil
		}
		return nil, fmt.Errorf("want a number, got %s", jsonTypeName(v))
	}
	return nil, fmt.Errorf("unknown kind %q", s.kind)
}

func quoteShort(s string) string {
	if len(s) > 64 {
		return fmt.Sprintf("%q... (%d bytes)", s[:64], len(s))
	}
	return fmt.Sprintf("%q", s)
}
