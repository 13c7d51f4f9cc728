package projector

import (
	"fmt"
	"math"
	"regexp"
	"sort"
	"strconv"
	"strings"
)

// RenderArgv renders validated args as the argv tail that follows the
// command path: options as --flag=value, then "--" and the positionals
// (a declared command as its [Rendering] says).
// It never lets a caller value occupy an option position.
//
// Rendering follows the dialect d (see the package documentation, section
// Rendering). RenderArgv re-checks every value against the same constraints
// [Project] emits — unknown or missing parameters, types, choices, patterns,
// forbidden values, bounds, item counts, exclusive groups — and returns an
// [*ArgError] instead of rendering anything doubtful; an unrepresentable
// command yields an [*UnavailableError]. On error the argv is nil.
func RenderArgv(d Dialect, cmd *Command, args map[string]any) ([]string, error) {
	if d != DialectPflag && d != DialectArgparse && d != DialectClick && d != DialectOptparse && d != DialectClap && d != DialectDeclared {
		return nil, fmt.Errorf("projector: unknown dialect %q", d)
	}
	rules, err := commandRules(cmd)
	if err != nil {
		return nil, err
	}
	argErr := func(param, format string, a ...any) error {
		return &ArgError{Path: append([]string(nil), cmd.Path...), Param: param, Reason: fmt.Sprintf(format, a...)}
	}
	known := make(map[string]bool, len(rules))
	for _, r := range rules {
		known[r.param.Name] = true
	}
	var unknown []string
	for k := range args {
		if !known[k] {
			unknown = append(unknown, k)
		}
	}
	if len(unknown) > 0 {
		sort.Strings(unknown)
		return nil, argErr(unknown[0], "unknown parameter")
	}

	// Check and normalize every given value first: nothing is rendered
	// unless everything is right.
	values := make(map[string]any, len(args))
	for _, r := range rules {
		p := r.param
		v, given := args[p.Name]
		if !given {
			if p.Required {
				return nil, argErr(p.Name, "required parameter missing")
			}
			continue
		}
		if v == nil {
			return nil, argErr(p.Name, "null is not a value; omit the parameter instead")
		}
		norm, err := r.check(v)
		if err != nil {
			return nil, argErr(p.Name, "%v", err)
		}
		values[p.Name] = norm
	}
	for _, g := range cmd.Groups {
		var given []string
		for _, n := range g.Params {
			if _, ok := values[n]; ok {
				given = append(given, n)
			}
		}
		if len(given) > 1 {
			return nil, argErr(given[1], "cannot be given together with %q (mutually exclusive)", given[0])
		}
		if g.Required && len(given) == 0 {
			return nil, argErr("", "one of %s is required", strings.Join(g.Params, ", "))
		}
	}
	for _, set := range cmd.AnyRequired {
		found := false
		for _, n := range set {
			if _, ok := values[n]; ok {
				found = true
			}
		}
		if !found {
			return nil, argErr("", "at least one of %s is required", strings.Join(set, ", "))
		}
	}

	for _, dep := range DependentRequired(cmd) {
		if _, ok := values[dep.Name]; !ok {
			continue
		}
		for _, earlier := range dep.Requires {
			if _, ok := values[earlier]; !ok {
				return nil, argErr(dep.Name, "can be given only together with %q: argv gives positionals left to right, so without %q this value would be read as %q", earlier, earlier, earlier)
			}
		}
	}

	argv := []string{}
	var positionals []string
	for _, r := range rules {
		p := r.param
		v, ok := values[p.Name]
		if !ok {
			continue
		}
		if p.Positional() {
			if r.array {
				for _, item := range v.([]any) {
					positionals = append(positionals, scalarText(d, p, item, false))
				}
			} else {
				positionals = append(positionals, scalarText(d, p, v, false))
			}
			continue
		}
		out, err := renderOption(d, cmd.Rendering, r, v)
		if err != nil {
			return nil, argErr(p.Name, "%v", err)
		}
		argv = append(argv, out...)
	}
	if len(positionals) > 0 {
		if d != DialectDeclared || cmd.Rendering == nil || !cmd.Rendering.NoSeparator {
			argv = append(argv, "--")
		}
		argv = append(argv, positionals...)
	}
	return argv, nil
}

// check validates a whole parameter value (scalar or array) against r.
func (r *rule) check(v any) (any, error) {
	if b, ok := v.(bool); ok && r.bare {
		if !b {
			return nil, fmt.Errorf("false is not a value here: give true for the bare option, a value, or omit the parameter")
		}
		return true, nil
	}
	if !r.array {
		norm, err := r.item.check(v)
		if err != nil {
			return nil, err
		}
		if s, ok := norm.(string); ok && strings.IndexByte(s, 0) >= 0 {
			return nil, fmt.Errorf("value contains a NUL byte, which argv cannot carry")
		}
		return norm, nil
	}
	items, ok := asSlice(v)
	if !ok {
		return nil, fmt.Errorf("want an array, got %s", jsonTypeName(v))
	}
	if r.minItems != nil && len(items) < *r.minItems {
		return nil, fmt.Errorf("has %d items, fewer than the minimum %d", len(items), *r.minItems)
	}
	if r.maxItems != nil && len(items) > *r.maxItems {
		return nil, fmt.Errorf("has %d items, more than the maximum %d", len(items), *r.maxItems)
	}
	out := make([]any, len(items))
	for i, item := range items {
		if r.elems != nil && r.tuple == 0 {
			// A tuple value itself (ArityExactly with Elements): each
			// position by its own rule.
			norm, err := r.at(i).check(item)
			if err != nil {
				return nil, fmt.Errorf("item %d: %v", i, err)
			}
			if s, ok := norm.(string); ok && strings.IndexByte(s, 0) >= 0 {
				return nil, fmt.Errorf("item %d contains a NUL byte, which argv cannot carry", i)
			}
			out[i] = norm
			continue
		}
		if r.tuple > 0 {
			tuple, err := r.checkTuple(item)
			if err != nil {
				return nil, fmt.Errorf("item %d: %v", i, err)
			}
			out[i] = tuple
			continue
		}
		norm, err := r.item.check(item)
		if err != nil {
			return nil, fmt.Errorf("item %d: %v", i, err)
		}
		if s, ok := norm.(string); ok && strings.IndexByte(s, 0) >= 0 {
			return nil, fmt.Errorf("item %d contains a NUL byte, which argv cannot carry", i)
		}
		out[i] = norm
	}
	if r.unique {
		if i, j, dup := firstDuplicate(out); dup {
			return nil, fmt.Errorf("items %d and %d are equal; the items must be unique", i, j)
		}
	}
	return out, nil
}

// checkTuple validates one value of an ArityRepeatedTuple parameter: an
// array of exactly r.tuple scalars, each checked by r.item.
func (r *rule) checkTuple(v any) ([]any, error) {
	words, ok := asSlice(v)
	if !ok {
		return nil, fmt.Errorf("want an array of %d values, got %s", r.tuple, jsonTypeName(v))
	}
	if len(words) != r.tuple {
		return nil, fmt.Errorf("has %d values, want exactly %d", len(words), r.tuple)
	}
	out := make([]any, len(words))
	for k, w := range words {
		norm, err := r.at(k).check(w)
		if err != nil {
			return nil, fmt.Errorf("value %d: %v", k, err)
		}
		if s, ok := norm.(string); ok && strings.IndexByte(s, 0) >= 0 {
			return nil, fmt.Errorf("value %d contains a NUL byte, which argv cannot carry", k)
		}
		out[k] = norm
	}
	return out, nil
}

// firstDuplicate finds two equal normalised items (scalars, or tuples of
// scalars) in one pass, so a long array costs linear time.
func firstDuplicate(items []any) (int, int, bool) {
	seen := make(map[any]int, len(items))
	for j, v := range items {
		key := v
		if tuple, ok := v.([]any); ok {
			// A slice is not comparable: key a tuple by its values'
			// kinds and texts, which tell normalised scalars apart.
			var b strings.Builder
			for _, x := range tuple {
				fmt.Fprintf(&b, "%T:%q,", x, fmt.Sprint(x))
			}
			key = b.String()
		}
		if i, ok := seen[key]; ok {
			return i, j, true
		}
		seen[key] = j
	}
	return 0, 0, false
}

// optionString picks the spelling rendered for an option: its first long
// ("--") option string, else its first one.
func optionString(options []string) string {
	for _, o := range options {
		if strings.HasPrefix(o, "--") {
			return o
		}
	}
	return options[0]
}

func renderOption(d Dialect, rendering *Rendering, r *rule, v any) ([]string, error) {
	p := r.param
	opt := optionString(p.Options)
	switch p.Arity {
	case ArityNone:
		b := v.(bool)
		switch {
		case b == p.FlagValue:
			return []string{opt}, nil
		case len(p.NegOptions) > 0:
			return []string{optionString(p.NegOptions)}, nil
		case d == DialectPflag:
			return []string{opt + "=" + strconv.FormatBool(b)}, nil
		case p.Default == b:
			return nil, nil // the parser's default is this value: say nothing
		default:
			return nil, fmt.Errorf("value %v cannot be spelled: the flag only sets %v and there is no negation", b, p.FlagValue)
		}
	case ArityOne, ArityOptional:
		if v == true && r.bare {
			return []string{opt}, nil // the bare spelling: the parser stores Const
		}
		return glue(d, rendering, opt, scalarText(d, p, v, false)), nil
	case ArityCount:
		out := make([]string, v.(int64))
		for i := range out {
			out[i] = opt
		}
		return out, nil
	case ArityRepeated:
		items := v.([]any)
		if d == DialectPflag && p.Action == "pflag:stringSlice" {
			// pflag reads each stringSlice occurrence as one CSV record:
			// quote every item so commas, quotes and spaces survive, and
			// spell the empty list as an empty record.
			if len(items) == 0 {
				return []string{opt + "="}, nil
			}
			out := make([]string, len(items))
			for i, item := range items {
				s := item.(string)
				if strings.ContainsRune(s, '\r') {
					return nil, fmt.Errorf("item %d contains a carriage return, which pflag's CSV reading drops", i)
				}
				out[i] = opt + "=" + `"` + strings.ReplaceAll(s, `"`, `""`) + `"`
			}
			return out, nil
		}
		var out []string
		for _, item := range items {
			out = append(out, glue(d, rendering, opt, scalarText(d, p, item, false))...)
		}
		return out, nil
	case ArityRepeatedTuple:
		// Once per tuple, its values as separate words, as a fixed-arity
		// option is spelled once.
		var out []string
		for i, tuple := range v.([]any) {
			words, err := spacedValues(d, p, opt, tuple.([]any))
			if err != nil {
				return nil, fmt.Errorf("item %d: %v", i, err)
			}
			out = append(out, words...)
		}
		return out, nil
	case ArityExactly:
		if d == DialectArgparse && p.N == 1 {
			// nargs=1 takes its one value through "=", like a scalar.
			return []string{opt + "=" + scalarText(d, p, v.([]any)[0], false)}, nil
		}
		return spacedValues(d, p, opt, v.([]any))
	case ArityZeroOrMore, ArityOneOrMore:
		if d != DialectArgparse {
			return nil, fmt.Errorf("the %s dialect has no spelling for an option with arity %s", d, p.Arity)
		}
		return spacedValues(d, p, opt, v.([]any))
	}
	return nil, fmt.Errorf("unknown arity %q", p.Arity)
}

// spacedValues spells one occurrence of an option taking several values:
// the option, then each value as a word of its own.
func spacedValues(d Dialect, p *Param, opt string, items []any) ([]string, error) {
	out := []string{opt}
	switch d {
	case DialectClick, DialectOptparse:
		// click (as optparse) takes an option's N values as the next N words,
		// whatever they look like.
		for i, item := range items {
			e := p
			if p.Arity == ArityExactly || p.Arity == ArityRepeatedTuple {
				e = p.Element(i)
			}
			out = append(out, scalarText(d, e, item, false))
		}
		return out, nil
	case DialectArgparse:
		// argparse gives a multi-value option no "=" form: values follow
		// as separate words, so none may look like an option.
		for i, item := range items {
			e := p
			if p.Arity == ArityExactly || p.Arity == ArityRepeatedTuple {
				e = p.Element(i)
			}
			s := scalarText(d, e, item, true)
			if strings.HasPrefix(s, "-") && !(negativeNumber.MatchString(s) && e.Kind != KindString) {
				return nil, fmt.Errorf("item %d (%s) starts with '-': after a space the parser would read it as an option", i, quoteShort(s))
			}
			out = append(out, s)
		}
		return out, nil
	}
	return nil, fmt.Errorf("the %s dialect has no spelling for an option with arity %s", d, p.Arity)
}

// glue spells an option with one value. Everywhere but click, optparse and a
// declared command whose values are separate, and for a click long
// option, that is opt=value. A declared command with separate values
// takes opt, value: Declare has kept the value from looking like an
// option. click reads "-f=value" as the
// value "=value", so a click short option (one prefix character, one name
// character) takes its value as the next word, which click's parser always
// consumes as that value (an option whose value may be omitted excepted:
// its schema keeps values from looking like an option).
func glue(d Dialect, rendering *Rendering, opt, value string) []string {
	if (d == DialectClick || d == DialectOptparse) && len(opt) == 2 || d == DialectDeclared && rendering != nil && rendering.Values == ValuesSeparate {
		return []string{opt, value}
	}
	return []string{opt + "=" + value}
}

// negativeNumber is argparse's own test (Python 3.11 _negative_number_matcher)
// for a dash-leading word that is a value, not an option.
var negativeNumber = regexp.MustCompile(`^-\d+$|^-\d*\.\d+$`)

// scalarText spells one normalized value. spaced is set for an argparse
// multi-value option item, where a number must stay in the plain decimal
// form argparse recognises as a negative number (no exponent).
func scalarText(d Dialect, p *Param, v any, spaced bool) string {
	switch x := v.(type) {
	case string:
		return x
	case bool:
		// Only pflag takes a boolean value (--flag=false); an argparse
		// boolean is always a flag (type=bool is unrepresentable).
		return strconv.FormatBool(x)
	case int64:
		return strconv.FormatInt(x, 10)
	case float64:
		if x == 0 {
			x = 0 // -0 spells as "-0", which looks like an option after a space
		}
		if d == DialectPflag && p.Type == "float32" {
			// Shortest text for the float32 nearest x: parsing it at 32
			// bits gives exactly float32(x), with no double rounding.
			return strconv.FormatFloat(float64(float32(x)), 'g', -1, 32)
		}
		if spaced || math.Abs(x) < 1e21 && math.Abs(x) >= 1e-6 {
			return strconv.FormatFloat(x, 'f', -1, 64)
		}
		return strconv.FormatFloat(x, 'g', -1, 64)
	}
	return fmt.Sprint(v)
}
