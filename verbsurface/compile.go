package verbsurface

import (
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"math"
	"reflect"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/verbsurface/verbsurface/internal/pattern"
)

// Compiling reads the *jsonschema.Schema itself, keyword by keyword, as
// jsonschema-go's own validator does, rather than its JSON: marshalling a
// schema through jsonschema-go's reflection and decoding it again was most
// of a verb's projection (164 µs of a compile, where reading the struct
// takes a few), and a 5,000-command CLI compiles 5,000 of them at start.
// What it accepts is unchanged: a keyword is "set" exactly when
// jsonschema-go would marshal it, and a value is read as its JSON would
// decode (an enum's integers as doubles), so the schema a client reads and
// the schema this validator enforces are the same document.

// ErrSchemaSubset is wrapped by every error of [CompileValidator]: the
// schema uses something outside the keyword subset the projector emits
// (listed in CONTRACTS.md). For a surface it is an internal error (the
// projector promised never to emit one), never the caller's.
var ErrSchemaSubset = errors.New("verbsurface: CompileValidator: schema outside the projected keyword subset")

// errSchemaSubset is the name the package's code uses.
var errSchemaSubset = ErrSchemaSubset

// keyword is one keyword of the projected subset, as a bit.
type keyword uint32

const (
	kwType keyword = 1 << iota // Type or Types
	kwDescription
	kwDefault
	kwEnum
	kwPattern
	kwMinimum
	kwMaximum
	kwMinLength
	kwNot
	kwItems
	kwMinItems
	kwMaxItems
	kwUniqueItems
	kwPrefixItems
	kwProperties
	kwRequired
	kwAdditionalProperties
	kwAllOf
	kwAnyOf
	kwDependentRequired
)

var keywordNames = []string{"type", "description", "default", "enum", "pattern", "minimum", "maximum", "minLength", "not",
	"items", "minItems", "maxItems", "uniqueItems", "prefixItems", "properties", "required", "additionalProperties", "allOf",
	"anyOf", "dependentRequired"}

// Where each keyword may stand.
const (
	rootKeywords = kwType | kwDescription | kwProperties | kwRequired | kwAdditionalProperties | kwAllOf | kwDependentRequired
	propKeywords = kwType | kwDescription | kwDefault | kwEnum | kwPattern | kwMinimum | kwMaximum | kwMinLength | kwNot |
		kwItems | kwMinItems | kwMaxItems | kwUniqueItems | kwPrefixItems | kwAllOf
)

var propTypes = map[string]bool{"string": true, "integer": true, "number": true, "boolean": true, "array": true}

// subsetKeywords returns the subset keywords s sets, as jsonschema-go's
// MarshalJSON would write them (empty lists and maps are left out, but an
// empty properties map is written).
func subsetKeywords(s *jsonschema.Schema) keyword {
	var k keyword
	set := func(b bool, kw keyword) {
		if b {
			k |= kw
		}
	}
	set(s.Type != "" || s.Types != nil, kwType)
	set(s.Description != "", kwDescription)
	set(len(s.Default) > 0, kwDefault)
	set(len(s.Enum) > 0, kwEnum)
	set(s.Pattern != "", kwPattern)
	set(s.Minimum != nil, kwMinimum)
	set(s.Maximum != nil, kwMaximum)
	set(s.MinLength != nil, kwMinLength)
	set(s.Not != nil, kwNot)
	set(s.Items != nil, kwItems)
	set(s.MinItems != nil, kwMinItems)
	set(s.MaxItems != nil, kwMaxItems)
	set(s.UniqueItems, kwUniqueItems)
	set(len(s.PrefixItems) > 0, kwPrefixItems)
	set(s.Properties != nil, kwProperties)
	set(len(s.Required) > 0, kwRequired)
	set(s.AdditionalProperties != nil, kwAdditionalProperties)
	set(len(s.AllOf) > 0, kwAllOf)
	set(len(s.AnyOf) > 0, kwAnyOf)
	set(len(s.DependentRequired) > 0, kwDependentRequired)
	return k
}

// otherFields are the fields of jsonschema.Schema outside the subset, with
// the keyword each marshals as: every field not read by subsetKeywords
// (and not Extra or PropertyOrder, checked on their own). Found by
// reflection, so a field a newer jsonschema-go adds is outside the subset
// until this file says otherwise.
var otherFields = func() []struct {
	index   int
	keyword string
} {
	inSubset := map[string]bool{"Type": true, "Types": true, "Description": true, "Default": true, "Enum": true, "Pattern": true,
		"Minimum": true, "Maximum": true, "MinLength": true, "Not": true, "Items": true, "MinItems": true, "MaxItems": true,
		"UniqueItems": true, "PrefixItems": true, "Properties": true, "Required": true, "AdditionalProperties": true,
		"AllOf": true, "AnyOf": true, "DependentRequired": true, "Extra": true, "PropertyOrder": true}
	special := map[string]string{"DependencySchemas": "dependencies", "DependencyStrings": "dependencies", "ItemsArray": "items"}
	var out []struct {
		index   int
		keyword string
	}
	t := reflect.TypeFor[jsonschema.Schema]()
	for i := range t.NumField() {
		f := t.Field(i)
		if inSubset[f.Name] {
			continue
		}
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if n, ok := special[f.Name]; ok || name == "" || name == "-" {
			name = n
			if name == "" {
				name = f.Name
			}
		}
		out = append(out, struct {
			index   int
			keyword string
		}{i, name})
	}
	return out
}()

// schemaFields is every field of jsonschema.Schema as of the version
// outsideFields was written against. When the struct has any other field
// (a newer jsonschema-go), outsideKeyword uses the reflective otherFields
// instead, so a new keyword is refused, never silently let through.
const schemaFields = "ID Schema Ref Comment Defs Definitions DependencySchemas DependencyStrings Anchor DynamicAnchor DynamicRef " +
	"Vocabulary Title Description Default Deprecated ReadOnly WriteOnly Examples Type Types Enum Const MultipleOf Minimum " +
	"Maximum ExclusiveMinimum ExclusiveMaximum MinLength MaxLength Pattern PrefixItems Items ItemsArray MinItems MaxItems " +
	"AdditionalItems UniqueItems Contains MinContains MaxContains UnevaluatedItems MinProperties MaxProperties Required " +
	"DependentRequired Properties PatternProperties AdditionalProperties PropertyNames UnevaluatedProperties AllOf AnyOf " +
	"OneOf Not If Then Else DependentSchemas ContentEncoding ContentMediaType ContentSchema Format Extra PropertyOrder"

var knownSchemaFields = func() bool {
	t := reflect.TypeFor[jsonschema.Schema]()
	names := make([]string, t.NumField())
	for i := range names {
		names[i] = t.Field(i).Name
	}
	return strings.Join(names, " ") == schemaFields
}()

// outsideFields is otherFields written out: the keyword of the first field
// outside the subset that s sets, or "". Reflection over some forty fields
// for every schema node was most of a compile.
func outsideFields(s *jsonschema.Schema) string {
	switch {
	case s.ID != "":
		return "$id"
	case s.Schema != "":
		return "$schema"
	case s.Ref != "":
		return "$ref"
	case s.Comment != "":
		return "$comment"
	case s.Defs != nil:
		return "$defs"
	case s.Definitions != nil:
		return "definitions"
	case s.DependencySchemas != nil, s.DependencyStrings != nil:
		return "dependencies"
	case s.Anchor != "":
		return "$anchor"
	case s.DynamicAnchor != "":
		return "$dynamicAnchor"
	case s.DynamicRef != "":
		return "$dynamicRef"
	case s.Vocabulary != nil:
		return "$vocabulary"
	case s.Title != "":
		return "title"
	case s.Deprecated:
		return "deprecated"
	case s.ReadOnly:
		return "readOnly"
	case s.WriteOnly:
		return "writeOnly"
	case s.Examples != nil:
		return "examples"
	case s.Const != nil:
		return "const"
	case s.MultipleOf != nil:
		return "multipleOf"
	case s.ExclusiveMinimum != nil:
		return "exclusiveMinimum"
	case s.ExclusiveMaximum != nil:
		return "exclusiveMaximum"
	case s.MaxLength != nil:
		return "maxLength"
	case s.ItemsArray != nil:
		return "items"
	case s.AdditionalItems != nil:
		return "additionalItems"
	case s.Contains != nil:
		return "contains"
	case s.MinContains != nil:
		return "minContains"
	case s.MaxContains != nil:
		return "maxContains"
	case s.UnevaluatedItems != nil:
		return "unevaluatedItems"
	case s.MinProperties != nil:
		return "minProperties"
	case s.MaxProperties != nil:
		return "maxProperties"
	case s.PatternProperties != nil:
		return "patternProperties"
	case s.PropertyNames != nil:
		return "propertyNames"
	case s.UnevaluatedProperties != nil:
		return "unevaluatedProperties"
	case s.OneOf != nil:
		return "oneOf"
	case s.If != nil:
		return "if"
	case s.Then != nil:
		return "then"
	case s.Else != nil:
		return "else"
	case s.DependentSchemas != nil:
		return "dependentSchemas"
	case s.ContentEncoding != "":
		return "contentEncoding"
	case s.ContentMediaType != "":
		return "contentMediaType"
	case s.ContentSchema != nil:
		return "contentSchema"
	case s.Format != "":
		return "format"
	}
	return ""
}

// outsideKeyword names the first keyword s sets that no position of the
// subset admits, or "" if none: a field outside the subset, an extra
// keyword, or two fields marshalled as one keyword (a schema
// jsonschema-go itself refuses to write).
func outsideKeyword(s *jsonschema.Schema) string {
	if knownSchemaFields {
		if k := outsideFields(s); k != "" {
			return k
		}
	} else {
		v := reflect.ValueOf(s).Elem()
		for _, f := range otherFields {
			if !v.Field(f.index).IsZero() {
				return f.keyword
			}
		}
	}
	if len(s.Extra) > 0 {
		return slices.Sorted(maps.Keys(s.Extra))[0]
	}
	if s.Type != "" && s.Types != nil {
		return "type (both Type and Types)"
	}
	for i, p := range s.PropertyOrder {
		if slices.Contains(s.PropertyOrder[:i], p) {
			return fmt.Sprintf("properties (%q twice in the property order)", p)
		}
	}
	return ""
}

// keywordsOutside checks s at a position that admits allowed: it names
// the first keyword s sets that the position does not admit, or "".
func keywordsOutside(s *jsonschema.Schema, allowed keyword) string {
	if k := outsideKeyword(s); k != "" {
		return k
	}
	if extra := subsetKeywords(s) &^ allowed; extra != 0 {
		for i, name := range keywordNames {
			if extra&(1<<i) != 0 {
				return name
			}
		}
	}
	return ""
}

// isFalse reports whether s marshals as false: {"not": {}}.
func isFalse(s *jsonschema.Schema) bool {
	return s != nil && s.Not != nil && keywordsOutside(s, kwNot) == "" && isTrue(s.Not)
}

// isTrue reports whether s marshals as true: {} (nothing set).
func isTrue(s *jsonschema.Schema) bool {
	return keywordsOutside(s, 0) == "" && subsetKeywords(s) == 0
}

// typeValue is the "type" keyword as a message shows it.
func typeValue(s *jsonschema.Schema) any {
	if s.Types != nil {
		return s.Types
	}
	if s.Type == "" {
		return nil
	}
	return s.Type
}

// CompileValidator compiles schema. It returns an error wrapping
// [ErrSchemaSubset] and naming the offending keyword when schema uses
// anything outside the projected subset: the validator never guesses at a
// keyword it does not interpret.
func CompileValidator(schema *jsonschema.Schema) (*Validator, error) {
	if schema == nil {
		return nil, fmt.Errorf("%w: nil schema", errSchemaSubset)
	}
	bad := func(format string, a ...any) error {
		return fmt.Errorf("%w: %s", errSchemaSubset, fmt.Sprintf(format, a...))
	}
	if k := keywordsOutside(schema, rootKeywords); k != "" {
		return nil, bad("root keyword %q", k)
	}
	if schema.Type != "object" {
		return nil, bad("root type %v is not \"object\"", typeValue(schema))
	}
	if !isFalse(schema.AdditionalProperties) {
		return nil, bad("root additionalProperties must be false")
	}
	v := &Validator{props: make(map[string]*valueCheck, len(schema.Properties))}
	// Property order: the schema's own (parser order) when it names every
	// property; otherwise sorted, so the order is deterministic regardless.
	names := schema.PropertyOrder
	if len(names) != len(schema.Properties) || !allIn(names, schema.Properties) {
		names = slices.Sorted(maps.Keys(schema.Properties))
	}
	for _, name := range names {
		p := schema.Properties[name]
		if p == nil || isTrue(p) || isFalse(p) {
			return nil, bad("property %q is not a schema object", name)
		}
		c, err := compileValue(p, 0)
		if err != nil {
			return nil, bad("property %q: %v", name, err)
		}
		v.props[name] = c
	}
	v.order = slices.Clone(names)
	v.required = slices.Clone(schema.Required)
	if len(schema.DependentRequired) > 0 {
		v.deps = compileDependencies(schema.DependentRequired, v.order)
	}
	for i, m := range schema.AllOf {
		r, err := compileCross(m)
		if err != nil {
			return nil, bad("allOf[%d]: %v", i, err)
		}
		v.rules = append(v.rules, r)
	}
	return v, nil
}

func allIn(names []string, props map[string]*jsonschema.Schema) bool {
	for _, n := range names {
		if _, ok := props[n]; !ok {
			return false
		}
	}
	return true
}

// compileDependencies reads dependentRequired into entries in property
// order, so problems come in a deterministic order.
func compileDependencies(dr map[string][]string, order []string) []dependency {
	names := make([]string, 0, len(dr))
	for name := range dr {
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
		out = append(out, dependency{name: name, requires: slices.Clone(dr[name])})
	}
	return out
}

// compileCross accepts exactly {"not":{"required":[A,B]}} or
// {"anyOf":[{"required":[A]},{"required":[B]},...]}.
func compileCross(m *jsonschema.Schema) (crossRule, error) {
	if m == nil {
		return crossRule{}, fmt.Errorf("member must be one of not/anyOf")
	}
	switch {
	case keywordsOutside(m, kwNot) == "" && m.Not != nil:
		if keywordsOutside(m.Not, kwRequired) != "" || subsetKeywords(m.Not) != kwRequired {
			return crossRule{}, fmt.Errorf("not must hold only required")
		}
		if len(m.Not.Required) != 2 {
			return crossRule{}, fmt.Errorf("not.required must list two names")
		}
		return crossRule{exclusive: true, params: slices.Clone(m.Not.Required)}, nil
	case keywordsOutside(m, kwAnyOf) == "" && len(m.AnyOf) > 0:
		var group []string
		for _, e := range m.AnyOf {
			if e == nil || keywordsOutside(e, kwRequired) != "" || subsetKeywords(e) != kwRequired {
				return crossRule{}, fmt.Errorf("anyOf members must hold only required")
			}
			if len(e.Required) != 1 {
				return crossRule{}, fmt.Errorf("anyOf member must require one name")
			}
			group = append(group, e.Required[0])
		}
		return crossRule{params: group}, nil
	}
	return crossRule{}, fmt.Errorf("member must be one of not/anyOf")
}

// compileValue compiles a property's schema (depth 0), an array
// property's items (depth 1), or the items of an item that is itself an
// array (depth 2: a tuple of a repeated fixed-arity option, whose own
// items must be scalars).
func compileValue(m *jsonschema.Schema, depth int) (*valueCheck, error) {
	c := &valueCheck{minLength: -1, minItems: -1, maxItems: -1}
	typ := m.Type
	allowed := propKeywords
	if depth == 2 || depth == 1 && typ != "array" {
		allowed &^= kwItems | kwPrefixItems
	}
	if k := keywordsOutside(m, allowed); k != "" {
		return nil, fmt.Errorf("keyword %q", k)
	}
	if depth == 2 && typ == "array" {
		return nil, fmt.Errorf("type array nested in an array item")
	}
	if list := m.Types; len(list) == 2 && list[0] == "boolean" && depth == 0 {
		// The one type list the subset admits: ["boolean", T], an option
		// that may be given bare (true) or with a value of type T.
		if t := list[1]; t == "string" || t == "integer" || t == "number" {
			typ, c.orBool = t, true
		}
	}
	if !propTypes[typ] {
		return nil, fmt.Errorf("type %v is not one of string, integer, number, boolean, array (or [\"boolean\", string|integer|number])", typeValue(m))
	}
	c.typ = typ
	var err error
	if len(m.Enum) > 0 {
		if c.enum, err = jsonValues(m.Enum); err != nil {
			return nil, fmt.Errorf("enum: %v", err)
		}
	}
	if m.Not != nil {
		if keywordsOutside(m.Not, kwEnum) != "" || subsetKeywords(m.Not) != kwEnum {
			return nil, fmt.Errorf("not must hold only enum")
		}
		if c.notEnum, err = jsonValues(m.Not.Enum); err != nil {
			return nil, fmt.Errorf("not: enum: %v", err)
		}
	}
	if m.Pattern != "" {
		// One compiled copy per process, shared by every verb whose
		// schema has this pattern (internal/pattern).
		re, err := pattern.Compile(m.Pattern)
		if err != nil {
			return nil, fmt.Errorf("pattern: %v", err)
		}
		c.pattern = re
	}
	for i, e := range m.AllOf {
		// A value's allOf holds only patterns: an operator's constraints
		// beside the parser's own pattern (projector.Param.Patterns).
		if e == nil || keywordsOutside(e, kwPattern) != "" || subsetKeywords(e) != kwPattern {
			return nil, fmt.Errorf("allOf[%d] must hold only pattern", i)
		}
		re, err := pattern.Compile(e.Pattern)
		if err != nil {
			return nil, fmt.Errorf("allOf[%d]: pattern: %v", i, err)
		}
		c.patterns = append(c.patterns, re)
	}
	c.minimum, c.maximum = m.Minimum, m.Maximum
	count := func(k string, p *int) (int, error) {
		if p == nil {
			return -1, nil
		}
		if *p < 0 || *p > math.MaxInt32 {
			return 0, fmt.Errorf("%s is not a non-negative integer", k)
		}
		return *p, nil
	}
	if c.minLength, err = count("minLength", m.MinLength); err != nil {
		return nil, err
	}
	if c.minItems, err = count("minItems", m.MinItems); err != nil {
		return nil, err
	}
	if c.maxItems, err = count("maxItems", m.MaxItems); err != nil {
		return nil, err
	}
	c.unique = m.UniqueItems
	if (depth == 1 && typ == "array" || len(m.PrefixItems) > 0) && (c.minItems < 0 || c.minItems != c.maxItems) {
		// An array item is a tuple: a fixed number of scalars.
		return nil, fmt.Errorf("an array item must be a tuple with minItems equal to maxItems")
	}
	if m.Items != nil {
		if isTrue(m.Items) || isFalse(m.Items) {
			return nil, fmt.Errorf("items is not a schema object")
		}
		if c.items, err = compileValue(m.Items, depth+1); err != nil {
			return nil, fmt.Errorf("items: %v", err)
		}
	}
	for i, e := range m.PrefixItems {
		if e == nil || isTrue(e) || isFalse(e) {
			return nil, fmt.Errorf("prefixItems[%d] is not a schema object", i)
		}
		// A position's schema is a scalar's, one level deeper.
		pc, err := compileValue(e, 2)
		if err != nil {
			return nil, fmt.Errorf("prefixItems[%d]: %v", i, err)
		}
		c.prefix = append(c.prefix, pc)
	}
	return c, nil
}

// jsonValues returns list as its JSON decodes: the values a client reading
// the schema sees, and what an argument is compared with. Strings,
// booleans, null and doubles are that already; an integer becomes the
// double its decimal digits decode to, a float32 the double of its
// shortest decimal form (what encoding/json writes), anything else goes
// through encoding/json.
func jsonValues(list []any) ([]any, error) {
	out := make([]any, len(list))
	for i, x := range list {
		switch v := x.(type) {
		case nil, bool, string, float64:
			out[i] = v
		case float32:
			f, _ := strconv.ParseFloat(strconv.FormatFloat(float64(v), 'g', -1, 32), 64)
			out[i] = f
		case int:
			out[i] = float64(v)
		case int64:
			out[i] = float64(v)
		case int32:
			out[i] = float64(v)
		default:
			b, err := json.Marshal(v)
			if err != nil {
				return nil, err
			}
			if err := json.Unmarshal(b, &out[i]); err != nil {
				return nil, err
			}
		}
	}
	return out, nil
}
