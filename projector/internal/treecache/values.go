package treecache

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"

	"github.com/verbsurface/verbsurface/projector"
)

// A tree's free-form values (a parameter's default, const, choices and
// forbidden values, its elements' choices and forbidden values) are Go
// values the walk typed: int64(0), float64(0), []string{}. JSON alone
// would bring them back as float64 and []any, and a default's type is
// part of what the projection reads. So a cache file records each value's
// type beside the tree, in the order valueSlots visits them, and the
// values are given their types back when it is read.

// valueSlots calls visit with a pointer to every free-form value of t, in
// a fixed order.
func valueSlots(t *projector.Tree, visit func(*any)) {
	each := func(vs []any) {
		for i := range vs {
			visit(&vs[i])
		}
	}
	for _, c := range t.Commands {
		for _, p := range c.Params {
			if p == nil {
				continue
			}
			visit(&p.Default)
			visit(&p.Const)
			each(p.Choices)
			each(p.Forbidden)
			for i := range p.Elements {
				each(p.Elements[i].Choices)
				each(p.Elements[i].Forbidden)
			}
		}
	}
}

// valueTypes names the type of every free-form value of t, or fails on
// one it cannot bring back.
func valueTypes(t *projector.Tree) ([]string, error) {
	var types []string
	var err error
	valueSlots(t, func(v *any) {
		name := "nil"
		switch (*v).(type) {
		case nil:
		case string:
			name = "string"
		case bool:
			name = "bool"
		case int64:
			name = "int64"
		case uint64:
			name = "uint64"
		case float64:
			name = "float64"
		case []string:
			name = "[]string"
		case []int64:
			name = "[]int64"
		default:
			if err == nil {
				err = fmt.Errorf("a value of type %T", *v)
			}
		}
		types = append(types, name)
	})
	return types, err
}

// retype gives every free-form value of t, decoded from JSON with
// UseNumber, the type types names.
func retype(t *projector.Tree, types []string) error {
	i := 0
	var err error
	valueSlots(t, func(v *any) {
		if err != nil {
			return
		}
		if i >= len(types) {
			err = fmt.Errorf("more values than types")
			return
		}
		*v, err = typed(*v, types[i])
		i++
	})
	if err == nil && i != len(types) {
		err = fmt.Errorf("%d values, %d types", i, len(types))
	}
	return err
}

func typed(v any, name string) (any, error) {
	bad := fmt.Errorf("value %v is not a %s", v, name)
	switch name {
	case "nil":
		if v != nil {
			return nil, bad
		}
		return nil, nil
	case "string", "bool":
		if name == "string" {
			if s, ok := v.(string); ok {
				return s, nil
			}
		} else if b, ok := v.(bool); ok {
			return b, nil
		}
		return nil, bad
	case "int64", "uint64", "float64":
		n, ok := v.(json.Number)
		if !ok {
			return nil, bad
		}
		var out any
		var err error
		switch name {
		case "int64":
			out, err = strconv.ParseInt(string(n), 10, 64)
		case "uint64":
			out, err = strconv.ParseUint(string(n), 10, 64)
		default:
			out, err = strconv.ParseFloat(string(n), 64)
		}
		if err != nil {
			return nil, bad
		}
		return out, nil
	case "[]string", "[]int64":
		items, ok := v.([]any)
		if !ok {
			return nil, bad
		}
		if name == "[]string" {
			out := make([]string, len(items))
			for i, e := range items {
				s, ok := e.(string)
				if !ok {
					return nil, bad
				}
				out[i] = s
			}
			return out, nil
		}
		out := make([]int64, len(items))
		for i, e := range items {
			n, err := typed(e, "int64")
			if err != nil {
				return nil, bad
			}
			out[i] = n.(int64)
		}
		return out, nil
	}
	return nil, fmt.Errorf("unknown type %q", name)
}

// encode is the cache file of t under key, or an error when t would not
// come back from it exactly as it is.
func (c *Cache) encode(key string, t *projector.Tree) ([]byte, error) {
	types, err := valueTypes(t)
	if err != nil {
		return nil, err
	}
	b, err := json.Marshal(doc{Format: c.Format, Key: key, Types: types, Tree: t})
	if err != nil {
		return nil, err
	}
	back, err := c.decode(b)
	if err != nil {
		return nil, err
	}
	// What comes back must be the same JSON with the same types: equal
	// but for an empty slice read back as nil, which no reader of a tree
	// tells apart (a tree file is JSON too).
	backTypes, err := valueTypes(back.Tree)
	if err != nil || !slices.Equal(backTypes, types) {
		return nil, fmt.Errorf("the tree's values do not come back from JSON with their types")
	}
	want, err := json.Marshal(t)
	if err != nil {
		return nil, err
	}
	got, err := json.Marshal(back.Tree)
	if err != nil || !bytes.Equal(got, want) {
		return nil, fmt.Errorf("the tree does not come back from JSON as it is")
	}
	return b, nil
}
