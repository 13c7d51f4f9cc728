package fromargparse

import (
	"encoding/json"
	"fmt"
	"math"
	"strings"

	"github.com/verbsurface/verbsurface/projector"
	"github.com/verbsurface/verbsurface/projector/internal/pywalk"
)

// actionParam maps one visible argparse action to a parameter. fromfile is
// the fromfile_prefix_chars of the parser and its ancestors; negOptionals
// says the parser has an option that looks like a negative number (so
// argparse reads "-5" as an option, not a value).
func actionParam(a *rawAction, fromfile string, negOptionals bool) *projector.Param {
	p := &projector.Param{
		Name:     a.Dest,
		Options:  append([]string(nil), a.OptionStrings...),
		Kind:     projector.KindString,
		Arity:    projector.ArityOne,
		Required: a.Required,
		Action:   actionName(a),
	}
	if a.Help != nil {
		p.Help = *a.Help
	}
	if a.Type != nil {
		p.Type = a.Type.Name
	}
	if a.Metavar != nil {
		p.Metavar = *a.Metavar
	}
	unrep := func(format string, args ...any) *projector.Param {
		p.Unrepresentable = &projector.Unrepresentable{Action: actionName(a), Reason: fmt.Sprintf(format, args...)}
		p.Choices, p.Default = nil, nil
		return p
	}
	positional := len(a.OptionStrings) == 0

	switch known(a) {
	case "store_true", "store_false":
		p.Kind, p.Arity, p.Type = projector.KindBoolean, projector.ArityNone, ""
		p.FlagValue = known(a) == "store_true"
		// The flag spells FlagValue; the other value only by saying
		// nothing, which works only if it is the default.
		if d, ok := jsonBool(a.Default); ok {
			p.Default = d
			if d == p.FlagValue {
				p.Choices = []any{p.FlagValue}
			}
		} else {
			p.Choices = []any{p.FlagValue}
		}
		return p
	case "BooleanOptionalAction":
		p.Kind, p.Arity, p.Type, p.FlagValue = projector.KindBoolean, projector.ArityNone, "", true
		p.Options = nil
		for _, o := range a.OptionStrings {
			if strings.HasPrefix(o, "--no-") {
				p.NegOptions = append(p.NegOptions, o)
			} else {
				p.Options = append(p.Options, o)
			}
		}
		if len(p.Options) == 0 || len(p.NegOptions) == 0 {
			return unrep("BooleanOptionalAction without both a positive and a --no- option string")
		}
		if d, ok := jsonBool(a.Default); ok {
			p.Default = d
		}
		return p
	case "store":
	case "append", "extend":
	case "count":
		// An integer from 0 to MaxCount, rendered as the flag repeated:
		// exactly what the action stores when it starts from nothing.
		p.Kind, p.Arity, p.Type = projector.KindInteger, projector.ArityCount, ""
		p.Maximum = f64(projector.MaxCount)
		switch d, ok := plainValue(a.Default); {
		case !ok && a.Default.Unjsonable == nil:
		case ok && d == int64(0):
			p.Default = int64(0)
		default:
			return unrep("the count action adds to its default %s, so the number of repetitions is not the value stored", rawText(a.Default))
		}
		return p
	case "store_const", "append_const":
		// A flag: true stores const (append_const: appends it). The
		// schema says true or false; const is recorded for messages.
		p.Kind, p.Arity, p.Type, p.FlagValue = projector.KindBoolean, projector.ArityNone, "", true
		p.Default = false
		if c, ok := plainValue(a.Const); ok {
			p.Const = c
		}
		return p
	case "":
		return unrep("unknown Action subclass %s: what it does with its values is not known", a.Class)
	default:
		return unrep("action %s is not in the projected subset", known(a))
	}

	// The value type: only the plain scalars parse a word into a value
	// the schema can describe.
	switch {
	case a.Type == nil:
		p.Kind = projector.KindString
	case a.Type.Path != "":
		// A string naming a file: marked as a path so a surface confines
		// it to its roots. "-" is refused: FileType reads it as a
		// standard stream, which the surface has none to hand over. ""
		// names no file (pathlib reads it as ".", the working directory).
		// A pathlib class normalises the string (a//b/./c/ is a/b/c),
		// which names the same file.
		p.Kind, p.Path = projector.KindString, pathUse(a)
		p.Forbidden = append(p.Forbidden, "-", "")
	case a.Type.Name == "bool":
		// bool("false") is True: every non-empty word is true, so no
		// schema says what the CLI makes of a value.
		p.Unrepresentable = &projector.Unrepresentable{Action: actionName(a), Type: a.Type.Name,
			Reason: "type=bool reads every non-empty word as True; use action=\"store_true\" or BooleanOptionalAction"}
		return p
	case a.Type.Scalar == nil:
		// Any other type callable reads one word: the caller gives that
		// string, and the callable is the final validator (argparse
		// reports its refusal as a usage error at parse time). Its
		// choices, though, are converted values the schema cannot list.
		if a.Choices != nil {
			return unrep("choices of a type callable (%s) are converted values, not the strings a caller gives", a.Type.Name)
		}
		p.Kind = projector.KindString
	default:
		p.Kind = map[string]projector.Kind{"int": projector.KindInteger, "float": projector.KindNumber, "str": projector.KindString}[*a.Type.Scalar]
	}

	// Arity.
	spaced := false // values are separate argv words (not glued by "=")
	switch n := a.Nargs.(type) {
	case nil:
		if known(a) == "extend" {
			return unrep("extend without nargs extends the list by the characters of the string")
		}
		if known(a) == "append" {
			p.Arity = projector.ArityRepeated
			if positional {
				// A positional is matched once: append stores a list
				// of exactly its one word.
				p.Arity, p.N = projector.ArityExactly, 1
			}
		}
	case string:
		switch {
		case n == "?" && known(a) == "store":
			p.Arity = projector.ArityOptional
			if !positional {
				// Given bare, the option stores const: the schema
				// admits true for that spelling.
				p.Bare = true
				if c, ok := plainValue(a.Const); ok {
					p.Const = c
				}
			}
		case (n == "*" || n == "+") && known(a) == "extend" && positional:
			// A positional is matched once: extend stores its words as
			// store would.
			p.Arity, spaced = map[string]projector.Arity{"*": projector.ArityZeroOrMore, "+": projector.ArityOneOrMore}[n], true
		case (n == "*" || n == "+") && known(a) == "extend":
			p.Arity = projector.ArityRepeated // --opt=v once per value
		case n == "*" && known(a) == "store":
			p.Arity, spaced = projector.ArityZeroOrMore, true
		case n == "+" && known(a) == "store":
			p.Arity, spaced = projector.ArityOneOrMore, true
		case n == "...":
			return unrep("nargs=REMAINDER hands the rest of argv over unparsed")
		case n == "A...":
			return unrep("nargs=PARSER hands the rest of argv to another parser")
		default:
			return unrep("%s with nargs=%q collects lists of lists", known(a), n)
		}
	case json.Number:
		count, err := n.Int64()
		switch {
		case err != nil || count < 1 || known(a) != "store" && (known(a) != "append" || positional):
			return unrep("%s with nargs=%s is not in the projected subset", known(a), n)
		case known(a) == "append":
			// A list of count-lists, one per occurrence, each spelled
			// --opt v1 .. vN (separate words, even for nargs=1).
			p.Arity, p.N = projector.ArityRepeatedTuple, int(count)
			spaced = true
		default:
			p.Arity, p.N = projector.ArityExactly, int(count)
			spaced = count > 1
		}
	default:
		return unrep("nargs %v not understood", a.Nargs)
	}
	if positional {
		spaced = true
		switch p.Arity {
		case projector.ArityOne, projector.ArityExactly, projector.ArityOneOrMore:
			p.Required = true
		}
	}

	// Choices.
	if c := a.Choices; c != nil {
		switch {
		case c.Unjsonable != nil:
			return unrep("choices %s cannot be listed as JSON values", *c.Unjsonable)
		case c.Range != nil:
			lo, ok1 := jsonInt(c.Range[0])
			hi, ok2 := jsonInt(c.Range[1])
			if p.Kind != projector.KindInteger || !ok1 || !ok2 {
				return unrep("a range of choices for a non-integer parameter")
			}
			p.Minimum, p.Maximum = f64(float64(lo)), f64(float64(hi))
		case len(c.Values) == 0:
			return unrep("an empty choices list admits no value")
		default:
			for _, v := range c.Values {
				cv, ok := scalarOf(p.Kind, v)
				if !ok {
					return unrep("choice %v is not a %s, the parameter's type", v, p.Kind)
				}
				p.Choices = append(p.Choices, cv)
			}
		}
	}

	// Default (what argparse stores when the parameter is omitted).
	if d, ok := defaultOf(p, a); ok {
		p.Default = d
	}
	switch {
	case p.Arity == projector.ArityRepeated || p.Arity == projector.ArityRepeatedTuple:
		switch d := p.Default.(type) {
		case nil:
			// Omitted leaves None; an empty list has no spelling.
			p.MinItems = 1
		case []any:
			if len(d) > 0 {
				return unrep("%s adds to its non-empty default list, so the parsed list is never just the given values", known(a))
			}
		}
		if a.Default.Value != nil && string(a.Default.Value) != "null" && p.Default == nil {
			return unrep("%s with a default that is not a list", known(a))
		}
	case positional && (known(a) == "append" || known(a) == "extend") && len(listOf(p.Default)) > 0:
		return unrep("%s adds to its non-empty default list, so the parsed list is never just the given values", known(a))
	case positional && p.Arity == projector.ArityZeroOrMore && a.Choices == nil && len(listOf(p.Default)) > 0:
		// An omitted '*' positional stores its default, and so does one
		// given no words: the empty list has no spelling.
		p.MinItems = 1
	case positional && p.Arity == projector.ArityZeroOrMore && a.Choices == nil && p.Default == nil:
		// argparse marks such a positional required, yet reads zero
		// words: omitting it is the same as giving [], and a run of
		// optional positionals before it stays optional.
		p.Required = false
		if a.Default.Suppress {
			// Under argument_default=SUPPRESS zero words store nothing
			// at all: the empty list has no spelling.
			p.MinItems = 1
		} else {
			p.Default = []any{} // what argparse stores for an omitted '*' positional without default
		}
	case positional && p.Arity == projector.ArityZeroOrMore && a.Choices != nil:
		// Python 3.11 checks an omitted '*' positional's default against
		// the choices, and the empty list is never a choice.
		p.Required, p.MinItems = true, 1
	case positional && p.Arity == projector.ArityOptional && a.Choices != nil && p.Default != nil:
		if _, err := choiceCheck(p, p.Default); err != nil {
			p.Required = true // omitted, argparse checks the default against the choices and fails
		}
	case positional && p.Arity == projector.ArityOptional:
		p.Required = false // '?' reads zero words, whatever the action says
	}

	// Constraints that keep every accepted value a value argparse reads
	// back exactly.
	if p.Kind == projector.KindString {
		// argparse 3.11 removes the first "--" from an argument's values.
		p.Forbidden = append(p.Forbidden, "--")
		lead := ""
		if spaced && !positional {
			lead = "-" // a separate word starting with '-' would be read as an option
		}
		if spaced {
			lead += fromfile // a separate word starting with these is read as a file of arguments
		}
		if lead != "" {
			p.Pattern = `^(?:[^` + classChars(lead) + `\x00][^\x00]*)?$`
		}
	}
	if spaced && !positional && negOptionals && (p.Kind == projector.KindInteger || p.Kind == projector.KindNumber) {
		// The parser has an option like -1, so "-5" after a space is an
		// option: only non-negative values can be separate words.
		if p.Minimum == nil || *p.Minimum < 0 {
			p.Minimum = f64(0)
		}
	}
	return p
}

func f64(v float64) *float64 { return &v }

// pathUse decides how a path-typed action's value is used. FileType says so
// by its mode. A pathlib.Path says nothing; it is taken as a file the CLI
// reads unless its dest or option strings name an output ("out", "output",
// "outfile", "outdir", ...): a file it reads is the common case, and a
// surface confines both to its roots alike.
func pathUse(a *rawAction) projector.PathUse {
	switch a.Type.Path {
	case "read":
		return projector.PathUseRead
	case "write":
		return projector.PathUseWrite
	}
	names := append([]string{a.Dest}, a.OptionStrings...)
	for _, n := range names {
		for _, w := range strings.FieldsFunc(strings.ToLower(n), func(r rune) bool { return r == '-' || r == '_' }) {
			switch w {
			case "out", "output", "outfile", "outdir", "outpath":
				return projector.PathUseWrite
			}
		}
	}
	return projector.PathUseRead
}

// plainValue decodes a walker value that is plain JSON (numbers as int64 or
// float64).
func plainValue(v rawValue) (any, bool) { return pywalk.PlainValue(v.Value) }

func rawText(v rawValue) string {
	if v.Unjsonable != nil {
		return *v.Unjsonable
	}
	return string(v.Value)
}

func jsonBool(v rawValue) (bool, bool) {
	if v.Value == nil || string(v.Value) == "null" {
		return false, false
	}
	var b bool
	err := json.Unmarshal(v.Value, &b)
	return b, err == nil
}

func jsonInt(v any) (int64, bool) {
	n, ok := v.(json.Number)
	if !ok {
		return 0, false
	}
	i, err := n.Int64()
	return i, err == nil
}

// scalarOf converts a decoded JSON scalar to the parameter kind's Go value
// (int64, float64, string), if it is one.
func scalarOf(kind projector.Kind, v any) (any, bool) {
	switch kind {
	case projector.KindString:
		s, ok := v.(string)
		return s, ok
	case projector.KindInteger:
		if i, ok := jsonInt(v); ok && math.Abs(float64(i)) <= projector.MaxSafeInteger {
			return i, true
		}
	case projector.KindNumber:
		if n, ok := v.(json.Number); ok {
			f, err := n.Float64()
			return f, err == nil
		}
	}
	return nil, false
}

// defaultOf reads the default in the parameter's shape, if it has one.
func defaultOf(p *projector.Param, a *rawAction) (any, bool) {
	if a.Default.Value == nil {
		return nil, false
	}
	dec := json.NewDecoder(strings.NewReader(string(a.Default.Value)))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil || v == nil {
		return nil, false
	}
	switch p.Arity {
	case projector.ArityOne, projector.ArityOptional:
		return scalarOf(p.Kind, v)
	}
	list, ok := v.([]any)
	if !ok {
		return nil, false
	}
	out := make([]any, 0, len(list))
	for _, x := range list {
		s, ok := scalarOf(p.Kind, x)
		if !ok {
			return nil, false
		}
		out = append(out, s)
	}
	return out, true
}

func choiceCheck(p *projector.Param, v any) (any, error) {
	for _, c := range p.Choices {
		if c == v {
			return v, nil
		}
	}
	return nil, fmt.Errorf("not a choice")
}

func listOf(v any) []any {
	l, _ := v.([]any)
	return l
}
