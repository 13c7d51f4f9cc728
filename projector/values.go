package projector

import (
	"encoding/json"
	"math"
	"math/big"
	"reflect"
)

// The caller's args arrive as decoded JSON: float64 numbers (or json.Number
// with UseNumber, or Go integers from a test), strings, booleans, []any.
// These helpers accept each spelling of the same JSON value, deciding
// integer-ness as jsonschema-go does: a number with zero fraction is an
// integer (3 and 3.0 alike).

func asInteger(v any) (int64, bool) {
	rv := reflect.ValueOf(v)
	switch {
	case !rv.IsValid():
		return 0, false
	case rv.CanInt():
		return rv.Int(), true
	case rv.CanUint():
		u := rv.Uint()
		if u > math.MaxInt64 {
			return 0, false
		}
		return int64(u), true
	case rv.CanFloat():
		f := rv.Float()
		if f != math.Trunc(f) || math.IsInf(f, 0) || f < -(1<<63) || f >= 1<<63 {
			return 0, false
		}
		return int64(f), true
	}
	if n, ok := v.(json.Number); ok {
		r, ok := new(big.Rat).SetString(n.String())
		if !ok || !r.IsInt() || !r.Num().IsInt64() {
			return 0, false
		}
		return r.Num().Int64(), true
	}
	return 0, false
}

func asNumber(v any) (float64, bool) {
	rv := reflect.ValueOf(v)
	switch {
	case !rv.IsValid():
		return 0, false
	case rv.CanInt():
		return float64(rv.Int()), true
	case rv.CanUint():
		return float64(rv.Uint()), true
	case rv.CanFloat():
		f := rv.Float()
		if math.IsNaN(f) || math.IsInf(f, 0) {
			return 0, false
		}
		return f, true
	}
	if n, ok := v.(json.Number); ok {
		f, err := n.Float64()
		if err != nil || math.IsInf(f, 0) {
			return 0, false
		}
		return f, true
	}
	return 0, false
}

// asSlice accepts any Go slice or array (a decoded JSON array is []any).
func asSlice(v any) ([]any, bool) {
	rv := reflect.ValueOf(v)
	if !rv.IsValid() || (rv.Kind() != reflect.Slice && rv.Kind() != reflect.Array) {
		return nil, false
	}
	if rv.Kind() == reflect.Slice && rv.Type().Elem().Kind() == reflect.Uint8 {
		return nil, false // []byte marshals as a JSON string, not an array
	}
	out := make([]any, rv.Len())
	for i := range out {
		out[i] = rv.Index(i).Interface()
	}
	return out, true
}

// sameScalar compares two JSON scalars by JSON value: numbers numerically.
func sameScalar(a, b any) bool {
	if fa, ok := asNumber(a); ok {
		fb, ok := asNumber(b)
		return ok && fa == fb
	}
	return a == b
}

func jsonTypeName(v any) string {
	if v == nil {
		return "null"
	}
	if _, ok := v.(json.Number); ok {
		return "number"
	}
	rv := reflect.ValueOf(v)
	switch {
	case rv.CanInt() || rv.CanUint():
		return "integer"
	case rv.CanFloat():
		if f := rv.Float(); f == math.Trunc(f) {
			return "integer"
		}
		return "number"
	}
	switch rv.Kind() {
	case reflect.String:
		return "string"
	case reflect.Bool:
		return "boolean"
	case reflect.Slice, reflect.Array:
		return "array"
	case reflect.Map, reflect.Struct:
		return "object"
	}
	return rv.Type().String()
}
