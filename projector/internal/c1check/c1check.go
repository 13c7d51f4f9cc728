// Package c1check verifies that a projected schema uses only the JSON Schema
// keyword subset of contract C1, which the surface's own validator
// interprets. Tests of the projector and its adapters run every schema they
// produce through it.
package c1check

import (
	"encoding/json"
	"fmt"
	"regexp"
	"sort"

	"github.com/google/jsonschema-go/jsonschema"
)

// Check returns the first departure of s from the C1 subset, or nil.
func Check(s *jsonschema.Schema) error {
	raw, err := json.Marshal(s)
	if err != nil {
		return err
	}
	var root map[string]any
	if err := json.Unmarshal(raw, &root); err != nil {
		return fmt.Errorf("root is not an object: %s", raw)
	}
	for k, v := range root {
		switch k {
		case "type":
			if v != "object" {
				return fmt.Errorf("root type %v", v)
			}
		case "description":
			if _, ok := v.(string); !ok {
				return fmt.Errorf("root description %v", v)
			}
		case "properties":
			props, ok := v.(map[string]any)
			if !ok {
				return fmt.Errorf("properties %v", v)
			}
			for name, p := range props {
				if err := property(p, 0); err != nil {
					return fmt.Errorf("property %q: %w", name, err)
				}
			}
		case "required":
			if err := stringList(v, props(root)); err != nil {
				return fmt.Errorf("required: %w", err)
			}
		case "additionalProperties":
			if v != false {
				return fmt.Errorf("additionalProperties %v, want false", v)
			}
		case "allOf":
			members, ok := v.([]any)
			if !ok {
				return fmt.Errorf("allOf %v", v)
			}
			for i, m := range members {
				if err := allOfMember(m, props(root)); err != nil {
					return fmt.Errorf("allOf[%d]: %w", i, err)
				}
			}
		case "dependentRequired":
			deps, ok := v.(map[string]any)
			if !ok || len(deps) == 0 {
				return fmt.Errorf("dependentRequired %v", v)
			}
			for name, reqs := range deps {
				if _, ok := props(root)[name]; !ok {
					return fmt.Errorf("dependentRequired names unknown property %q", name)
				}
				if err := stringList(reqs, props(root)); err != nil {
					return fmt.Errorf("dependentRequired[%q]: %w", name, err)
				}
			}
		default:
			return fmt.Errorf("root keyword %q is outside C1", k)
		}
	}
	if root["type"] != "object" || root["additionalProperties"] != false {
		return fmt.Errorf("root must be a closed object: %s", raw)
	}
	return nil
}

func props(root map[string]any) map[string]any {
	p, _ := root["properties"].(map[string]any)
	return p
}

func stringList(v any, known map[string]any) error {
	list, ok := v.([]any)
	if !ok || len(list) == 0 {
		return fmt.Errorf("want a non-empty list of names, got %v", v)
	}
	for _, n := range list {
		s, ok := n.(string)
		if !ok {
			return fmt.Errorf("name %v is not a string", n)
		}
		if _, ok := known[s]; !ok {
			return fmt.Errorf("names unknown property %q", s)
		}
	}
	return nil
}

func allOfMember(m any, known map[string]any) error {
	obj, ok := m.(map[string]any)
	if !ok || len(obj) != 1 {
		return fmt.Errorf("want {not:…} or {anyOf:…}, got %v", m)
	}
	if not, ok := obj["not"].(map[string]any); ok {
		req, ok := not["required"].([]any)
		if len(not) != 1 || !ok || len(req) != 2 {
			return fmt.Errorf("not must be {required:[A,B]}, got %v", not)
		}
		return stringList(not["required"], known)
	}
	anyOf, ok := obj["anyOf"].([]any)
	if !ok || len(anyOf) == 0 {
		return fmt.Errorf("want {not:…} or {anyOf:…}, got %v", m)
	}
	for _, a := range anyOf {
		r, ok := a.(map[string]any)
		req, ok2 := r["required"].([]any)
		if !ok || !ok2 || len(r) != 1 || len(req) != 1 {
			return fmt.Errorf("anyOf member must be {required:[A]}, got %v", a)
		}
		if err := stringList(r["required"], known); err != nil {
			return err
		}
	}
	return nil
}

var types = map[string]bool{"string": true, "integer": true, "number": true, "boolean": true, "array": true}

// property checks a property schema (depth 0), an array property's items
// (depth 1), or the items of a tuple (depth 2): an array item that is
// itself an array of exactly n scalars (a repeated fixed-arity option).
func property(v any, depth int) error {
	isItem := depth > 0
	obj, ok := v.(map[string]any)
	if !ok {
		return fmt.Errorf("not an object: %v", v)
	}
	keys := make([]string, 0, len(obj))
	for k := range obj {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	typ, _ := obj["type"].(string)
	if list, ok := obj["type"].([]any); ok && len(list) == 2 && list[0] == "boolean" && !isItem {
		// ["boolean", T]: an option that may be given bare (true) or with a
		// value; false must be forbidden (omitting says "not given").
		if t, _ := list[1].(string); t == "string" || t == "integer" || t == "number" {
			typ = t
		}
		not, _ := obj["not"].(map[string]any)
		if l, _ := not["enum"].([]any); len(l) == 0 || l[0] != false {
			return fmt.Errorf("type %v without not.enum starting with false", list)
		}
	}
	if !types[typ] || depth == 2 && typ == "array" {
		return fmt.Errorf("type %v", obj["type"])
	}
	if depth == 1 && typ == "array" {
		lo, hi := obj["minItems"], obj["maxItems"]
		if lo == nil || lo != hi {
			return fmt.Errorf("an array item must be a tuple of fixed length (minItems = maxItems), got %v..%v", lo, hi)
		}
	}
	if pi, ok := obj["prefixItems"]; ok {
		// A tuple of differing positions: exactly as many as its fixed
		// length, and nothing else about its items.
		list, _ := pi.([]any)
		n, _ := obj["minItems"].(float64)
		if len(list) == 0 || obj["items"] != nil || obj["maxItems"] != obj["minItems"] || int(n) != len(list) {
			return fmt.Errorf("prefixItems must give every position of a fixed-length tuple (minItems = maxItems = %d), without items", len(list))
		}
	}
	for _, k := range keys {
		val := obj[k]
		switch k {
		case "type", "description", "default", "minimum", "maximum", "minLength", "minItems", "maxItems", "uniqueItems":
		case "enum":
			if l, ok := val.([]any); !ok || len(l) == 0 {
				return fmt.Errorf("enum %v", val)
			}
		case "pattern":
			s, ok := val.(string)
			if !ok {
				return fmt.Errorf("pattern %v", val)
			}
			if _, err := regexp.Compile(s); err != nil {
				return fmt.Errorf("pattern %q is not RE2: %v", s, err)
			}
		case "not":
			n, ok := val.(map[string]any)
			if l, ok2 := n["enum"].([]any); !ok || !ok2 || len(n) != 1 || len(l) == 0 {
				return fmt.Errorf("not must be {enum:[…]}, got %v", val)
			}
		case "prefixItems":
			if depth > 1 || typ != "array" {
				return fmt.Errorf("prefixItems on a non-array or an array nested twice")
			}
			for i, e := range val.([]any) {
				if err := property(e, 2); err != nil {
					return fmt.Errorf("prefixItems[%d]: %w", i, err)
				}
			}
		case "items":
			if depth > 1 || typ != "array" {
				return fmt.Errorf("items on a non-array or an array nested twice")
			}
			if err := property(val, depth+1); err != nil {
				return fmt.Errorf("items: %w", err)
			}
		default:
			return fmt.Errorf("keyword %q is outside C1", k)
		}
	}
	if typ == "array" && obj["items"] == nil && obj["prefixItems"] == nil {
		return fmt.Errorf("array without items")
	}
	return nil
}
