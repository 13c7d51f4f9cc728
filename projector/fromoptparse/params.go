package fromoptparse

import (
	"fmt"
	"slices"
	"strings"

	"github.com/verbsurface/verbsurface/projector"
	"github.com/verbsurface/verbsurface/projector/internal/pywalk"
)

// optionParam translates one option, in the order the checks run: the
// Option class, the action, the type, then the action's own rules.
func optionParam(o *rawOption, opts *Options) *projector.Param {
	p := &projector.Param{Options: slices.Concat(o.Short, o.Long), Kind: projector.KindString, Arity: projector.ArityOne, Action: o.Action}
	if o.Dest != nil {
		p.Name = *o.Dest
	} else {
		p.Name = optionName(o)
	}
	if o.Help != nil {
		p.Help = firstLine(*o.Help)
	}
	if o.Metavar != nil {
		p.Metavar = *o.Metavar
	}
	if o.Type != nil {
		p.Type = *o.Type
	}
	fail := func(u *projector.Unrepresentable) *projector.Param {
		p.Unrepresentable = u
		return p
	}
	if len(o.Overrides) > 0 {
		return fail(&projector.Unrepresentable{Action: o.Class, Reason: fmt.Sprintf("option class %s overrides optparse's %s: what it makes of a word is its own code", o.Class, strings.Join(o.Overrides, ", "))})
	}
	switch {
	case o.Action == "callback":
		name := "(none)"
		if o.Callback != nil {
			name = *o.Callback
		}
		return fail(&projector.Unrepresentable{Action: "callback", Type: name, Reason: fmt.Sprintf("callback %s: what the option does is the program's own code", name)})
	case !o.KnownAction:
		return fail(&projector.Unrepresentable{Action: o.Action, Reason: fmt.Sprintf("action %q is not one optparse defines", o.Action)})
	}

	var def any
	hasDefault := false
	if o.Default != nil {
		if o.Default.Unjsonable != nil {
			return fail(&projector.Unrepresentable{Action: o.Action, Reason: fmt.Sprintf("the default %s is not a JSON value", *o.Default.Unjsonable)})
		}
		def, hasDefault = pywalk.PlainValue(o.Default.Value)
	}

	switch o.Action {
	case "store_true", "store_false":
		p.Kind, p.Arity, p.FlagValue = projector.KindBoolean, projector.ArityNone, o.Action == "store_true"
		// The flag spells FlagValue; the other value only by saying
		// nothing, which says it only if it is the default.
		b, ok := def.(bool)
		if ok {
			p.Default = b
		}
		if !ok || b == p.FlagValue {
			p.Choices = []any{p.FlagValue}
		}
		return p
	case "store_const", "append_const":
		c, ok := pywalk.PlainValue(o.Const.Value)
		if o.Const.Unjsonable != nil {
			return fail(&projector.Unrepresentable{Action: o.Action, Reason: fmt.Sprintf("the const %s is not a JSON value", *o.Const.Unjsonable)})
		}
		if o.Action == "append_const" && hasDefault {
			return fail(&projector.Unrepresentable{Action: o.Action, Reason: "append_const onto a default list: the parsed list would hold the default too"})
		}
		p.Kind, p.Arity, p.FlagValue, p.Default = projector.KindBoolean, projector.ArityNone, true, false
		if ok {
			p.Const = c
		}
		return p
	case "count":
		if n, ok := def.(int64); hasDefault && (!ok || n != 0) {
			return fail(&projector.Unrepresentable{Action: "count", Reason: fmt.Sprintf("a count from the default %v: the flag given n times would not mean n", def)})
		}
		max := float64(projector.MaxCount)
		p.Kind, p.Arity, p.Minimum, p.Maximum = projector.KindInteger, projector.ArityCount, new(float64), &max
		if hasDefault {
			p.Default = int64(0)
		}
		return p
	}

	// store and append take values of the option's type.
	typ := "string"
	if o.Type != nil {
		typ = *o.Type
	}
	switch {
	case typ == "string":
	case typ == "int" || typ == "long":
		p.Kind = projector.KindInteger
	case typ == "float":
		p.Kind = projector.KindNumber
	case typ == "choice":
		if o.BadChoices || len(o.Choices) == 0 {
			return fail(&projector.Unrepresentable{Action: o.Action, Type: typ, Reason: "the choices are not JSON strings"})
		}
		p.Choices = o.Choices
	case o.KnownType && typ == "complex":
		return fail(&projector.Unrepresentable{Action: o.Action, Type: typ, Reason: "complex numbers have no JSON form"})
	case slices.Contains(opts.StringTypes, typ):
		// The operator vouches the type reads a plain string.
	default:
		return fail(&projector.Unrepresentable{Action: o.Action, Type: typ, Reason: fmt.Sprintf("type %q is not optparse's own: its checker is the program's code (Options.StringTypes vouches for one that reads a plain string)", typ)})
	}
	if !o.KnownType && !slices.Contains(opts.StringTypes, typ) {
		return fail(&projector.Unrepresentable{Action: o.Action, Type: typ, Reason: fmt.Sprintf("type %q has a checker of the program's own", typ)})
	}
	n := 1
	if o.Nargs != nil {
		n = *o.Nargs
	}
	if n < 1 {
		return fail(&projector.Unrepresentable{Action: o.Action, Reason: fmt.Sprintf("nargs=%d", n)})
	}
	switch o.Action {
	case "store":
		if n > 1 {
			p.Arity, p.N = projector.ArityExactly, n
			return p
		}
		if hasDefault {
			if ofKind(p.Kind, def) {
				p.Default = def
			}
		}
		return p
	case "append":
		// optparse appends to the default list itself: a non-empty one
		// would be part of every parsed value.
		if l, ok := def.([]any); hasDefault && (!ok || len(l) > 0) {
			return fail(&projector.Unrepresentable{Action: "append", Reason: fmt.Sprintf("append onto the default %v: the parsed list would hold the default too", def)})
		}
		p.Arity = projector.ArityRepeated
		if n > 1 {
			p.Arity, p.N = projector.ArityRepeatedTuple, n
		}
		if hasDefault {
			p.Default = []any{}
		} else {
			// Without a default, none given parses as None, not []:
			// the empty list cannot be spelled.
			p.MinItems = 1
		}
		return p
	}
	return fail(&projector.Unrepresentable{Action: o.Action, Reason: fmt.Sprintf("action %q takes no value the model knows", o.Action)})
}

// ofKind reports whether v is a scalar of kind k as the model holds it.
func ofKind(k projector.Kind, v any) bool {
	switch v.(type) {
	case string:
		return k == projector.KindString
	case int64:
		return k == projector.KindInteger || k == projector.KindNumber
	case float64:
		return k == projector.KindNumber
	}
	return false
}
