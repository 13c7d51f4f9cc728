// Package cobrart is the cobra side of the projector's round-trip tests:
// it parses a rendered argv with a real cobra command tree — finding the
// command, parsing its flags, checking required flags, flag groups and the
// Args validator — without running anything, and reads back the value of
// every parameter of the projected command, so a test can compare it with
// the arguments that were rendered. It serves the fixture tests of
// fromcobra and the corpus of third-party CLIs alike.
//
// A flag whose pflag type the projector offers as a plain string (any type
// but the built-in ones it maps) is string-in: the CLI's own Set is its
// final validator, so what the round trip checks is that Set receives
// exactly the string given. Such flags are read through a Recorder put in
// place of their Value before parsing.
package cobrart

import (
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/verbsurface/verbsurface/projector"
)

// Typed lists the pflag types read back through their typed getter; every
// other type is recorded.
var Typed = map[string]bool{"string": true, "bool": true, "int": true, "int8": true, "int16": true, "int32": true,
	"int64": true, "count": true, "uint": true, "uint8": true, "uint16": true, "uint32": true, "uint64": true,
	"float32": true, "float64": true, "duration": true, "stringSlice": true, "stringArray": true, "intSlice": true,
	"stringToString": true}

// Recorder stands in for a string-in flag's Value: it records every string
// Set receives and accepts it.
type Recorder struct {
	pflag.Value
	Sets []string
}

// Set records s.
func (r *Recorder) Set(s string) error { r.Sets = append(r.Sets, s); return nil }

// Parse finds path in root, parses argv as that command's flags and
// positionals, and runs cobra's checks (required flags, flag groups, the
// Args validator). It runs no command.
func Parse(root *cobra.Command, path []string, argv []string) (*cobra.Command, []string, error) {
	c, rest, err := root.Find(path)
	if err != nil {
		return nil, nil, err
	}
	if len(rest) > 0 {
		return nil, nil, fmt.Errorf("command %q not found (left %q)", strings.Join(path, " "), rest)
	}
	_ = c.InheritedFlags() // merges the ancestors' persistent flags into c.Flags()
	c.Flags().VisitAll(func(f *pflag.Flag) {
		// A CLI that keeps flags in package state (yq) hands every new
		// tree the *Flag of the last one: start each parse as a fresh
		// process would, with nothing changed and nothing recorded.
		f.Changed = false
		if r, ok := f.Value.(*Recorder); ok {
			f.Value = r.Value
		}
		if !Typed[f.Value.Type()] {
			f.Value = &Recorder{Value: f.Value}
		}
	})
	if err := c.ParseFlags(argv); err != nil {
		return nil, nil, fmt.Errorf("flags: %w", err)
	}
	args := c.Flags().Args()
	if err := c.ValidateArgs(args); err != nil {
		return nil, nil, fmt.Errorf("args: %w", err)
	}
	if err := c.ValidateRequiredFlags(); err != nil {
		return nil, nil, err
	}
	if err := c.ValidateFlagGroups(); err != nil {
		return nil, nil, err
	}
	return c, args, nil
}

// Values reads back every parameter of cmd that c parsed, in the decoded-JSON
// form the arguments were given in (numbers as float64, lists as []any, a
// stringToString map as its sorted key=value items); a flag that was not
// set is absent, and so is a positional not given.
func Values(cmd *projector.Command, c *cobra.Command, args []string) (map[string]any, error) {
	out := map[string]any{}
	for _, p := range cmd.Params {
		if p.Positional() {
			continue
		}
		f := c.Flags().Lookup(strings.TrimPrefix(p.Options[0], "--"))
		if f == nil {
			return nil, fmt.Errorf("no flag %s", p.Options[0])
		}
		if !f.Changed {
			continue
		}
		v, err := flagValue(c.Flags(), f)
		if err != nil {
			return nil, err
		}
		out[p.Name] = v
	}
	rest := args
	for _, p := range cmd.Params {
		if !p.Positional() {
			continue
		}
		switch p.Arity {
		case projector.ArityOne:
			if len(rest) == 0 {
				return nil, fmt.Errorf("positional %s missing", p.Name)
			}
			out[p.Name], rest = rest[0], rest[1:]
		case projector.ArityOptional:
			if len(rest) > 0 {
				out[p.Name], rest = rest[0], rest[1:]
			}
		default:
			items := make([]any, len(rest))
			for i, s := range rest {
				items[i] = s
			}
			out[p.Name], rest = items, nil
		}
	}
	if len(rest) > 0 {
		return nil, fmt.Errorf("extra positionals %q", rest)
	}
	return out, nil
}

func flagValue(fs *pflag.FlagSet, f *pflag.Flag) (any, error) {
	if r, ok := f.Value.(*Recorder); ok {
		if len(r.Sets) != 1 {
			return nil, fmt.Errorf("flag --%s: Set called %d times, want once", f.Name, len(r.Sets))
		}
		return r.Sets[0], nil
	}
	name := f.Name
	num := func(v any, err error) (any, error) {
		switch x := v.(type) {
		case int:
			return float64(x), err
		case int8:
			return float64(x), err
		case int16:
			return float64(x), err
		case int32:
			return float64(x), err
		case int64:
			return float64(x), err
		case uint:
			return float64(x), err
		case uint8:
			return float64(x), err
		case uint16:
			return float64(x), err
		case uint32:
			return float64(x), err
		case uint64:
			return float64(x), err
		case float32:
			return float64(x), err
		}
		return v, err
	}
	strs := func(v []string, err error) (any, error) {
		out := make([]any, len(v))
		for i := range v {
			out[i] = v[i]
		}
		return out, err
	}
	switch f.Value.Type() {
	case "string":
		return fs.GetString(name)
	case "bool":
		return fs.GetBool(name)
	case "int":
		return num(fs.GetInt(name))
	case "int8":
		return num(fs.GetInt8(name))
	case "int16":
		return num(fs.GetInt16(name))
	case "int32":
		return num(fs.GetInt32(name))
	case "int64":
		return num(fs.GetInt64(name))
	case "count":
		return num(fs.GetCount(name))
	case "uint":
		return num(fs.GetUint(name))
	case "uint8":
		return num(fs.GetUint8(name))
	case "uint16":
		return num(fs.GetUint16(name))
	case "uint32":
		return num(fs.GetUint32(name))
	case "uint64":
		return num(fs.GetUint64(name))
	case "float32":
		return num(fs.GetFloat32(name))
	case "float64":
		return fs.GetFloat64(name)
	case "duration":
		d, err := fs.GetDuration(name)
		return d.String(), err
	case "stringSlice":
		return strs(fs.GetStringSlice(name))
	case "stringArray":
		return strs(fs.GetStringArray(name))
	case "intSlice":
		v, err := fs.GetIntSlice(name)
		out := make([]any, len(v))
		for i := range v {
			out[i] = float64(v[i])
		}
		return out, err
	case "stringToString":
		m, err := fs.GetStringToString(name)
		items := make([]string, 0, len(m))
		for k, v := range m {
			items = append(items, k+"="+v)
		}
		sort.Strings(items)
		return strs(items, err)
	}
	return nil, fmt.Errorf("flag --%s: no reader for type %s", name, f.Value.Type())
}

// Want is what Values must read back for a given parameter value: the
// value itself, except that a float32 is read at its own precision, a
// duration as time.Duration's canonical text, a bare option as its Const,
// a stringToString list as the sorted items of the map it builds (a later
// key replacing an earlier one).
func Want(p *projector.Param, v any) any {
	if v == true && p.Bare {
		return p.Const
	}
	switch {
	case p.Type == "float32":
		if f, ok := v.(float64); ok {
			return float64(float32(f))
		}
	case p.Type == "duration":
		if s, ok := v.(string); ok {
			d, err := time.ParseDuration(s)
			if err != nil {
				return fmt.Sprintf("unparsable duration %q", s)
			}
			return d.String()
		}
	case p.Type == "stringToString":
		m := map[string]string{}
		items, _ := v.([]any)
		for _, it := range items {
			k, val, _ := strings.Cut(it.(string), "=")
			m[k] = val
		}
		out := make([]string, 0, len(m))
		for k, val := range m {
			out = append(out, k+"="+val)
		}
		sort.Strings(out)
		list := make([]any, len(out))
		for i := range out {
			list[i] = out[i]
		}
		return list
	}
	return v
}
