package projector

import (
	"fmt"
	"strconv"
	"strings"
)

// ParsedArgv is a command line as [ParseArgv] read it with a parser model:
// the command it runs and what each word sets.
type ParsedArgv struct {
	// Command is the command the words name (the root for none).
	Command *Command
	// PathWords is how many leading words named it.
	PathWords int
	// Options are the options given, in argv order.
	Options []ParsedOption
	// Positionals are the positional words, each with the parameter it
	// fills, in argv order.
	Positionals []ParsedPositional
}

// ParsedOption is one option of a parsed command line.
type ParsedOption struct {
	Option string   // the option string matched ("--prompt-file", "-n")
	Param  *Param   // the parameter it sets
	Values []string // the words it took as values (none for a flag)
}

// ParsedPositional is one positional word and the parameter it fills.
type ParsedPositional struct {
	Word  string
	Param *Param
}

// ArgvError is a command line [ParseArgv] refuses: one it cannot read with
// certainty as the CLI's own parser would, or one the CLI would refuse.
type ArgvError struct {
	Argv []string
	// Word is the index in Argv of the word at fault (-1: the whole line).
	Word int
	// Excluded is the option string when the word sets an option the
	// adapter excluded from the model (Command.Excluded): its arity is
	// unknown, so nothing after it can be read, and a front never lets a
	// caller set it anyway.
	Excluded string
	Reason   string
}

func (e *ArgvError) Error() string {
	if e.Word >= 0 && e.Word < len(e.Argv) {
		return fmt.Sprintf("projector: argv word %d (%s): %s", e.Word, quoteShort(e.Argv[e.Word]), e.Reason)
	}
	return "projector: argv: " + e.Reason
}

// ParseArgv reads argv (a command line without the program) with t's model,
// as the CLI's parser would, and refuses whatever it cannot read with
// certainty, never guessing. It exists for a front that must know what a
// command line a caller stored will set when the CLI runs it later (a
// schedule's command): a refusal is always safe, a wrong reading is not.
// It refuses, naming the word, in this order:
//
//  1. The command path: the leading words name commands, by name or
//     alias, while the current command has subcommands. An option there
//     (what it sets depends on parsers the model does not hold), or a word
//     that names no subcommand of a command that has some (a positional
//     cannot be told from a misspelt command), is refused, as is a group
//     that runs nothing, and a command or parameter the model calls
//     unrepresentable (its arity may be unknown).
//  2. A word starting with one of the command's ArgFilePrefixes, anywhere
//     (argparse reads a file of more arguments there).
//  3. An option not spelt exactly as one of the command's option strings:
//     an unknown option, and an abbreviation (argparse accepts a unique
//     prefix of a long option; the model cannot promise the CLI's other
//     options stay unique).
//  4. An option the adapter excluded (ArgvError.Excluded).
//  5. Combined short options ("-abc") unless each is a flag taking no
//     value except perhaps the last; an attached value spelt "-o=v" (click
//     reads "=v"); a value attached to a flag that takes none.
//  6. A value the option needs but cannot have: missing, "--", or
//     starting with '-' as a separate word (argparse would read an option;
//     a negative number for a numeric parameter of pflag or click
//     excepted); an option that may be given bare followed by a word that
//     argparse or click would take as its value.
//  7. A value the parameter does not admit: its kind, choices, pattern
//     and forbidden values, as [Project] states them.
//  8. Positional words the command's positionals cannot take: too many,
//     too few for the required ones (filled left to right, a variable one
//     taking what the later ones leave).
//
// A tree of [DialectDeclared] is refused whole: a declaration says how to
// write a command line for the program, not how its hand-written parser
// reads every command line.
//
// "--" ends the options: every later word is positional. ParseArgv reads
// argv; it does not decide what may be stored (a front does: by the
// parameters the result sets).
func ParseArgv(t *Tree, argv []string) (*ParsedArgv, error) {
	fail := func(i int, format string, a ...any) error {
		return &ArgvError{Argv: argv, Word: i, Reason: fmt.Sprintf(format, a...)}
	}
	if t.Dialect == DialectDeclared {
		return nil, fail(-1, "%s is declared, not read: how its own parser reads a stored command line is not known", t.Program)
	}
	cur := t.Find()
	if cur == nil {
		return nil, fail(-1, "the tree has no root command")
	}
	i := 0
	for ; i < len(argv); i++ {
		children := t.children(cur)
		if len(children) == 0 {
			break
		}
		w := argv[i]
		if strings.HasPrefix(w, "-") {
			return nil, fail(i, "an option before the command path ends (%s has subcommands): what it sets is not read", commandName(cur.Path))
		}
		next := t.child(cur, w)
		if next == nil {
			return nil, fail(i, "names no subcommand of %s, which has subcommands: a positional cannot be told from a misspelt command", commandName(cur.Path))
		}
		cur = next
	}
	if !cur.Runnable {
		return nil, fail(-1, "%s is a group of commands and runs nothing itself", commandName(cur.Path))
	}
	if u := cur.Unrepresentable; u != nil {
		return nil, fail(-1, "%s cannot be read with certainty: %s", commandName(cur.Path), u.Reason)
	}
	for _, p := range cur.Params {
		if p.Unrepresentable != nil {
			return nil, fail(-1, "%s cannot be read with certainty: parameter %s: %s", commandName(cur.Path), p.Name, p.Unrepresentable.Reason)
		}
	}
	// argparse reads files of arguments before it parses anything, "--"
	// or not.
	for k, w := range argv {
		for _, c := range cur.ArgFilePrefixes {
			if strings.HasPrefix(w, string(c)) {
				return nil, fail(k, "starts with %q, which makes the parser read a file of more arguments", c)
			}
		}
	}
	out := &ParsedArgv{Command: cur, PathWords: i}
	d := t.Dialect
	byOption := map[string]*Param{}
	negated := map[string]bool{}
	for _, p := range cur.Params {
		for _, o := range p.Options {
			byOption[o] = p
		}
		for _, o := range p.NegOptions {
			byOption[o], negated[o] = p, true
		}
	}
	excluded := map[string]bool{}
	for _, o := range cur.Excluded {
		excluded[o] = true
	}
	lookup := func(i int, opt string) (*Param, error) {
		if p := byOption[opt]; p != nil {
			return p, nil
		}
		if excluded[opt] {
			return nil, &ArgvError{Argv: argv, Word: i, Excluded: opt, Reason: fmt.Sprintf("sets %s, which is excluded from the command's parameters", opt)}
		}
		return nil, fail(i, "%s is not an option of %s, spelt exactly (an unknown option, or an abbreviation the parser might accept)", opt, commandName(cur.Path))
	}
	takesValue := func(p *Param, opt string) bool {
		return !negated[opt] && p.Arity != ArityNone && p.Arity != ArityCount
	}
	// value checks one value word for p.
	value := func(i int, p *Param, w string) error {
		if err := admits(cur, p, w); err != nil {
			return fail(i, "%v", err)
		}
		return nil
	}
	// separate reads the value words of an option from argv[i+1:] and
	// returns the index of the last word consumed.
	separate := func(i int, p *Param, opt string) (int, []string, error) {
		n := 1
		switch p.Arity {
		case ArityExactly, ArityRepeatedTuple:
			n = p.N
		case ArityZeroOrMore, ArityOneOrMore:
			var vals []string
			j := i + 1
			for ; j < len(argv) && !strings.HasPrefix(argv[j], "-"); j++ {
				if err := value(j, p, argv[j]); err != nil {
					return 0, nil, err
				}
				vals = append(vals, argv[j])
			}
			if p.Arity == ArityOneOrMore && len(vals) == 0 {
				return 0, nil, fail(i, "%s needs at least one value", opt)
			}
			return j - 1, vals, nil
		}
		var vals []string
		for k := 1; k <= n; k++ {
			j := i + k
			if j >= len(argv) {
				return 0, nil, fail(i, "%s needs %d value(s) and the command line ends", opt, n)
			}
			w := argv[j]
			if w == "--" || strings.HasPrefix(w, "-") && !(d != DialectArgparse && negativeNumber.MatchString(w) && (p.Kind == KindInteger || p.Kind == KindNumber)) {
				return 0, nil, fail(j, "a value of %s that starts with '-' as a separate word is read as an option by some parsers; store it as %s=VALUE", opt, opt)
			}
			if err := value(j, p, w); err != nil {
				return 0, nil, err
			}
			vals = append(vals, w)
		}
		return i + n, vals, nil
	}
	var positional []int // indexes of positional words
	dashes := false
	for ; i < len(argv); i++ {
		w := argv[i]
		switch {
		case dashes || w == "-" || !strings.HasPrefix(w, "-"):
			positional = append(positional, i)
		case w == "--":
			dashes = true
		case strings.HasPrefix(w, "--"):
			opt, val, attached := strings.Cut(w, "=")
			p, err := lookup(i, opt)
			if err != nil {
				return nil, err
			}
			po := ParsedOption{Option: opt, Param: p}
			switch {
			case !takesValue(p, opt):
				if attached {
					if d != DialectPflag || negated[opt] || p.Arity != ArityNone {
						return nil, fail(i, "%s takes no value", opt)
					}
					if _, err := strconv.ParseBool(val); err != nil {
						return nil, fail(i, "%s takes a boolean, not %s", opt, quoteShort(val))
					}
					po.Values = []string{val}
				}
			case attached:
				if p.Arity == ArityExactly && p.N > 1 || p.Arity == ArityRepeatedTuple {
					return nil, fail(i, "%s takes %d values as separate words, not one after '='", opt, p.N)
				}
				if err := value(i, p, val); err != nil {
					return nil, err
				}
				po.Values = []string{val}
			case p.Bare:
				if d != DialectPflag && i+1 < len(argv) && !strings.HasPrefix(argv[i+1], "-") {
					return nil, fail(i, "%s may be given without a value, so the parser may take the next word as its value; store %s=VALUE, or put it last", opt, opt)
				}
			default:
				last, vals, err := separate(i, p, opt)
				if err != nil {
					return nil, err
				}
				po.Values, i = vals, last
			}
			out.Options = append(out.Options, po)
		default: // a single dash: one short option, or several combined
			if _, _, eq := strings.Cut(w, "="); eq {
				return nil, fail(i, "a short option with '=' is read differently by different parsers (click keeps the '='); store it as two words")
			}
			if p := byOption[w]; p != nil || excluded[w] || len(w) == 2 {
				p, err := lookup(i, w)
				if err != nil {
					return nil, err
				}
				po := ParsedOption{Option: w, Param: p}
				if takesValue(p, w) {
					if p.Bare {
						if d != DialectPflag && i+1 < len(argv) && !strings.HasPrefix(argv[i+1], "-") {
							return nil, fail(i, "%s may be given without a value, so the parser may take the next word as its value; put it last", w)
						}
					} else {
						last, vals, err := separate(i, p, w)
						if err != nil {
							return nil, err
						}
						po.Values, i = vals, last
					}
				}
				out.Options = append(out.Options, po)
				continue
			}
			if d == DialectArgparse {
				for o := range byOption {
					if len(o) > 2 && !strings.HasPrefix(o, "--") && strings.HasPrefix(o, w[:2]) {
						return nil, fail(i, "argparse may read %s as an abbreviation of %s rather than as short options", w, o)
					}
				}
			}
			for j := 1; j < len(w); j++ {
				opt := "-" + string(w[j])
				p, err := lookup(i, opt)
				if err != nil {
					return nil, err
				}
				if !takesValue(p, opt) {
					out.Options = append(out.Options, ParsedOption{Option: opt, Param: p})
					continue
				}
				if p.Bare || p.Arity != ArityOne && p.Arity != ArityRepeated {
					return nil, fail(i, "%s takes its values in a way combined short options cannot be read with certainty; store it on its own", opt)
				}
				po := ParsedOption{Option: opt, Param: p}
				if rest := w[j+1:]; rest != "" {
					if err := value(i, p, rest); err != nil {
						return nil, err
					}
					po.Values = []string{rest}
				} else {
					last, vals, err := separate(i, p, opt)
					if err != nil {
						return nil, err
					}
					po.Values, i = vals, last
				}
				out.Options = append(out.Options, po)
				break
			}
		}
	}
	filled, err := fillPositionals(cur, len(positional))
	if err != nil {
		return nil, fail(-1, "%v", err)
	}
	for k, at := range positional {
		p := filled[k]
		if err := value(at, p, argv[at]); err != nil {
			return nil, err
		}
		out.Positionals = append(out.Positionals, ParsedPositional{Word: argv[at], Param: p})
	}
	return out, nil
}

// fillPositionals assigns n positional words to cmd's positionals, left to
// right: a fixed one takes its count, an optional one a word when the later
// ones can still have theirs, a variable one what the later ones leave.
func fillPositionals(cmd *Command, n int) ([]*Param, error) {
	var ps []*Param
	for _, p := range cmd.Params {
		if p.Positional() {
			ps = append(ps, p)
		}
	}
	least := func(p *Param) int {
		switch p.Arity {
		case ArityOne:
			return 1
		case ArityExactly:
			return p.N
		case ArityOneOrMore:
			return 1
		}
		return 0
	}
	need := make([]int, len(ps)+1) // need[k]: the least the positionals from k on take
	for k := len(ps) - 1; k >= 0; k-- {
		need[k] = need[k+1] + least(ps[k])
	}
	if n < need[0] {
		return nil, fmt.Errorf("%d positional word(s) where %s needs at least %d", n, commandName(cmd.Path), need[0])
	}
	var out []*Param
	left := n
	for k, p := range ps {
		take := least(p)
		switch p.Arity {
		case ArityOptional:
			if left-need[k+1] > 0 {
				take = 1
			}
		case ArityZeroOrMore, ArityOneOrMore:
			take = left - need[k+1]
		}
		for range take {
			out = append(out, p)
		}
		left -= take
	}
	if left > 0 {
		return nil, fmt.Errorf("%d positional word(s) where %s takes at most %d", n, commandName(cmd.Path), n-left)
	}
	return out, nil
}

// admits checks one value word against p's constraints as Project states
// them: its kind, choices, pattern and forbidden values.
func admits(cmd *Command, p *Param, w string) error {
	s, err := scalarRuleOf(cmd, p)
	if err != nil {
		return err
	}
	var v any = w
	switch p.Kind {
	case KindInteger:
		n, err := strconv.ParseInt(w, 10, 64)
		if err != nil {
			return fmt.Errorf("%s takes an integer, not %s", p.Name, quoteShort(w))
		}
		v = n
	case KindNumber:
		f, err := strconv.ParseFloat(w, 64)
		if err != nil {
			return fmt.Errorf("%s takes a number, not %s", p.Name, quoteShort(w))
		}
		v = f
	case KindBoolean:
		b, err := strconv.ParseBool(w)
		if err != nil {
			return fmt.Errorf("%s takes a boolean, not %s", p.Name, quoteShort(w))
		}
		v = b
	}
	if _, err := s.check(v); err != nil {
		return fmt.Errorf("%s: %v", p.Name, err)
	}
	return nil
}

// CheckWord checks one argv word as a value of p, a parameter of cmd,
// against p's constraints as [Project] states them (kind, choices,
// pattern, forbidden values). A front checks an operator's fixed
// arguments with it before any command runs.
func CheckWord(cmd *Command, p *Param, word string) error { return admits(cmd, p, word) }
