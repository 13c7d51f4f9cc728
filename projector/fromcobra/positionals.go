package fromcobra

import (
	"fmt"
	"reflect"
	"regexp"
	"strconv"
	"strings"
	"unicode"

	"github.com/spf13/cobra"

	"github.com/verbsurface/verbsurface/projector"
)

// probeExtra is how many counts beyond the Use line's largest the Args
// validator is probed with; probeMin is the fewest counts probed one by one.
// A validator that accepts every count up to there is probed at probeFar:
// accepting that too, it is taken to have no upper end (no argv that long
// reaches a CLI); rejecting it, its upper end is found by bisection.
const (
	probeExtra = 3
	probeMin   = 16
	probeFar   = 1 << 12
)

// placeholders is the probe list for the usual placeholder, shared and
// never written: Args validators read their argument list (cobra's own
// never write to it), and each gets a capped prefix.
var placeholders = repeat("arg", probeFar)

// maxOptionalPositionals bounds how many optional positionals a bounded
// validator range (cobra.RangeArgs(0, 20)) is offered as: the first ones
// only, which the CLI accepts all the same.
const maxOptionalPositionals = 4

// useToken is one positional word of a Use line, as far as it can be read.
type useToken struct {
	text     string
	name     string // sanitized; "" when the word names nothing ("[...]")
	optional bool   // in square brackets
	variadic bool   // "..." anywhere in it
}

// simpleName is a Use-line word that is a name as it stands.
var simpleName = regexp.MustCompile(`^[A-Za-z][A-Za-z0-9_-]*$`)

// positionals reads a command's positional parameters. The Args validator
// is the parser: it is probed with 0, 1, 2, … arguments to find how many it
// accepts (a range, or a range with no upper end). The Use line is
// documentation: it names the positionals where its words parse (NAME,
// <NAME>, [NAME], NAME..., [NAME...]), sanitized where they are prose
// (<file|url> → file_or_url, [ITEM1 [ITEM2 ...]] → item1), and generic
// names (arg1, args) are the last resort. When the Use line's own grammar
// (required words, then optional ones, then at most one variadic) gives a
// count range the validator accepts, that narrower range is offered;
// otherwise the validator's range is, under the Use line's names. A
// disagreement between the two is settled by the validator, never a
// refusal. What stays undeterminable: a validator whose accepted counts are
// not a range, or that reads the values themselves and accepts no count of
// placeholder values.
func positionals(c *cobra.Command) ([]*projector.Param, *projector.Unrepresentable) {
	tokens := useTokens(c.Use)
	grammatical, useMin, useMax := useRange(tokens) // useMax -1: no upper end

	validate := argsValidator(c)
	probe, bogus := "arg", "\x00not-a-valid-arg"
	if len(c.ValidArgs) > 0 {
		probe = strings.SplitN(c.ValidArgs[0], "\t", 2)[0]
	}
	limit := len(tokens) + probeExtra
	if useMax >= 0 && useMax+probeExtra > limit {
		limit = useMax + probeExtra
	}
	if limit < probeMin {
		limit = probeMin
	}
	// One list of placeholders serves every probe (a validator gets a
	// prefix, capped so that appending to it copies); for the usual probe
	// it is shared by every walk, so probing allocates nothing.
	probes := placeholders
	if probe != "arg" {
		probes = repeat(probe, limit)
	}
	args := func(n int) []string {
		if n > len(probes) {
			probes = repeat(probe, n)
		}
		return probes[:n:n]
	}
	accepted := make([]bool, limit+1)
	lo, hi := -1, -1
	open, none := knownOpen(c), knownNone(c)
	for n := 0; n <= limit; n++ {
		// With no validator below the root, or cobra.ArbitraryArgs,
		// every count is accepted by cobra's own definition, and with
		// cobra.NoArgs only none: no probe (NoArgs formats an error for
		// every count it rejects, a third of a large tree's walk).
		switch {
		case open:
			accepted[n] = true
		case none:
			accepted[n] = n == 0
		default:
			accepted[n] = validate(args(n))
		}
		if accepted[n] {
			if lo < 0 {
				lo = n
			} else if hi != n-1 {
				return nil, &projector.Unrepresentable{ByPositionals: true, Reason: fmt.Sprintf("positionals cannot be determined: the Args validator accepts %d and %d positional arguments but not %d; only a range of counts has a schema", hi, n, hi+1)}
			}
			hi = n
		}
	}
	if lo < 0 {
		return nil, &projector.Unrepresentable{ByPositionals: true, Reason: fmt.Sprintf("positionals cannot be determined: the Args validator accepts no count of positional arguments from 0 to %d (probed with %q); it reads the values themselves, so a schema cannot say how many it takes (cobra.ExactArgs, RangeArgs or MinimumNArgs say it)", limit, probe)}
	}
	min, max := lo, hi
	if hi == limit {
		if open || validate(args(probeFar)) {
			max = -1 // no upper end
		} else {
			// Accepted up to limit, rejected at probeFar: bisect for
			// the largest count accepted (the counts form a range).
			ok, bad := limit, probeFar
			for bad-ok > 1 {
				mid := (ok + bad) / 2
				if validate(args(mid)) {
					ok = mid
				} else {
					bad = mid
				}
			}
			max = ok
		}
	}
	if grammatical && useMin >= min && (max < 0 || useMax >= 0 && useMax <= max) {
		min, max = useMin, useMax // the Use line's narrower range, which the validator accepts
	}
	if !grammatical {
		tokens = nil // prose in an order that names nothing reliably: generic names
	}
	params := layout(tokens, min, max)

	// The validator enforces ValidArgs (cobra.OnlyValidArgs) when it
	// rejects a placeholder it accepts ValidArgs in place of: each
	// positional is then one of them.
	var choices []any
	if len(c.ValidArgs) > 0 {
		for n := 1; n <= limit; n++ {
			if accepted[n] && !validate(repeat(bogus, n)) {
				for _, v := range c.ValidArgs {
					choices = append(choices, strings.SplitN(v, "\t", 2)[0])
				}
				break
			}
		}
	}
	for _, p := range params {
		p.Choices = choices
	}
	return params, nil
}

// useTokens splits a Use line's positional part (after the command's name)
// into words, keeping bracketed groups together ("[name | id]" is one word),
// and leaves out [flags], [options] and flag-like words.
func useTokens(use string) []useToken {
	tokens, _ := readUseTokens(use, nil)
	return tokens
}

// readUseTokens is useTokens with an adapter's readings (see [UseReading];
// nil: none). err says why the line names nothing reliably.
func readUseTokens(use string, r *UseReading) ([]useToken, error) {
	var words []string
	depth, start := 0, -1
	runes := []rune(use)
	for i, rn := range runes {
		switch rn {
		case '[', '<', '{', '(':
			depth++
		case ']', '>', '}', ')':
			if depth > 0 {
				depth--
			}
		}
		if unicode.IsSpace(rn) && depth == 0 {
			if start >= 0 {
				words = append(words, string(runes[start:i]))
				start = -1
			}
			continue
		}
		if start < 0 {
			start = i
		}
	}
	if start >= 0 {
		words = append(words, string(runes[start:]))
	}
	if len(words) > 0 {
		words = words[1:] // the command's own name
	}
	isFlags := func(w string) bool {
		lw := strings.ToLower(strings.Trim(w, "[]."))
		return lw == "flags" || lw == "options"
	}
	var out []useToken
	for i := 0; i < len(words); i++ {
		w := words[i]
		if isFlags(w) {
			continue
		}
		if strings.HasPrefix(strings.TrimLeft(w, "[("), "-") {
			// An option, or a bracketed group that starts with one
			// ("[-f FILE]"): not a positional. A bare option word that
			// takes a value is followed by its value's placeholder
			// ("-f <file>"), which is not a positional either.
			if r != nil && r.ValueFlag != nil && w[0] == '-' && !strings.ContainsAny(w, "=[]()<>{}") {
				takes, known := r.ValueFlag(w)
				if !known {
					return nil, fmt.Errorf("it names the option %s, which the command does not have, so whether the word after it is that option's value or a positional cannot be told", w)
				}
				if takes && i+1 < len(words) && !isFlags(words[i+1]) && !strings.HasPrefix(strings.TrimLeft(words[i+1], "[("), "-") {
					i++
				}
			}
			continue
		}
		t := useToken{text: w, optional: strings.HasPrefix(w, "["), variadic: strings.Contains(w, "...") || strings.Contains(w, "…")}
		t.name = sanitizeName(w)
		out = append(out, t)
	}
	if r != nil && r.Repeats {
		// "<file> <file> <file>": the same word three times or more,
		// ending the line, is the spelling of "any number of them".
		run := 1
		for run < len(out) && out[len(out)-1-run].text == out[len(out)-1].text {
			run++
		}
		if run >= minRepeats && !out[len(out)-1].variadic {
			out = out[:len(out)-run+1]
			out[len(out)-1].variadic = true
		}
	}
	return out, nil
}

// minRepeats is how many times a word is repeated to mean "any number":
// twice is a count of its own ("diff FILE FILE" takes two).
const minRepeats = 3

// sanitizeName makes a schema name of a Use-line word: a plain name in snake
// case, alternatives joined by "_or_" (<file|url> → file_or_url), and for a
// nested group (ITEM1 [ITEM2 ...]) its first name.
func sanitizeName(w string) string {
	inner := strings.Trim(w, "[]<>{}().… ")
	inner = strings.TrimSuffix(inner, "...")
	inner = strings.Trim(inner, "[]<>{}(). ")
	if simpleName.MatchString(inner) {
		return snakeCase(inner)
	}
	if strings.Contains(inner, "|") && !strings.ContainsAny(inner, "[<{(") {
		var alts []string
		for _, a := range strings.Split(inner, "|") {
			if n := identifiers(a); len(n) > 0 {
				alts = append(alts, strings.Join(n, "_"))
			}
		}
		return strings.Join(alts, "_or_")
	}
	if ids := identifiers(inner); len(ids) > 0 {
		return ids[0]
	}
	return ""
}

// identifiers returns the snake-case names in s, in order.
func identifiers(s string) []string {
	var out []string
	for _, f := range strings.FieldsFunc(s, func(r rune) bool { return !(unicode.IsLetter(r) || unicode.IsDigit(r) || r == '_' || r == '-') }) {
		f = strings.Trim(f, "-_")
		if f != "" && unicode.IsLetter([]rune(f)[0]) {
			out = append(out, snakeCase(f))
		}
	}
	return out
}

// useRange reads the Use line's grammar — required words, then optional
// ones, then at most one variadic word, last — and the count range it
// states (max -1: no upper end). ok is false for any other order.
func useRange(tokens []useToken) (ok bool, min, max int) {
	seenOptional := false
	for i, t := range tokens {
		switch {
		case t.variadic:
			if i != len(tokens)-1 {
				return false, 0, 0
			}
			if !t.optional {
				if seenOptional {
					return false, 0, 0
				}
				min++
			}
			return true, min, -1
		case t.optional:
			seenOptional = true
			max++
		default:
			if seenOptional {
				return false, 0, 0
			}
			min++
			max++
		}
	}
	return true, min, max
}

// layout builds the positional parameters for a count range [min, max]
// (max -1: no upper end): min required ones, then optional ones (argv fills
// them left to right; the projector chains them with dependentRequired),
// then for an open range a trailing array. Names come from the Use line's
// words by position, else arg1, arg2, … and args.
func layout(tokens []useToken, min, max int) []*projector.Param {
	used := map[string]bool{}
	name := func(i int, array bool) string {
		n := ""
		switch {
		case i < len(tokens):
			n = tokens[i].name
		case len(tokens) > 0 && tokens[len(tokens)-1].variadic:
			n = tokens[len(tokens)-1].name // more of the variadic word
		}
		if n == "" && array {
			n = "args"
		}
		if n == "" {
			n = "arg" + strconv.Itoa(i+1)
		}
		for base, k := n, 2; used[n]; k++ {
			n = base + "_" + strconv.Itoa(k)
		}
		used[n] = true
		return n
	}
	help := func(i int) string {
		if i < len(tokens) {
			return tokens[i].text
		}
		return ""
	}
	variadicAt := -1
	for i, t := range tokens {
		if t.variadic {
			variadicAt = i
		}
	}
	var params []*projector.Param
	param := func(i int, arity projector.Arity, required, array bool) {
		params = append(params, &projector.Param{Name: name(i, array), Kind: projector.KindString, Arity: arity,
			Required: required, Action: "cobra:positional", Help: help(i)})
	}
	// An open range whose last required position is the Use line's
	// variadic word: one array of at least one.
	if max < 0 && min > 0 && variadicAt == min-1 {
		for i := 0; i < min-1; i++ {
			param(i, projector.ArityOne, true, false)
		}
		param(min-1, projector.ArityOneOrMore, true, true)
		return params
	}
	for i := 0; i < min; i++ {
		param(i, projector.ArityOne, true, false)
	}
	optionalEnd := max
	if max < 0 {
		optionalEnd = min
		if variadicAt > min {
			optionalEnd = variadicAt // the Use line's optional words before its variadic one
		}
	}
	if optionalEnd > min+maxOptionalPositionals {
		optionalEnd = min + maxOptionalPositionals
	}
	for i := min; i < optionalEnd; i++ {
		param(i, projector.ArityOptional, false, false)
	}
	if max < 0 {
		param(optionalEnd, projector.ArityZeroOrMore, false, true)
	}
	return params
}

func repeat(s string, n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = s
	}
	return out
}

// knownOpen reports whether c accepts any number of positionals by cobra's
// own definition: no Args validator below the root, or cobra.ArbitraryArgs.
func knownOpen(c *cobra.Command) bool {
	if c.Args == nil {
		return c.HasParent() || !c.HasSubCommands()
	}
	return reflect.ValueOf(c.Args).Pointer() == reflect.ValueOf(cobra.ArbitraryArgs).Pointer()
}

// knownNone reports whether c's validator is cobra.NoArgs itself, which by
// its definition accepts the empty list and nothing else.
func knownNone(c *cobra.Command) bool {
	return c.Args != nil && reflect.ValueOf(c.Args).Pointer() == reflect.ValueOf(cobra.NoArgs).Pointer()
}

// argsValidator returns whether c accepts a positional argument list, as
// cobra decides it: c.Args if set; otherwise any list, except that a root
// with subcommands rejects positionals (cobra's legacyArgs, applied when the
// root is the command found). A panicking validator rejects.
func argsValidator(c *cobra.Command) func([]string) bool {
	return func(args []string) (ok bool) {
		defer func() {
			if recover() != nil {
				ok = false
			}
		}()
		if c.Args == nil {
			return !(c.HasSubCommands() && !c.HasParent() && len(args) > 0)
		}
		return c.Args(c, args) == nil
	}
}
