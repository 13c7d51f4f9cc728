package verbsurface

import (
	"encoding/json"
	"fmt"
	"math"
	"math/big"
	"reflect"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Problem is one reason args were rejected. Param names the parameter (the
// exact name given, for an unknown one); Params lists every parameter of a
// cross-parameter rule; Rule is a stable machine name; Reason is a sentence.
type Problem struct {
	Param  string   `json:"param"`
	Params []string `json:"params,omitempty"`
	Rule   string   `json:"rule"`
	Reason string   `json:"reason"`

	more int // for RuleMoreProblems: how many problems it stands for
}

// Problem rules, in the order a parameter's checks run.
const (
	RuleUnknownParameter  = "unknown_parameter"
	RuleMissingRequired   = "missing_required"
	RuleWrongType         = "wrong_type"
	RuleNotInChoices      = "not_in_choices"
	RuleForbiddenValue    = "forbidden_value"
	RuleTooShort          = "too_short"
	RulePattern           = "pattern"
	RuleBelowMinimum      = "below_minimum"
	RuleAboveMaximum      = "above_maximum"
	RuleTooFewItems       = "too_few_items"
	RuleTooManyItems      = "too_many_items"
	RuleDuplicateItems    = "duplicate_items" // uniqueItems: one problem, naming the first pair
	RuleMutuallyExclusive = "mutually_exclusive"
	RuleRequiredGroup     = "required_group"
	// RuleDependentRequired: a later optional positional was given without
	// an earlier one (schema "dependentRequired"); argv fills positionals
	// left to right, so its value would be read as the earlier one's.
	RuleDependentRequired = "dependent_required"
	RuleNotAnObject       = "not_an_object"
	RulePrepare           = "prepare"          // the verb's Preparer refused the args
	RuleHandler           = "handler"          // the verb's handler refused an argument the schema admits
	RuleInjection         = "injection_failed" // the dynamic parameter's value could not be injected
)

// Validator is a closed validator compiled from a projected schema in the
// keyword subset package projector emits. It reports every problem, not the first,
// in a deterministic order: unknown parameters (sorted by name), then each
// declared parameter in schema property order (missing, wrong type, then
// its value checks; array items in index order, then the array's bounds),
// then the cross-parameter rules in the order the schema's allOf lists them.
//
// A Validator agrees with jsonschema-go's Resolved.Validate on the same
// schema and the same JSON document: a number with zero fraction (3 or 3.0)
// is an integer, numbers compare as IEEE-754 doubles, lengths count code
// points, patterns are Go regexps matched anywhere in the string. A number
// beyond the range of a double is rejected (jsonschema-go cannot even decode
// such a document).
type Validator struct {
	props    map[string]*valueCheck
	order    []string // property order
	required []string
	rules    []crossRule
	deps     []dependency // dependentRequired, in property order
}

// dependency is one dependentRequired entry: name requires every one of requires.
type dependency struct {
	name     string
	requires []string
}

type crossRule struct {
	exclusive bool     // true: not both; false: at least one
	params    []string // the pair, or the group
}

// valueCheck is one property's (or items') compiled constraints.
type valueCheck struct {
	typ       string // string, integer, number, boolean, array
	orBool    bool   // "type": ["boolean", typ]: an option's bare spelling (true) besides a value
	enum      []any  // normalised JSON scalars
	notEnum   []any
	pattern   *regexp.Regexp
	patterns  []*regexp.Regexp // allOf: [{pattern}, ...]: each must match too
	minimum   *float64
	maximum   *float64
	minLength int // -1: none
	items     *valueCheck
	prefix    []*valueCheck // prefixItems: the positions of a tuple
	minItems  int           // -1: none
	maxItems  int           // -1: none
	unique    bool
}

// Validate checks args and returns every problem (nil when args are
// valid). args is a decoded JSON object: values may be json.Number (the
// surface decodes with UseNumber so integers keep every digit), float64, Go
// integer types, string, bool, nil, []any and map[string]any.
func (v *Validator) Validate(args map[string]any) []Problem {
	var problems []Problem
	var unknown []string
	for name := range args {
		if _, ok := v.props[name]; !ok {
			unknown = append(unknown, name)
		}
	}
	if len(unknown) > 0 {
		sort.Strings(unknown)
		for _, name := range unknown {
			problems = append(problems, Problem{Param: name, Rule: RuleUnknownParameter,
				Reason: fmt.Sprintf("unknown parameter %s: this verb has no such parameter (names are exact; see the schema)", short(name))})
		}
	}
	for _, name := range v.order {
		val, present := args[name]
		if !present {
			if slices.Contains(v.required, name) {
				problems = append(problems, Problem{Param: name, Rule: RuleMissingRequired,
					Reason: fmt.Sprintf("missing required parameter %q", name)})
			}
			continue
		}
		problems = v.props[name].check(name, "", val, problems)
	}
	// A required name that is not a declared property can never be given
	// (additionalProperties is false); report it rather than hide it.
	for _, name := range v.required {
		if _, ok := v.props[name]; !ok {
			if _, given := args[name]; !given {
				problems = append(problems, Problem{Param: name, Rule: RuleMissingRequired,
					Reason: fmt.Sprintf("missing required parameter %q", name)})
			}
		}
	}
	for _, r := range v.rules {
		problems = r.check(args, problems)
	}
	for _, d := range v.deps {
		if _, given := args[d.name]; !given {
			continue
		}
		for _, req := range d.requires {
			if _, ok := args[req]; !ok {
				problems = append(problems, Problem{Param: d.name, Params: []string{d.name, req}, Rule: RuleDependentRequired,
					Reason: fmt.Sprintf("%q can be given only together with %q: positionals are filled left to right, so without %q this value would be read as %q", d.name, req, req, req)})
			}
		}
	}
	return problems
}

func (r crossRule) check(args map[string]any, problems []Problem) []Problem {
	if r.exclusive {
		_, a := args[r.params[0]]
		_, b := args[r.params[1]]
		if a && b {
			problems = append(problems, Problem{Param: r.params[0], Params: slices.Clone(r.params), Rule: RuleMutuallyExclusive,
				Reason: fmt.Sprintf("%q and %q are mutually exclusive: give at most one", r.params[0], r.params[1])})
		}
		return problems
	}
	for _, p := range r.params {
		if _, ok := args[p]; ok {
			return problems
		}
	}
	return append(problems, Problem{Param: r.params[0], Params: slices.Clone(r.params), Rule: RuleRequiredGroup,
		Reason: fmt.Sprintf("one of %s is required", quoteList(r.params))})
}

func quoteList(names []string) string {
	q := make([]string, len(names))
	for i, n := range names {
		q[i] = strconv.Quote(n)
	}
	return strings.Join(q, ", ")
}

// check appends val's problems. where is "" for the parameter itself and
// "[i]" for an item, used in reasons.
func (c *valueCheck) check(name, where string, val any, problems []Problem) []Problem {
	subject := strconv.Quote(name) + where
	jt, num, err := jsonKind(val)
	if err != nil {
		return append(problems, Problem{Param: name, Rule: RuleWrongType,
			Reason: fmt.Sprintf("%s: %v; want %s", subject, err, c.typeWord())})
	}
	if c.orBool && val == false {
		return append(problems, Problem{Param: name, Rule: RuleForbiddenValue,
			Reason: fmt.Sprintf("%s may not be false: give true for the bare option, %s, or leave the parameter out", subject, c.typeWord())})
	}
	if !(jt == c.typ || (jt == "integer" && c.typ == "number") || (jt == "boolean" && c.orBool)) {
		return append(problems, Problem{Param: name, Rule: RuleWrongType,
			Reason: fmt.Sprintf("%s must be %s, got %s", subject, c.typeWord(), describe(jt, val))})
	}
	if c.enum != nil && !containsValue(c.enum, jt, val, num) {
		problems = append(problems, Problem{Param: name, Rule: RuleNotInChoices,
			Reason: fmt.Sprintf("%s is %s, not one of the choices %s", subject, short(val), jsonList(c.enum))})
	}
	if c.notEnum != nil && containsValue(c.notEnum, jt, val, num) {
		problems = append(problems, Problem{Param: name, Rule: RuleForbiddenValue,
			Reason: fmt.Sprintf("%s may not be %s: the CLI's parser would misread that value", subject, short(val))})
	}
	switch jt {
	case "string":
		s := val.(string)
		if c.minLength >= 0 && utf8.RuneCountInString(s) < c.minLength {
			problems = append(problems, Problem{Param: name, Rule: RuleTooShort,
				Reason: fmt.Sprintf("%s must be at least %d characters", subject, c.minLength)})
		}
		if c.pattern != nil && !c.pattern.MatchString(s) {
			problems = append(problems, Problem{Param: name, Rule: RulePattern,
				Reason: fmt.Sprintf("%s is %s, which does not match the pattern %q", subject, short(s), c.pattern.String())})
		}
		for _, re := range c.patterns {
			if !re.MatchString(s) {
				problems = append(problems, Problem{Param: name, Rule: RulePattern,
					Reason: fmt.Sprintf("%s is %s, which does not match the pattern %q", subject, short(s), re.String())})
			}
		}
	case "integer", "number":
		if c.minimum != nil && num < *c.minimum {
			problems = append(problems, Problem{Param: name, Rule: RuleBelowMinimum,
				Reason: fmt.Sprintf("%s is %s, below the minimum %s", subject, short(val), formatFloat(*c.minimum))})
		}
		if c.maximum != nil && num > *c.maximum {
			problems = append(problems, Problem{Param: name, Rule: RuleAboveMaximum,
				Reason: fmt.Sprintf("%s is %s, above the maximum %s", subject, short(val), formatFloat(*c.maximum))})
		}
	case "array":
		rv := reflect.ValueOf(val)
		n := rv.Len()
		if c.maxItems >= 0 && n > c.maxItems {
			// Refused on its length alone, before any item is looked at:
			// an array of 300,000 values costs one problem, not 300,000.
			return append(problems, Problem{Param: name, Rule: RuleTooManyItems,
				Reason: fmt.Sprintf("%s has %d items, more than the maximum %d", subject, n, c.maxItems)})
		}
		before := len(problems)
		for i := 0; i < n; i++ {
			if ic := c.itemCheck(i); ic != nil {
				problems = ic.check(name, where+"["+strconv.Itoa(i)+"]", rv.Index(i).Interface(), problems)
			}
		}
		if c.minItems >= 0 && n < c.minItems {
			problems = append(problems, Problem{Param: name, Rule: RuleTooFewItems,
				Reason: fmt.Sprintf("%s has %d items, fewer than the minimum %d", subject, n, c.minItems)})
		}
		if c.unique && len(problems) == before {
			if i, j, dup := firstEqualPair(rv); dup {
				problems = append(problems, Problem{Param: name, Rule: RuleDuplicateItems,
					Reason: fmt.Sprintf("%s[%d] and %s[%d] are both %s; the items must be unique", subject, i, subject, j, short(rv.Index(i).Interface()))})
			}
		}
	}
	return problems
}

// firstEqualPair finds the first two equal items of an array of JSON
// scalars, equal as JSON Schema's uniqueItems means it (1 and 1.0 are one
// number), in one pass. Only called once every item passed its own checks,
// so every item is a scalar of the item type.
func firstEqualPair(rv reflect.Value) (int, int, bool) {
	seen := make(map[any]int, rv.Len())
	for j := 0; j < rv.Len(); j++ {
		v := rv.Index(j).Interface()
		jt, num, err := jsonKind(v)
		if err != nil {
			return 0, 0, false
		}
		var key any = v
		switch jt {
		case "integer", "number":
			key = num
		case "array":
			// A tuple (an array of scalars) is not comparable: key it by
			// its items' keys, numbers by value as above.
			k, ok := tupleKey(reflect.ValueOf(v))
			if !ok {
				return 0, 0, false
			}
			key = k
		}
		if i, ok := seen[key]; ok {
			return i, j, true
		}
		seen[key] = j
	}
	return 0, 0, false
}

// tupleKey is a comparable key of an array of JSON scalars, equal for two
// arrays exactly when uniqueItems deems them equal.
func tupleKey(rv reflect.Value) (string, bool) {
	var b strings.Builder
	for i := 0; i < rv.Len(); i++ {
		v := rv.Index(i).Interface()
		jt, num, err := jsonKind(v)
		switch {
		case err != nil:
			return "", false
		case jt == "integer" || jt == "number":
			b.WriteString("n" + strconv.FormatFloat(num, 'g', -1, 64))
		case jt == "string":
			b.WriteString("s" + strconv.Quote(v.(string)))
		case jt == "boolean":
			b.WriteString("b" + strconv.FormatBool(v.(bool)))
		default:
			return "", false
		}
		b.WriteByte(',')
	}
	return b.String(), true
}

// itemCheck is the check of an array's item i: its prefixItems position,
// else its items (nil: unconstrained).
func (c *valueCheck) itemCheck(i int) *valueCheck {
	if i < len(c.prefix) {
		return c.prefix[i]
	}
	return c.items
}

func (c *valueCheck) typeWord() string {
	if c.orBool {
		return "true or " + (&valueCheck{typ: c.typ}).typeWord()
	}
	switch c.typ {
	case "array":
		if c.items != nil {
			return "an array of " + c.items.typ + "s"
		}
		return "an array"
	case "integer":
		return "an integer"
	default:
		return "a " + c.typ
	}
}

// jsonKind classifies a decoded JSON value the way jsonschema-go does
// (a double with zero fraction is an integer) and returns a number's value
// as a double.
func jsonKind(val any) (kind string, num float64, err error) {
	switch x := val.(type) {
	case nil:
		return "null", 0, nil
	case string:
		return "string", 0, nil
	case bool:
		return "boolean", 0, nil
	case json.Number:
		f, perr := strconv.ParseFloat(string(x), 64)
		if perr != nil {
			return "", 0, fmt.Errorf("the number %s is out of range", short(string(x)))
		}
		return numberKind(f), f, nil
	case float64:
		return numberKind(x), x, nil
	case float32:
		return numberKind(float64(x)), float64(x), nil
	case int:
		return "integer", float64(x), nil
	case int64:
		return "integer", float64(x), nil
	case int32:
		return "integer", float64(x), nil
	case uint64:
		return "integer", float64(x), nil
	case []any, []string:
		return "array", 0, nil
	case map[string]any:
		return "object", 0, nil
	}
	rv := reflect.ValueOf(val)
	switch {
	case rv.CanInt():
		return "integer", float64(rv.Int()), nil
	case rv.CanUint():
		return "integer", float64(rv.Uint()), nil
	case rv.CanFloat():
		return numberKind(rv.Float()), rv.Float(), nil
	case rv.Kind() == reflect.Slice || rv.Kind() == reflect.Array:
		return "array", 0, nil
	case rv.Kind() == reflect.Map || rv.Kind() == reflect.Struct:
		return "object", 0, nil
	}
	return "", 0, fmt.Errorf("%T is not a JSON value", val)
}

func numberKind(f float64) string {
	if _, frac := math.Modf(f); frac == 0 && !math.IsInf(f, 0) {
		return "integer"
	}
	return "number"
}

// containsValue compares like jsonschema-go's equalValue for scalars:
// numbers by value (as doubles), everything else by kind and value.
func containsValue(list []any, kind string, val any, num float64) bool {
	for _, e := range list {
		switch x := e.(type) {
		case float64:
			if (kind == "integer" || kind == "number") && x == num {
				return true
			}
		case string:
			if kind == "string" && x == val.(string) {
				return true
			}
		case bool:
			if kind == "boolean" && x == val.(bool) {
				return true
			}
		case nil:
			if kind == "null" {
				return true
			}
		}
	}
	return false
}

func describe(kind string, val any) string {
	switch kind {
	case "null":
		return "null"
	case "object":
		return "an object"
	case "array":
		return "an array"
	case "integer":
		return "the integer " + short(val)
	case "number":
		return "the number " + short(val)
	case "boolean":
		return "the boolean " + short(val)
	}
	return "the string " + short(val)
}

// short renders a value for a reason, truncated so a hostile 1 MB value
// does not come back 1 MB long.
func short(val any) string {
	var s string
	switch x := val.(type) {
	case string:
		if len(x) > 64 {
			x = truncateUTF8(x, 61) + "..."
		}
		return strconv.Quote(x)
	case json.Number:
		s = string(x)
	case float64:
		s = formatFloat(x)
	default:
		b, err := json.Marshal(val)
		if err != nil {
			s = fmt.Sprint(val)
		} else {
			s = string(b)
		}
	}
	if len(s) > 64 {
		s = truncateUTF8(s, 61) + "..."
	}
	return s
}

func truncateUTF8(s string, n int) string {
	for n > 0 && n < len(s) && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}

func formatFloat(f float64) string { return strconv.FormatFloat(f, 'g', -1, 64) }

func jsonList(list []any) string {
	if len(list) > maxQuotedChoices {
		b, _ := json.Marshal(list[:maxQuotedChoices])
		return fmt.Sprintf("%s… (%d in all: the schema lists them)", b[:len(b)-1], len(list))
	}
	b, _ := json.Marshal(list)
	return string(b)
}

// maxQuotedChoices is how many choices a reason quotes: an option with
// thousands of them must not make every wrong value a long answer.
const maxQuotedChoices = 32

// normalizeArgs returns a copy of validated args with numbers turned into
// the Go values rendering expects: an integer parameter becomes int64 when
// it fits, else a json.Number holding its exact integer digits; a number
// parameter becomes float64. Call it only on args Validate accepted.
func (v *Validator) normalizeArgs(args map[string]any) map[string]any {
	out := make(map[string]any, len(args))
	for name, val := range args {
		c := v.props[name]
		out[name] = c.normalize(val)
	}
	return out
}

func (c *valueCheck) normalize(val any) any {
	if b, ok := val.(bool); ok && c.orBool {
		return b
	}
	switch c.typ {
	case "integer":
		return normalizeInteger(val)
	case "number":
		_, f, _ := jsonKind(val)
		return f
	case "array":
		rv := reflect.ValueOf(val)
		out := make([]any, rv.Len())
		for i := range out {
			item := rv.Index(i).Interface()
			if ic := c.itemCheck(i); ic != nil {
				item = ic.normalize(item)
			}
			out[i] = item
		}
		return out
	}
	return val
}

// normalizeInteger keeps an integer's exact digits when the JSON text was
// exactly an integer ("9007199254740993" stays that, not ...992) and
// otherwise takes the double's value, which is what decided it was an
// integer ("3.0" and "3.0000000000000000001" are both 3).
func normalizeInteger(val any) any {
	if n, ok := val.(json.Number); ok {
		if i, err := strconv.ParseInt(string(n), 10, 64); err == nil {
			return i
		}
		// Only plain decimal text goes through big.Rat: an exponent such as
		// 1e-99999999 would make it compute a 100-million-digit power.
		if len(n) <= 400 && !strings.ContainsAny(string(n), "eE") {
			if r, ok := new(big.Rat).SetString(string(n)); ok && r.IsInt() {
				if r.Num().IsInt64() {
					return r.Num().Int64()
				}
				return json.Number(r.Num().String())
			}
		}
	}
	_, f, _ := jsonKind(val)
	if f >= -(1<<63) && f < 1<<63 {
		return int64(f)
	}
	bf := new(big.Float).SetFloat64(f)
	bi, _ := bf.Int(nil)
	return json.Number(bi.String())
}
