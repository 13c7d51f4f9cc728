package verbsurface

import (
	"encoding/json"
	"errors"
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

	"github.com/google/jsonschema-go/jsonschema"
)

// Problem is one reason args were rejected. Param names the parameter (the
// exact name given, for an unknown one); Params lists every parameter of a
// cross-parameter rule; Rule is a stable machine name; Reason is a sentence.
type Problem struct {
	Param  string   `json:"param"`
	Params []string `json:"params,omitempty"`
	Rule   string   `json:"rule"`
	Reason string   `json:"reason"`
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
	minimum   *float64
	maximum   *float64
	minLength int // -1: none
	items     *valueCheck
	prefix    []*valueCheck // prefixItems: the positions of a tuple
	minItems  int           // -1: none
	maxItems  int           // -1: none
	unique    bool
}

var (
	rootKeywords = map[string]bool{"type": true, "description": true, "properties": true, "required": true,
		"additionalProperties": true, "allOf": true, "dependentRequired": true}
	propKeywords = map[string]bool{"type": true, "description": true, "default": true, "enum": true, "pattern": true,
		"minimum": true, "maximum": true, "minLength": true, "not": true, "items": true, "minItems": true, "maxItems": true,
		"uniqueItems": true, "prefixItems": true}
	propTypes = map[string]bool{"string": true, "integer": true, "number": true, "boolean": true, "array": true}
)

// ErrSchemaSubset is wrapped by every error of [CompileValidator]: the
// schema uses something outside the keyword subset the projector emits
// (listed in CONTRACTS.md). For a surface it is an internal error (the
// projector promised never to emit one), never the caller's.
var ErrSchemaSubset = errors.New("verbsurface: CompileValidator: schema outside the projected keyword subset")

// errSchemaSubset is the name the package's code uses.
var errSchemaSubset = ErrSchemaSubset

// CompileValidator compiles schema. It returns an error wrapping
// [ErrSchemaSubset] and naming the offending keyword when schema uses
// anything outside the projected subset: the validator never guesses at a
// keyword it does not interpret.
func CompileValidator(schema *jsonschema.Schema) (*Validator, error) {
	if schema == nil {
		return nil, fmt.Errorf("%w: nil schema", errSchemaSubset)
	}
	raw, err := json.Marshal(schema)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", errSchemaSubset, err)
	}
	var root map[string]any
	if err := json.Unmarshal(raw, &root); err != nil {
		return nil, fmt.Errorf("%w: %w", errSchemaSubset, err)
	}
	bad := func(format string, a ...any) error {
		return fmt.Errorf("%w: %s", errSchemaSubset, fmt.Sprintf(format, a...))
	}
	for k := range root {
		if !rootKeywords[k] {
			return nil, bad("root keyword %q", k)
		}
	}
	if root["type"] != "object" {
		return nil, bad("root type %v is not \"object\"", root["type"])
	}
	if ap, ok := root["additionalProperties"]; !ok || ap != false {
		return nil, bad("root additionalProperties must be false")
	}
	v := &Validator{props: map[string]*valueCheck{}}
	props, _ := root["properties"].(map[string]any)
	if root["properties"] != nil && props == nil {
		return nil, bad("properties is not an object")
	}
	for name, p := range props {
		pm, ok := p.(map[string]any)
		if !ok {
			return nil, bad("property %q is not a schema object", name)
		}
		c, err := compileValue(pm, 0)
		if err != nil {
			return nil, bad("property %q: %v", name, err)
		}
		v.props[name] = c
	}
	// Property order: the schema's own (parser order) when it names every
	// property; otherwise sorted, so the order is deterministic regardless.
	if len(schema.PropertyOrder) == len(props) && allIn(schema.PropertyOrder, props) {
		v.order = slices.Clone(schema.PropertyOrder)
	} else {
		for name := range props {
			v.order = append(v.order, name)
		}
		sort.Strings(v.order)
	}
	if req, ok := root["required"]; ok {
		names, err := stringList(req)
		if err != nil {
			return nil, bad("required: %v", err)
		}
		v.required = names
	}
	if dr, ok := root["dependentRequired"]; ok {
		deps, err := compileDependencies(dr, v.order)
		if err != nil {
			return nil, bad("dependentRequired: %v", err)
		}
		v.deps = deps
	}
	if all, ok := root["allOf"]; ok {
		list, ok := all.([]any)
		if !ok {
			return nil, bad("allOf is not an array")
		}
		for i, m := range list {
			r, err := compileCross(m)
			if err != nil {
				return nil, bad("allOf[%d]: %v", i, err)
			}
			v.rules = append(v.rules, r)
		}
	}
	return v, nil
}

func allIn(names []string, props map[string]any) bool {
	for _, n := range names {
		if _, ok := props[n]; !ok {
			return false
		}
	}
	return true
}

func stringList(x any) ([]string, error) {
	list, ok := x.([]any)
	if !ok {
		return nil, fmt.Errorf("not an array")
	}
	out := make([]string, 0, len(list))
	for _, e := range list {
		s, ok := e.(string)
		if !ok {
			return nil, fmt.Errorf("%v is not a string", e)
		}
		out = append(out, s)
	}
	return out, nil
}

// compileDependencies reads dependentRequired (an object of name lists)
// into entries in property order, so problems come in a deterministic order.
func compileDependencies(dr any, order []string) ([]dependency, error) {
	m, ok := dr.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("not an object")
	}
	names := make([]string, 0, len(m))
	for name := range m {
		names = append(names, name)
	}
	rank := make(map[string]int, len(order))
	for i, n := range order {
		rank[n] = i + 1
	}
	sort.Slice(names, func(i, j int) bool {
		ri, rj := rank[names[i]], rank[names[j]]
		if ri != rj {
			return ri != 0 && (rj == 0 || ri < rj)
		}
		return names[i] < names[j]
	})
	out := make([]dependency, 0, len(names))
	for _, name := range names {
		reqs, err := stringList(m[name])
		if err != nil {
			return nil, fmt.Errorf("%q: %v", name, err)
		}
		out = append(out, dependency{name: name, requires: reqs})
	}
	return out, nil
}

// compileCross accepts exactly {"not":{"required":[A,B]}} or
// {"anyOf":[{"required":[A]},{"required":[B]},...]}.
func compileCross(m any) (crossRule, error) {
	obj, ok := m.(map[string]any)
	if !ok || len(obj) != 1 {
		return crossRule{}, fmt.Errorf("member must be one of not/anyOf")
	}
	if n, ok := obj["not"]; ok {
		nm, ok := n.(map[string]any)
		if !ok || len(nm) != 1 {
			return crossRule{}, fmt.Errorf("not must hold only required")
		}
		names, err := stringList(nm["required"])
		if err != nil || len(names) != 2 {
			return crossRule{}, fmt.Errorf("not.required must list two names")
		}
		return crossRule{exclusive: true, params: names}, nil
	}
	if a, ok := obj["anyOf"]; ok {
		list, ok := a.([]any)
		if !ok || len(list) == 0 {
			return crossRule{}, fmt.Errorf("anyOf must be a non-empty array")
		}
		var group []string
		for _, e := range list {
			em, ok := e.(map[string]any)
			if !ok || len(em) != 1 {
				return crossRule{}, fmt.Errorf("anyOf members must hold only required")
			}
			names, err := stringList(em["required"])
			if err != nil || len(names) != 1 {
				return crossRule{}, fmt.Errorf("anyOf member must require one name")
			}
			group = append(group, names[0])
		}
		return crossRule{params: group}, nil
	}
	return crossRule{}, fmt.Errorf("member must be one of not/anyOf")
}

// compileValue compiles a property's schema (depth 0), an array
// property's items (depth 1), or the items of an item that is itself an
// array (depth 2: a tuple of a repeated fixed-arity option, whose own
// items must be scalars).
func compileValue(m map[string]any, depth int) (*valueCheck, error) {
	c := &valueCheck{minLength: -1, minItems: -1, maxItems: -1}
	typ, _ := m["type"].(string)
	for k := range m {
		if !propKeywords[k] || ((k == "items" || k == "prefixItems") && (depth == 2 || depth == 1 && typ != "array")) {
			return nil, fmt.Errorf("keyword %q", k)
		}
	}
	if depth == 2 && typ == "array" {
		return nil, fmt.Errorf("type array nested in an array item")
	}
	if list, ok := m["type"].([]any); ok && len(list) == 2 && list[0] == "boolean" && depth == 0 {
		// The one type list C1 admits: ["boolean", T], an option that
		// may be given bare (true) or with a value of type T.
		if t, _ := list[1].(string); t == "string" || t == "integer" || t == "number" {
			typ, c.orBool = t, true
		}
	}
	if !propTypes[typ] {
		return nil, fmt.Errorf("type %v is not one of string, integer, number, boolean, array (or [\"boolean\", string|integer|number])", m["type"])
	}
	c.typ = typ
	if e, ok := m["enum"]; ok {
		list, ok := e.([]any)
		if !ok {
			return nil, fmt.Errorf("enum is not an array")
		}
		c.enum = list
	}
	if n, ok := m["not"]; ok {
		nm, ok := n.(map[string]any)
		if !ok || len(nm) != 1 {
			return nil, fmt.Errorf("not must hold only enum")
		}
		list, ok := nm["enum"].([]any)
		if !ok {
			return nil, fmt.Errorf("not must hold only enum")
		}
		c.notEnum = list
	}
	if p, ok := m["pattern"]; ok {
		s, ok := p.(string)
		if !ok {
			return nil, fmt.Errorf("pattern is not a string")
		}
		re, err := regexp.Compile(s)
		if err != nil {
			return nil, fmt.Errorf("pattern: %v", err)
		}
		c.pattern = re
	}
	num := func(k string) (*float64, error) {
		x, ok := m[k]
		if !ok {
			return nil, nil
		}
		f, ok := x.(float64)
		if !ok {
			return nil, fmt.Errorf("%s is not a number", k)
		}
		return &f, nil
	}
	count := func(k string) (int, error) {
		x, ok := m[k]
		if !ok {
			return -1, nil
		}
		f, ok := x.(float64)
		if !ok || f < 0 || f != math.Trunc(f) || f > math.MaxInt32 {
			return 0, fmt.Errorf("%s is not a non-negative integer", k)
		}
		return int(f), nil
	}
	var err error
	if c.minimum, err = num("minimum"); err != nil {
		return nil, err
	}
	if c.maximum, err = num("maximum"); err != nil {
		return nil, err
	}
	if c.minLength, err = count("minLength"); err != nil {
		return nil, err
	}
	if c.minItems, err = count("minItems"); err != nil {
		return nil, err
	}
	if c.maxItems, err = count("maxItems"); err != nil {
		return nil, err
	}
	if u, ok := m["uniqueItems"]; ok {
		if c.unique, ok = u.(bool); !ok {
			return nil, fmt.Errorf("uniqueItems is not a boolean")
		}
	}
	if (depth == 1 && typ == "array" || m["prefixItems"] != nil) && (c.minItems < 0 || c.minItems != c.maxItems) {
		// An array item is a tuple: a fixed number of scalars.
		return nil, fmt.Errorf("an array item must be a tuple with minItems equal to maxItems")
	}
	if it, ok := m["items"]; ok {
		im, ok := it.(map[string]any)
		if !ok {
			return nil, fmt.Errorf("items is not a schema object")
		}
		if c.items, err = compileValue(im, depth+1); err != nil {
			return nil, fmt.Errorf("items: %v", err)
		}
	}
	if pi, ok := m["prefixItems"]; ok {
		list, ok := pi.([]any)
		if !ok || len(list) == 0 {
			return nil, fmt.Errorf("prefixItems is not a non-empty array")
		}
		for i, e := range list {
			em, ok := e.(map[string]any)
			if !ok {
				return nil, fmt.Errorf("prefixItems[%d] is not a schema object", i)
			}
			// A position's schema is a scalar's, one level deeper.
			pc, err := compileValue(em, 2)
			if err != nil {
				return nil, fmt.Errorf("prefixItems[%d]: %v", i, err)
			}
			c.prefix = append(c.prefix, pc)
		}
	}
	return c, nil
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
	b, _ := json.Marshal(list)
	return string(b)
}

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
