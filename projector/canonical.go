package projector

import (
	"bytes"
	"encoding/json"
	"maps"
	"math"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/google/jsonschema-go/jsonschema"
)

// The canonical form of a fingerprint is defined by canonicalJSON (marshal,
// decode, re-encode with sorted keys). Marshalling a jsonschema.Schema goes
// through reflection and is most of a projection's cost, so schemas that use
// only the keywords Project emits are written directly in the same canonical
// form by appendCanonicalSchema; anything else falls back to the general
// path. A test holds the two byte-identical over every schema the adapters
// produce. What it buys (BenchmarkCanonical, one run, while CI ran on the
// same two cores): 17.5 µs against 281.5 µs per schema, 16× — and a
// fingerprint is taken on every help and every spawn op, whose whole round
// trip is a few milliseconds: the general path alone would cost about 5 %
// of one.

// schemaFields is every field of jsonschema.Schema as of the version this
// writer was made against. If the struct has any other field (a newer
// jsonschema-go), fastCanonical is false and every fingerprint takes the
// general path, so a new keyword is never silently left out.
var schemaFields = "ID Schema Ref Comment Defs Definitions DependencySchemas DependencyStrings Anchor DynamicAnchor DynamicRef " +
	"Vocabulary Title Description Default Deprecated ReadOnly WriteOnly Examples Type Types Enum Const MultipleOf Minimum " +
	"Maximum ExclusiveMinimum ExclusiveMaximum MinLength MaxLength Pattern PrefixItems Items ItemsArray MinItems MaxItems " +
	"AdditionalItems UniqueItems Contains MinContains MaxContains UnevaluatedItems MinProperties MaxProperties Required " +
	"DependentRequired Properties PatternProperties AdditionalProperties PropertyNames UnevaluatedProperties AllOf AnyOf " +
	"OneOf Not If Then Else DependentSchemas ContentEncoding ContentMediaType ContentSchema Format Extra PropertyOrder"

var fastCanonical = func() bool {
	t := reflect.TypeOf(jsonschema.Schema{})
	var names []string
	for i := 0; i < t.NumField(); i++ {
		names = append(names, t.Field(i).Name)
	}
	return strings.Join(names, " ") == schemaFields
}()

// c1Only reports whether s (not its subschemas) sets nothing but the fields
// appendCanonicalSchema writes.
func c1Only(s *jsonschema.Schema) bool {
	return fastCanonical &&
		s.ID == "" && s.Schema == "" && s.Ref == "" && s.Comment == "" && s.Defs == nil && s.Definitions == nil &&
		s.DependencySchemas == nil && s.DependencyStrings == nil && s.Anchor == "" && s.DynamicAnchor == "" && s.DynamicRef == "" &&
		s.Vocabulary == nil && s.Title == "" && !s.Deprecated && !s.ReadOnly && !s.WriteOnly && s.Examples == nil &&
		s.Const == nil && s.MultipleOf == nil && s.ExclusiveMinimum == nil && s.ExclusiveMaximum == nil &&
		s.MaxLength == nil && s.PrefixItems == nil && s.ItemsArray == nil && s.AdditionalItems == nil &&
		s.Contains == nil && s.MinContains == nil && s.MaxContains == nil && s.UnevaluatedItems == nil && s.MinProperties == nil &&
		s.MaxProperties == nil && s.PatternProperties == nil && s.PropertyNames == nil &&
		s.UnevaluatedProperties == nil && s.OneOf == nil && s.If == nil && s.Then == nil && s.Else == nil &&
		s.DependentSchemas == nil && s.ContentEncoding == "" && s.ContentMediaType == "" && s.ContentSchema == nil &&
		s.Format == "" && s.Extra == nil
}

// isEmptySchema reports whether s is {} (marshalled as true); s is c1Only.
func isEmptySchema(s *jsonschema.Schema) bool {
	return c1Only(s) && s.Type == "" && s.Types == nil && s.DependentRequired == nil && s.Description == "" && len(s.Default) == 0 && len(s.Enum) == 0 && s.Pattern == "" &&
		s.Not == nil && s.Minimum == nil && s.Maximum == nil && s.MinLength == nil && s.Items == nil && s.MinItems == nil &&
		s.MaxItems == nil && !s.UniqueItems && s.Properties == nil && len(s.Required) == 0 && s.AdditionalProperties == nil && len(s.AllOf) == 0 && len(s.AnyOf) == 0
}

// appendCanonicalSchema appends the canonical JSON of s, or reports false if
// s (or a subschema) needs the general path.
func appendCanonicalSchema(b []byte, s *jsonschema.Schema) ([]byte, bool) {
	if s == nil {
		return append(b, "null"...), true
	}
	if !c1Only(s) {
		return b, false
	}
	// jsonschema-go marshals {} as true and {"not": {}} as false.
	if isEmptySchema(s) {
		return append(b, "true"...), true
	}
	if s.Not != nil && isEmptySchema(s.Not) {
		rest := *s
		rest.Not = nil
		if isEmptySchema(&rest) {
			return append(b, "false"...), true
		}
	}
	ok := true
	b = append(b, '{')
	first := true
	key := func(k string) {
		if !first {
			b = append(b, ',')
		}
		first = false
		b = appendString(b, k)
		b = append(b, ':')
	}
	schemas := func(list []*jsonschema.Schema) {
		b = append(b, '[')
		for i, sub := range list {
			if i > 0 {
				b = append(b, ',')
			}
			if b, ok = appendCanonicalSchema(b, sub); !ok {
				return
			}
		}
		b = append(b, ']')
	}
	// Keys in sorted order.
	if s.AdditionalProperties != nil {
		key("additionalProperties")
		if b, ok = appendCanonicalSchema(b, s.AdditionalProperties); !ok {
			return b, false
		}
	}
	if len(s.AllOf) > 0 {
		key("allOf")
		if schemas(s.AllOf); !ok {
			return b, false
		}
	}
	if len(s.AnyOf) > 0 {
		key("anyOf")
		if schemas(s.AnyOf); !ok {
			return b, false
		}
	}
	if len(s.Default) > 0 {
		key("default")
		if b, ok = appendCanonicalRaw(b, s.Default); !ok {
			return b, false
		}
	}
	if s.DependentRequired != nil {
		key("dependentRequired")
		names := slices.Sorted(maps.Keys(s.DependentRequired))
		b = append(b, '{')
		for i, n := range names {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendString(b, n)
			b = append(b, ':')
			b = appendStrings(b, s.DependentRequired[n])
		}
		b = append(b, '}')
	}
	if s.Description != "" {
		key("description")
		b = appendString(b, s.Description)
	}
	if len(s.Enum) > 0 {
		key("enum")
		b = append(b, '[')
		for i, v := range s.Enum {
			if i > 0 {
				b = append(b, ',')
			}
			if b, ok = appendCanonicalValue(b, v); !ok {
				return b, false
			}
		}
		b = append(b, ']')
	}
	if s.Items != nil {
		key("items")
		if b, ok = appendCanonicalSchema(b, s.Items); !ok {
			return b, false
		}
	}
	if s.MaxItems != nil {
		key("maxItems")
		b = strconv.AppendInt(b, int64(*s.MaxItems), 10)
	}
	if s.Maximum != nil {
		key("maximum")
		if b, ok = appendFloat(b, *s.Maximum); !ok {
			return b, false
		}
	}
	if s.MinItems != nil {
		key("minItems")
		b = strconv.AppendInt(b, int64(*s.MinItems), 10)
	}
	if s.MinLength != nil {
		key("minLength")
		b = strconv.AppendInt(b, int64(*s.MinLength), 10)
	}
	if s.Minimum != nil {
		key("minimum")
		if b, ok = appendFloat(b, *s.Minimum); !ok {
			return b, false
		}
	}
	if s.Not != nil {
		key("not")
		if b, ok = appendCanonicalSchema(b, s.Not); !ok {
			return b, false
		}
	}
	if s.Pattern != "" {
		key("pattern")
		b = appendString(b, s.Pattern)
	}
	if s.Properties != nil {
		key("properties")
		names := slices.Sorted(maps.Keys(s.Properties))
		b = append(b, '{')
		for i, n := range names {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendString(b, n)
			b = append(b, ':')
			if b, ok = appendCanonicalSchema(b, s.Properties[n]); !ok {
				return b, false
			}
		}
		b = append(b, '}')
	}
	if len(s.Required) > 0 {
		key("required")
		b = append(b, '[')
		for i, r := range s.Required {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendString(b, r)
		}
		b = append(b, ']')
	}
	switch {
	case s.Type != "" && s.Types != nil:
		return b, false // jsonschema-go refuses to marshal both
	case s.Type != "":
		key("type")
		b = appendString(b, s.Type)
	case s.Types != nil:
		key("type")
		b = appendStrings(b, s.Types)
	}
	if s.UniqueItems {
		key("uniqueItems")
		b = append(b, "true"...)
	}
	return append(b, '}'), true
}

// appendStrings writes a JSON array of strings (null for a nil slice, as
// encoding/json does).
func appendStrings(b []byte, list []string) []byte {
	if list == nil {
		return append(b, "null"...)
	}
	b = append(b, '[')
	for i, v := range list {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendString(b, v)
	}
	return append(b, ']')
}

// appendCanonicalRaw re-encodes raw JSON canonically (as canonicalJSON does:
// sorted keys, numbers verbatim).
func appendCanonicalRaw(b []byte, raw json.RawMessage) ([]byte, bool) {
	// Compact ASCII JSON without objects, escapes or blanks (what Marshal
	// makes of a plain scalar or list default) is already canonical. Not
	// so raw text holding U+2028, U+2029 or invalid UTF-8, which the
	// re-encoding escapes or replaces: anything non-ASCII is re-encoded.
	if plainASCII(raw) && json.Valid(raw) {
		return append(b, raw...), true
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return b, false
	}
	return appendCanonicalValue(b, v)
}

// plainASCII reports whether raw is printable ASCII without '{', '\\' or
// blanks.
func plainASCII(raw []byte) bool {
	for _, c := range raw {
		if c <= ' ' || c >= utf8.RuneSelf || c == '{' || c == '\\' {
			return false
		}
	}
	return true
}

// appendCanonicalValue writes a Go value as encoding/json would marshal it
// and canonicalJSON would re-encode it, for the plain types; others report
// false.
func appendCanonicalValue(b []byte, v any) ([]byte, bool) {
	switch x := v.(type) {
	case nil:
		return append(b, "null"...), true
	case bool:
		return strconv.AppendBool(b, x), true
	case string:
		return appendString(b, x), true
	case json.Number:
		return append(b, x...), true
	case int:
		return strconv.AppendInt(b, int64(x), 10), true
	case int64:
		return strconv.AppendInt(b, x, 10), true
	case int32:
		return strconv.AppendInt(b, int64(x), 10), true
	case uint64:
		return strconv.AppendUint(b, x, 10), true
	case float64:
		return appendFloat(b, x)
	case []any:
		b = append(b, '[')
		for i, e := range x {
			if i > 0 {
				b = append(b, ',')
			}
			var ok bool
			if b, ok = appendCanonicalValue(b, e); !ok {
				return b, false
			}
		}
		return append(b, ']'), true
	case map[string]any:
		keys := slices.Sorted(maps.Keys(x))
		b = append(b, '{')
		for i, k := range keys {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendString(b, k)
			b = append(b, ':')
			var ok bool
			if b, ok = appendCanonicalValue(b, x[k]); !ok {
				return b, false
			}
		}
		return append(b, '}'), true
	}
	return b, false
}

// appendFloat formats f exactly as encoding/json does.
func appendFloat(b []byte, f float64) ([]byte, bool) {
	if math.IsInf(f, 0) || math.IsNaN(f) {
		return b, false
	}
	abs := math.Abs(f)
	format := byte('f')
	if abs != 0 && (abs < 1e-6 || abs >= 1e21) {
		format = 'e'
	}
	b = strconv.AppendFloat(b, f, format, -1, 64)
	if format == 'e' {
		// clean up e-09 to e-9
		n := len(b)
		if n >= 4 && b[n-4] == 'e' && b[n-3] == '-' && b[n-2] == '0' {
			b[n-2] = b[n-1]
			b = b[:n-1]
		}
	}
	return b, true
}

const hexDigits = "0123456789abcdef"

// appendString quotes s as encoding/json does with HTML escaping off.
func appendString(b []byte, s string) []byte {
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); {
		if c := s[i]; c < utf8.RuneSelf {
			if c >= 0x20 && c != '"' && c != '\\' {
				i++
				continue
			}
			b = append(b, s[start:i]...)
			switch c {
			case '\\', '"':
				b = append(b, '\\', c)
			case '\b':
				b = append(b, '\\', 'b')
			case '\f':
				b = append(b, '\\', 'f')
			case '\n':
				b = append(b, '\\', 'n')
			case '\r':
				b = append(b, '\\', 'r')
			case '\t':
				b = append(b, '\\', 't')
			default:
				b = append(b, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xF])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			// Marshal writes \ufffd; the re-encoding in canonicalJSON
			// then writes the replacement character itself.
			b = append(b, s[start:i]...)
			b = append(b, "\uFFFD"...)
			i += size
			start = i
			continue
		}
		if r == '\u2028' || r == '\u2029' {
			b = append(b, s[start:i]...)
			b = append(b, '\\', 'u', '2', '0', '2', hexDigits[r&0xF])
			i += size
			start = i
			continue
		}
		i += size
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}
