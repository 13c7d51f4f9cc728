package projector

import (
	"fmt"
	"regexp"
	"regexp/syntax"
	"slices"
	"strings"
)

// DialectDeclared is a program no reader can read (a hand-written parser):
// its operator declares each command's options and positionals, and how
// the program reads them ([Rendering]); [Declare] checks the declaration
// and builds the tree. Added after the first three dialects.
const DialectDeclared Dialect = "declared"

// ValueSpelling says how a declared option's value follows the option.
type ValueSpelling string

const (
	// ValuesEquals spells an option and its value as one word,
	// --opt=value: the value cannot be read as anything else. The default.
	ValuesEquals ValueSpelling = "equals"
	// ValuesSeparate spells them as two words, --opt value, for a parser
	// that does not split on "=". The value is then a word of its own, so
	// [Declare] keeps it from starting with "-".
	ValuesSeparate ValueSpelling = "separate"
)

// Rendering is how a declared command's argv is spelled (Command.Rendering,
// read under [DialectDeclared] only; nil means the zero value).
type Rendering struct {
	// Values is the spelling of an option with a value ("": ValuesEquals).
	Values ValueSpelling `json:"values,omitempty"`
	// NoSeparator puts the positionals right after the options, without
	// the "--" word, for a parser that refuses "--" (many classic C
	// programs). Every positional is then a word the parser may take for
	// an option if it starts with "-", so [Declare] keeps it from doing so.
	NoSeparator bool `json:"no_separator,omitempty"`
}

// DeclaredValuePattern is the pattern [Declare] gives a string value that is a
// word of its own where a parser would read a leading "-" as an option
// (a positional without "--", an option value spelled separately): empty,
// or not starting with "-", and no NUL byte.
const DeclaredValuePattern = `^(?:[^-\x00][^\x00]*)?$`

// Declare checks commands declared by hand and returns them as the tree of
// a program of [DialectDeclared], named program. It does not read the
// program: what it checks is that the declaration is one the surface can
// keep every promise about, and it refuses (an error naming the command
// and the parameter) rather than guess. The commands given are not
// modified; the tree holds copies, with these defaults and constraints:
//
//  1. Every command is runnable; a missing parent of a command path is
//     added as a group (not runnable).
//  2. A parameter's Kind defaults to string; its Arity to none for a
//     boolean option, one otherwise. Options take arities none, one,
//     repeated and count; positionals one, optional, zero_or_more and
//     one_or_more. A positional of arity one or one_or_more is required.
//  3. A boolean flag sets true (FlagValue) and defaults to false; a count
//     flag is an integer of at most [MaxCount] unless Maximum says less.
//  4. Option strings start with "-", hold no "=" or space, and are unique
//     within the command; names are unique. An option with a value whose
//     only strings are one letter ("-n") needs values separate: spelt
//     "-n=5", getopt reads the value "=5".
//  5. A value that is a word of its own where the parser could take it for
//     an option — every positional under NoSeparator, every option value
//     under ValuesSeparate — must not start with "-": a string without a
//     pattern gets [DeclaredValuePattern]; a pattern must itself refuse a leading
//     "-" (it must start with "^" and its first character cannot be "-"),
//     else the declaration is refused; choices must not start with "-";
//     an integer or number gets Minimum 0, and a negative Minimum is
//     refused.
//  6. Everything [Project] checks (kinds, choices against patterns and
//     bounds, defaults, groups), so a declared command that passes is one
//     the surface offers.
func Declare(program string, r Rendering, commands ...*Command) (*Tree, error) {
	if program == "" {
		return nil, fmt.Errorf("projector: Declare: the program has no name")
	}
	switch r.Values {
	case "", ValuesEquals, ValuesSeparate:
	default:
		return nil, fmt.Errorf("projector: Declare: values %q is not %s or %s", r.Values, ValuesEquals, ValuesSeparate)
	}
	if len(commands) == 0 {
		return nil, fmt.Errorf("projector: Declare: no commands")
	}
	t := &Tree{Program: program, Dialect: DialectDeclared}
	seen := map[string]bool{}
	for _, in := range commands {
		if in == nil {
			return nil, fmt.Errorf("projector: Declare: a nil command")
		}
		c, err := declareCommand(in, r)
		if err != nil {
			return nil, err
		}
		key := pathKey(c.Path)
		if seen[key] {
			return nil, modelError(c, "declared twice")
		}
		seen[key] = true
		t.Commands = append(t.Commands, c)
	}
	// Parents before children, each path once: a parent nobody declared
	// is a group that runs nothing.
	var out []*Command
	have := map[string]bool{}
	for _, c := range t.Commands {
		for i := 0; i < len(c.Path); i++ {
			parent := c.Path[:i]
			if k := pathKey(parent); !have[k] && !seen[k] {
				have[k] = true
				out = append(out, &Command{Path: slices.Clone(parent), Params: []*Param{}})
			}
		}
		have[pathKey(c.Path)] = true
		out = append(out, c)
	}
	slices.SortStableFunc(out, func(a, b *Command) int { return len(a.Path) - len(b.Path) })
	t.Commands = out
	return t, nil
}

// declareCommand is Declare's check of one command: a copy with the
// defaults and constraints filled in.
func declareCommand(in *Command, r Rendering) (*Command, error) {
	c := *in
	c.Path = slices.Clone(in.Path)
	for _, w := range c.Path {
		if w == "" || strings.HasPrefix(w, "-") || strings.ContainsAny(w, " \t\n=") {
			return nil, modelError(&c, "%q is not a command word", w)
		}
	}
	if c.Unrepresentable != nil {
		return nil, modelError(&c, "a declared command cannot be unrepresentable; leave it out instead")
	}
	c.Runnable = true
	rendering := r
	c.Rendering = &rendering
	c.Params = make([]*Param, len(in.Params))
	options := map[string]string{}
	for i, ip := range in.Params {
		if ip == nil {
			return nil, modelError(&c, "parameter %d is nil", i)
		}
		p := *ip
		p.Options = slices.Clone(ip.Options)
		c.Params[i] = &p
		if err := declareParam(&c, &p, r, options); err != nil {
			return nil, err
		}
	}
	if err := Representable(&c); err != nil {
		return nil, err
	}
	// The defaults must be values the parameter accepts: a default the
	// schema would refuse teaches the caller something false.
	rules, _ := commandRules(&c)
	for _, rl := range rules {
		if rl.param.Default == nil || rl.param.Arity == ArityNone {
			continue
		}
		if _, err := rl.check(rl.param.Default); err != nil {
			return nil, modelError(&c, "parameter %q: default %v: %v", rl.param.Name, rl.param.Default, err)
		}
	}
	return &c, nil
}

// declareParam fills one parameter's defaults and constraints (Declare's
// rules 2 to 5).
func declareParam(c *Command, p *Param, r Rendering, options map[string]string) error {
	bad := func(format string, a ...any) error {
		return modelError(c, "parameter %q: %s", p.Name, fmt.Sprintf(format, a...))
	}
	if !declaredName.MatchString(p.Name) {
		return modelError(c, "parameter name %q is not a letter or underscore followed by letters, digits and underscores", p.Name)
	}
	if p.Unrepresentable != nil {
		return bad("a declared parameter cannot be unrepresentable")
	}
	if p.Kind == "" {
		p.Kind = KindString
	}
	if p.Action == "" {
		p.Action = "declared"
	}
	if len(p.NegOptions) > 0 || p.Bare || len(p.Elements) > 0 || p.Dest != "" {
		return bad("negations, bare options, tuples and shared destinations cannot be declared")
	}
	for _, o := range p.Options {
		switch {
		case len(o) < 2 || o[0] != '-' || o == "--" || strings.ContainsAny(o, "= \t\n"):
			return bad("%q is not an option string (it starts with \"-\" and holds no \"=\" or space)", o)
		case options[o] != "":
			return bad("option %s is also parameter %q's", o, options[o])
		}
		options[o] = p.Name
	}
	word := false // the value is a word of its own the parser may take for an option
	if p.Positional() {
		if p.Kind == KindBoolean {
			return bad("a positional cannot be a boolean")
		}
		switch p.Arity {
		case "":
			p.Arity = ArityOne
		case ArityOne, ArityOptional, ArityZeroOrMore, ArityOneOrMore:
		default:
			return bad("a positional takes arity one, optional, zero_or_more or one_or_more, not %q", p.Arity)
		}
		if p.Arity == ArityOne || p.Arity == ArityOneOrMore {
			p.Required = true // the parser reads no command line without it
		}
		word = r.NoSeparator
	} else {
		if p.Arity == "" {
			p.Arity = ArityOne
			if p.Kind == KindBoolean {
				p.Arity = ArityNone
			}
		}
		switch p.Arity {
		case ArityNone:
			if p.Kind != KindBoolean {
				return bad("a flag (arity none) is a boolean, not %s", p.Kind)
			}
			p.FlagValue = true
			if p.Default == nil {
				p.Default = false
			}
			if p.Default != false {
				return bad("a flag sets true and defaults to false; a default of %v cannot be declared", p.Default)
			}
		case ArityCount:
			p.Kind = KindInteger
			if p.Maximum == nil {
				m := float64(MaxCount)
				p.Maximum = &m
			}
		case ArityOne, ArityRepeated:
			if p.Kind == KindBoolean {
				return bad("a boolean option is a flag (arity none)")
			}
			if opt := optionString(p.Options); r.Values != ValuesSeparate && len(opt) == 2 {
				// getopt, and most parsers written by hand, read
				// "-n=5" as the value "=5".
				return bad("%s would be spelt %s=VALUE, which getopt reads as the value \"=VALUE\": give it a long option string, or declare values separate", opt, opt)
			}
			word = r.Values == ValuesSeparate
		default:
			return bad("an option takes arity none, one, repeated or count, not %q", p.Arity)
		}
	}
	if p.Path != PathUseNone && (p.Kind != KindString || !slices.Contains(PathUses, p.Path)) {
		return bad("path %q is not one of %v on a string", p.Path, PathUses)
	}
	if !word {
		return nil
	}
	// Rule 5: the value stands alone, so it must not look like an option.
	switch p.Kind {
	case KindString:
		if p.Pattern == "" {
			p.Pattern = DeclaredValuePattern
		} else if err := refusesLeadingDash(p.Pattern); err != nil {
			return bad("pattern %q: %v; a value here must not start with \"-\" (%s)", p.Pattern, err, wordReason(p, r))
		}
		for _, ch := range p.Choices {
			if s, ok := ch.(string); ok && strings.HasPrefix(s, "-") {
				return bad("choice %q starts with \"-\" (%s)", s, wordReason(p, r))
			}
		}
	case KindInteger, KindNumber:
		if p.Minimum != nil && *p.Minimum < 0 {
			return bad("minimum %v admits negative numbers, which start with \"-\" (%s)", *p.Minimum, wordReason(p, r))
		}
		if p.Minimum == nil {
			zero := 0.0
			p.Minimum = &zero
		}
	}
	return nil
}

func wordReason(p *Param, r Rendering) string {
	if p.Positional() {
		return "positionals follow no \"--\": the rendering says no_separator"
	}
	return "values follow their option as a word of their own: the rendering says values separate"
}

var declaredName = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)

// refusesLeadingDash proves that no string the pattern matches starts with
// "-": the pattern is anchored at the start of the text and its first
// character cannot be "-". It is conservative: a pattern it cannot prove
// is refused with the reason.
func refusesLeadingDash(pat string) error {
	re, err := syntax.Parse(pat, syntax.Perl)
	if err != nil {
		return err
	}
	re = re.Simplify()
	if re.Op != syntax.OpConcat || len(re.Sub) == 0 || re.Sub[0].Op != syntax.OpBeginText {
		return fmt.Errorf(`it does not start with "^" (outside any group), so it matches anywhere in the value`)
	}
	rest := &syntax.Regexp{Op: syntax.OpConcat, Sub: re.Sub[1:]}
	if dash, _ := firstChar(rest); dash {
		return fmt.Errorf(`its first character may be "-"`)
	}
	return nil
}

// firstChar reports whether a match of re may start with "-", and whether
// re matches the empty string.
func firstChar(re *syntax.Regexp) (dash, nullable bool) {
	switch re.Op {
	case syntax.OpNoMatch:
		return false, false
	case syntax.OpEmptyMatch, syntax.OpBeginLine, syntax.OpEndLine, syntax.OpBeginText, syntax.OpEndText,
		syntax.OpWordBoundary, syntax.OpNoWordBoundary:
		return false, true
	case syntax.OpLiteral:
		if len(re.Rune) == 0 {
			return false, true
		}
		return re.Rune[0] == '-', false
	case syntax.OpCharClass:
		for i := 0; i+1 < len(re.Rune); i += 2 {
			if re.Rune[i] <= '-' && '-' <= re.Rune[i+1] {
				return true, false
			}
		}
		return false, false
	case syntax.OpAnyChar, syntax.OpAnyCharNotNL:
		return true, false
	case syntax.OpCapture, syntax.OpPlus:
		return firstChar(re.Sub[0])
	case syntax.OpStar, syntax.OpQuest:
		d, _ := firstChar(re.Sub[0])
		return d, true
	case syntax.OpRepeat:
		d, n := firstChar(re.Sub[0])
		return d, n || re.Min == 0
	case syntax.OpConcat:
		for _, s := range re.Sub {
			d, n := firstChar(s)
			if d {
				return true, false
			}
			if !n {
				return false, false
			}
		}
		return false, true
	case syntax.OpAlternate:
		for _, s := range re.Sub {
			d, n := firstChar(s)
			dash, nullable = dash || d, nullable || n
		}
		return dash, nullable
	}
	return true, true // an operator not listed: assume the worst
}
