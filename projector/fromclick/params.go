package fromclick

import (
	"fmt"
	"math"
	"regexp"
	"slices"
	"strings"

	"github.com/verbsurface/verbsurface/projector"
	"github.com/verbsurface/verbsurface/projector/internal/pywalk"
)

// knownParamClasses are the parameter classes whose processing is click's
// own (Typer's subclasses change help rendering only).
var knownParamClasses = map[string]bool{
	"click.core.Option": true, "click.core.Argument": true,
	"typer.core.TyperOption": true, "typer.core.TyperArgument": true,
}

// paramOf maps one visible click parameter of c to a model parameter.
func paramOf(rp *rawParam, c *rawCommand, opts *Options) *projector.Param {
	p := &projector.Param{
		Name:     rp.Name,
		Options:  slices.Clone(rp.Opts),
		Kind:     projector.KindString,
		Arity:    projector.ArityOne,
		Required: rp.Required,
		Help:     deprecatedLabel(str(rp.Help), rp.Deprecated),
		Action:   rp.Class,
	}
	if rp.Type != nil {
		p.Type = rp.Type.Class
	}
	if rp.Metavar != nil {
		p.Metavar = *rp.Metavar
	}
	unrep := func(format string, args ...any) *projector.Param {
		p.Unrepresentable = &projector.Unrepresentable{Action: rp.Class, Type: p.Type, Reason: fmt.Sprintf(format, args...)}
		p.Choices, p.Default = nil, nil
		return p
	}
	option := rp.ParamType == "option"
	if !option {
		p.Options = nil
	}
	switch {
	case rp.ParamType == "other" || !knownParamClasses[rp.Class]:
		return unrep("parameter class %s is not click's Option or Argument: how it processes values is its own", rp.Class)
	case rp.IsEager && rp.Callback != nil && str(rp.CallbackKnown) == "" && !slices.Contains(opts.Callbacks, *rp.Callback):
		// (Eagerness alone only orders processing, which matters only
		// to callbacks.)
		return unrep("%s is eager (is_eager=True) with callback %s and not help or version: it is processed before the others, typically to print something and exit, or to change the others' defaults", describe(rp), *rp.Callback)
	case rp.Callback != nil && str(rp.CallbackKnown) == "" && !slices.Contains(opts.Callbacks, *rp.Callback):
		return unrep("%s has callback %s, which may change what the value means (list it in Options.Callbacks if it only validates)", describe(rp), *rp.Callback)
	case rp.Prompt && rp.HideInput:
		return unrep("%s prompts for hidden input (a secret): given as an argument, the value would be visible to every local user in the process list", describe(rp))
	}
	if rp.Prompt {
		// click prompts on stdin for a missing value; the surface has no
		// terminal to answer it, so the value is always given instead.
		p.Required = true
	}

	// Flags.
	if rp.Count {
		p.Kind, p.Arity = projector.KindInteger, projector.ArityCount
		max := float64(projector.MaxCount)
		if rp.Type.known() == "int_range" {
			if m, ok := number(rp.Type.Max); ok && m < max {
				max = m
			}
			if m, ok := number(rp.Type.Min); ok && m > 0 {
				return unrep("count=True with a minimum of %v: 0 repetitions would be refused", m)
			}
		}
		p.Maximum = &max
		switch d, ok := plainValue(rp.Default); {
		case !ok:
		case d == int64(0):
			p.Default = int64(0)
		default:
			return unrep("the count defaults to %v, so 0 repetitions (nothing rendered) would give the default instead of 0", d)
		}
		if rp.Envvar {
			p.Default = nil
		}
		return p
	}
	if rp.IsFlag {
		if rp.Multiple {
			return unrep("a flag with multiple=True stores a list of its flag_value, one per repetition")
		}
		p.Kind, p.Arity = projector.KindBoolean, projector.ArityNone
		if rp.IsBoolFlag {
			p.FlagValue = true
			if len(rp.SecondaryOpts) > 0 {
				p.NegOptions = slices.Clone(rp.SecondaryOpts)
			} else if fv, ok := plainValue(rp.FlagValue); ok {
				b, isBool := fv.(bool)
				if !isBool {
					return unrep("boolean flag with flag_value %v", fv)
				}
				p.FlagValue = b
			}
			d, isBool := plainValue(rp.Default)
			if b, ok := d.(bool); ok && isBool && !rp.Envvar {
				p.Default = b
			}
			if len(p.NegOptions) == 0 && p.Default != !p.FlagValue {
				// The flag spells FlagValue; the other value only by
				// saying nothing, which works only if it is the default
				// (and no environment variable of the server's may
				// replace the default).
				p.Choices = []any{p.FlagValue}
			}
		} else {
			// flag_value X: true gives the flag, storing X.
			p.FlagValue, p.Default = true, false
			if fv, ok := plainValue(rp.FlagValue); ok {
				p.Const = fv
			}
		}
		if str(rp.CallbackKnown) == "confirmation" || rp.Prompt {
			// Without the flag click asks on stdin: the caller must give it.
			p.Required, p.Choices, p.Default = true, []any{p.FlagValue}, nil
			if len(p.NegOptions) > 0 {
				p.Choices = nil
			}
		}
		return p
	}

	// Values: the type first.
	item, u := typeOf(rp.Type, rp, opts)
	if u != nil {
		p.Unrepresentable = u
		return p
	}
	p.Kind, p.Pattern, p.Choices, p.Minimum, p.Maximum, p.Path = item.kind, item.pattern, item.choices, item.min, item.max, item.path
	p.Forbidden, p.Elements = item.forbidden, item.elements
	n := rp.Nargs
	if item.tupleN > 0 {
		if n != item.tupleN && n != 1 {
			return unrep("nargs=%d with a Tuple of %d types", n, item.tupleN)
		}
		n = item.tupleN
	}
	switch {
	case !option && n == -1:
		p.Arity = projector.ArityZeroOrMore
		if rp.Required {
			p.Arity = projector.ArityOneOrMore
		}
	case n < 1:
		return unrep("nargs=%d", n)
	case rp.Multiple && n > 1:
		if p.Path != projector.PathUseNone {
			// The surface confines a path or a list of paths, not paths
			// inside tuples.
			return unrep("multiple=True with nargs=%d of paths: a list of %d-tuples of paths, which the surface cannot confine to its roots", n, n)
		}
		p.Arity, p.N = projector.ArityRepeatedTuple, n
	case rp.Multiple:
		p.Arity = projector.ArityRepeated
	case n > 1:
		p.Arity, p.N = projector.ArityExactly, n
	case !option && !rp.Required:
		p.Arity = projector.ArityOptional
	}
	if rp.FlagNeedsValue {
		if p.Arity != projector.ArityOne {
			return unrep("an option whose value may be omitted (is_flag=False with a flag_value) must take exactly one value")
		}
		// The value may be omitted: click then reads a next word that
		// looks like an option ("-x", even glued as --opt=-x) as no
		// value, so no value may look like one.
		switch p.Kind {
		case projector.KindString:
			if p.Pattern != "" && p.Pattern != projector.NoNULPattern {
				return unrep("an option whose value may be omitted, with a constrained string type")
			}
			p.Pattern = noOptionLike(c.OptPrefixes)
		case projector.KindInteger, projector.KindNumber:
			if p.Minimum == nil || *p.Minimum < 0 {
				zero := 0.0
				p.Minimum = &zero
			}
		}
		if !rp.Prompt {
			// The bare option stores flag_value (with a prompt it would ask).
			p.Bare = true
			if fv, ok := plainValue(rp.FlagValue); ok {
				p.Const = fv
			}
		}
	}
	if !rp.Envvar {
		if d, ok := plainValue(rp.Default); ok {
			p.Default = defaultFor(p, d)
		} else if p.Arity == projector.ArityRepeated || p.Arity == projector.ArityRepeatedTuple || p.Arity == projector.ArityZeroOrMore {
			p.Default = []any{} // click gives an empty tuple for none given
		}
	}
	if p.Required {
		p.Default = nil
		if p.Arity == projector.ArityRepeated || p.Arity == projector.ArityRepeatedTuple {
			// click reports a required multiple option given no
			// occurrence as missing: the empty list cannot be said.
			p.MinItems = 1
		}
	}
	if d, ok := p.Default.([]any); ok && len(d) > 0 && (p.Arity == projector.ArityRepeated || p.Arity == projector.ArityRepeatedTuple) {
		// No occurrence gives the default back, so the empty list
		// cannot be said.
		p.MinItems = 1
	}
	return p
}

// defaultFor keeps a default only when it is a value of the parameter's
// shape (a list for an array, a scalar otherwise).
func defaultFor(p *projector.Param, d any) any {
	list, isList := d.([]any)
	switch p.Arity {
	case projector.ArityExactly:
		// A Tuple type's default is not converted by the walker, so its
		// values may not even be of the kind.
		if !isList || !tupleOfKinds(p, list) {
			return nil
		}
		return list
	case projector.ArityRepeated, projector.ArityZeroOrMore, projector.ArityOneOrMore:
		if !isList {
			return nil
		}
		return list
	case projector.ArityRepeatedTuple:
		// A list of N-lists, or no default the schema can state.
		for _, t := range list {
			if tuple, ok := t.([]any); !ok || !tupleOfKinds(p, tuple) {
				return nil
			}
		}
		if !isList {
			return nil
		}
		return list
	}
	if isList {
		return nil
	}
	return d
}

// tupleOfKinds reports whether tuple has p.N values, each of its
// position's kind.
func tupleOfKinds(p *projector.Param, tuple []any) bool {
	if len(tuple) != p.N {
		return false
	}
	for i, x := range tuple {
		if !ofKind(p.Element(i).Kind, x) {
			return false
		}
	}
	return true
}

// ofKind reports whether a decoded default value x is a value of kind k.
func ofKind(k projector.Kind, x any) bool {
	switch x.(type) {
	case string:
		return k == projector.KindString
	case bool:
		return k == projector.KindBoolean
	case int64:
		return k == projector.KindInteger || k == projector.KindNumber
	case float64:
		return k == projector.KindNumber
	}
	return false
}

// noOptionLike is the pattern of a string that click's parser does not
// take for an option: empty, one prefix character alone, or not starting
// with a prefix character.
func noOptionLike(prefixes []string) string {
	chars := map[rune]bool{'-': true}
	for _, p := range prefixes {
		for _, r := range p {
			chars[r] = true
		}
	}
	var class strings.Builder
	for _, r := range slices.Sorted(mapsKeys(chars)) {
		if strings.ContainsRune(`\]^-[`, r) {
			class.WriteByte('\\')
		}
		class.WriteRune(r)
	}
	return fmt.Sprintf(`^(?:[%[1]s]|[^%[1]s\x00][^\x00]*)?$`, class.String())
}

func mapsKeys(m map[rune]bool) func(func(rune) bool) {
	return func(yield func(rune) bool) {
		for k := range m {
			if !yield(k) {
				return
			}
		}
	}
}

type itemType struct {
	kind      projector.Kind
	pattern   string
	choices   []any
	min, max  *float64
	path      projector.PathUse
	forbidden []any
	tupleN    int
	// elements states each position of a Tuple whose items differ in
	// kind or carry constraints (Param.Elements).
	elements []projector.Element
}

// uuidPattern is the hyphenated form uuid.UUID reads (it also reads others;
// the schema offers this one).
const uuidPattern = `^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$`

// datePattern is a valid proleptic Gregorian date, years 0001-9999, in the
// zero-padded form %Y-%m-%d reads (strptime also reads unpadded ones).
const datePattern = `(?:(?:000[1-9]|00[1-9]\d|0[1-9]\d{2}|[1-9]\d{3})-(?:(?:0[13578]|1[02])-(?:0[1-9]|[12]\d|3[01])|(?:0[469]|11)-(?:0[1-9]|[12]\d|30)|02-(?:0[1-9]|1\d|2[0-8]))|(?:\d{2}(?:0[48]|[2468][048]|[13579][26])|(?:0[48]|[2468][048]|[13579][26])00)-02-29)`

const timePattern = `(?:[01]\d|2[0-3]):[0-5]\d:[0-5]\d`

// dateTimeFormats are the strptime formats whose values a pattern states
// exactly (click.DateTime's defaults).
var dateTimeFormats = map[string]string{
	"%Y-%m-%d":          datePattern,
	"%Y-%m-%dT%H:%M:%S": datePattern + "T" + timePattern,
	"%Y-%m-%d %H:%M:%S": datePattern + " " + timePattern,
}

// typeOf maps a click type to a value kind and its constraints, or says
// why it cannot be.
func typeOf(t *rawType, rp *rawParam, opts *Options) (itemType, *projector.Unrepresentable) {
	out := itemType{kind: projector.KindString}
	if t == nil {
		return out, nil
	}
	unrep := func(format string, args ...any) (itemType, *projector.Unrepresentable) {
		return out, &projector.Unrepresentable{Action: rp.Class, Type: t.Class, Reason: fmt.Sprintf(format, args...)}
	}
	if t.OverridesConv {
		return unrep("type %s subclasses click's %s and converts values its own way", t.Class, t.known())
	}
	switch t.known() {
	case "string", "unprocessed":
	case "int":
		out.kind = projector.KindInteger
	case "float":
		out.kind = projector.KindNumber
	case "bool":
		out.kind = projector.KindBoolean
	case "uuid":
		out.pattern = uuidPattern
	case "int_range", "float_range":
		out.kind = projector.KindInteger
		step := 1.0
		if t.known() == "float_range" {
			out.kind, step = projector.KindNumber, 0
		}
		if m, ok := number(t.Min); ok {
			if t.MinOpen {
				// x > m: the least value above m (for floats the next
				// float64, so the bound is exact).
				m = nextUp(m, step)
			}
			out.min = &m
		}
		if m, ok := number(t.Max); ok {
			if t.MaxOpen {
				m = -nextUp(-m, step)
			}
			out.max = &m
		}
		// clamp=True would change an out-of-range value into the bound;
		// the schema admits only values click keeps as given.
	case "choice":
		if t.Choices == nil {
			return unrep("choices %s are not plain strings or numbers", str(t.ChoicesRepr))
		}
		out.choices = pywalk.Numbers(t.Choices).([]any)
		out.kind = choiceKind(out.choices)
		if out.kind == "" {
			return unrep("choices %v mix kinds", t.Choices)
		}
	case "path":
		out.path = projector.PathUseRead
		switch {
		case t.DirOkay && !t.FileOkay:
			out.path = projector.PathUseDir
		case t.Writable || namesOutput(rp):
			out.path = projector.PathUseWrite
		case t.DirOkay:
			// click.Path's default: a file or a directory, both read
			// (black's SRC, sqlfluff's PATH). Marked read, a directory
			// the program accepts would be refused.
			out.path = projector.PathUseReadOrDir
		}
		// "-" is a standard stream (allow_dash), which the surface has
		// none to hand over; "" names no file.
		out.forbidden = []any{"-", ""}
	case "file":
		out.path = projector.PathUseRead
		if strings.ContainsAny(t.Mode, "wax+") {
			out.path = projector.PathUseWrite
		}
		out.forbidden = []any{"-", ""}
	case "datetime":
		var alts []string
		for _, f := range t.Formats {
			pat, ok := dateTimeFormats[f]
			if !ok {
				return unrep("DateTime format %q: the schema cannot state which strings strptime reads with it", f)
			}
			alts = append(alts, pat)
		}
		if len(alts) == 0 {
			return unrep("DateTime without formats")
		}
		out.pattern = "^(?:" + strings.Join(alts, "|") + ")$"
	case "tuple":
		var elems []projector.Element
		plain := true // every item a plain value of one kind
		for _, it := range t.Types {
			sub, u := typeOf(it, rp, opts)
			if u != nil {
				return out, u
			}
			if sub.path != "" {
				// The surface confines a path or a list of paths, not
				// one position of a tuple.
				return unrep("a Tuple with a path item (%s): the surface confines whole values to its roots, not one position of a tuple", it.Class)
			}
			if sub.tupleN > 0 {
				return unrep("a Tuple inside a Tuple")
			}
			if sub.pattern != "" || sub.choices != nil || sub.min != nil || sub.max != nil || sub.forbidden != nil ||
				len(elems) > 0 && sub.kind != elems[0].Kind {
				plain = false
			}
			elems = append(elems, projector.Element{Kind: sub.kind, Type: it.Class, Choices: sub.choices, Pattern: sub.pattern,
				Forbidden: sub.forbidden, Minimum: sub.min, Maximum: sub.max})
		}
		if len(elems) == 0 {
			return unrep("an empty Tuple")
		}
		out.kind, out.tupleN = elems[0].Kind, len(elems)
		if !plain {
			out.elements = elems
		}
	default:
		if slices.Contains(opts.StringTypes, t.Class) {
			return out, nil // vouched for by the operator: a plain string
		}
		return unrep("custom ParamType %s (%q): the schema cannot state what its convert accepts or does with the string (list it in Options.StringTypes if it reads a plain string)", t.Class, str(t.Name))
	}
	return out, nil
}

func choiceKind(choices []any) projector.Kind {
	var kind projector.Kind
	for _, c := range choices {
		var k projector.Kind
		switch c.(type) {
		case string:
			k = projector.KindString
		case int64:
			k = projector.KindInteger
		case float64:
			k = projector.KindNumber
		default:
			return ""
		}
		if kind == projector.KindInteger && k == projector.KindNumber || kind == projector.KindNumber && k == projector.KindInteger {
			k = projector.KindNumber
		} else if kind != "" && k != kind {
			return ""
		}
		kind = k
	}
	if kind == projector.KindNumber {
		for i, c := range choices {
			if n, ok := c.(int64); ok {
				choices[i] = float64(n)
			}
		}
	}
	return kind
}

// nextUp is the least value above m: m+1 for integers (step 1), the next
// float64 otherwise.
func nextUp(m, step float64) float64 {
	if step > 0 {
		return m + step
	}
	return math.Nextafter(m, math.Inf(1))
}

var outputWords = regexp.MustCompile(`^(out|output|outfile|outdir|outpath|dest|destination)$`)

// namesOutput reports whether a path parameter's name or an option names
// an output (as fromargparse decides for pathlib paths).
func namesOutput(rp *rawParam) bool {
	for _, n := range append([]string{rp.Name}, rp.Opts...) {
		for _, w := range strings.FieldsFunc(strings.ToLower(n), func(r rune) bool { return r == '-' || r == '_' || r == '/' }) {
			if outputWords.MatchString(w) {
				return true
			}
		}
	}
	return false
}

func number(v any) (float64, bool) {
	switch x := pywalk.Numbers(v).(type) {
	case int64:
		return float64(x), true
	case float64:
		return x, true
	}
	return 0, false
}

// plainValue decodes a walker value that is plain JSON, not null (numbers
// as int64 or float64).
func plainValue(v rawValue) (any, bool) { return pywalk.PlainValue(v.Value) }
