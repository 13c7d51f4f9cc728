package fromclap

import (
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/verbsurface/verbsurface/projector"
)

// command judges one command's help, in this order: its usage lines
// (which say whether it runs without a subcommand, which positionals it
// takes and which options it requires), its options, its arguments.
func (n *node) command() *projector.Command {
	cmd := &projector.Command{Path: n.path, Aliases: n.aliases, Summary: n.summary, Runnable: true, Params: []*projector.Param{}}
	if cmd.Path == nil {
		cmd.Path = []string{}
	}
	fail := func(format string, a ...any) {
		if cmd.Unrepresentable == nil {
			cmd.Unrepresentable = &projector.Unrepresentable{Reason: fmt.Sprintf(format, a...)}
		}
	}
	if n.failed != nil {
		fail("its help could not be read: %v", n.failed)
		return cmd
	}
	h := n.help
	if cmd.Summary == "" {
		cmd.Summary = firstAboutLine(h.about)
	}

	// The usage: one line per way to run the command. A line that only
	// runs a subcommand ("prog <COMMAND>") is not this command's; of the
	// others there must be exactly one, in clap's own words.
	var usage []usageWord
	lines := 0
	for _, l := range h.usage {
		words := readUsage(l)
		if commandPlaceholder(words) {
			continue
		}
		lines++
		usage = words
	}
	if lines == 0 {
		cmd.Runnable = false
	}
	if lines > 1 {
		fail("its help gives %d usage lines: which arguments go together is not settled", lines)
	}

	// Options, in help order.
	byName := map[string]*projector.Param{}
	for _, e := range h.options {
		p := optionParam(e)
		if p == nil {
			continue // --help, --version
		}
		if prev, dup := byName[p.Name]; dup {
			fail("options %s and %s are both named %q", strings.Join(prev.Options, "/"), strings.Join(p.Options, "/"), p.Name)
		}
		for _, o := range p.Options {
			byName[o] = p
		}
		byName[p.Name] = p
		cmd.Params = append(cmd.Params, p)
	}

	// Positionals, from the usage line, each described by an Arguments
	// entry of the same name.
	argHelp := map[string]*entry{}
	for _, e := range h.args {
		name := strings.TrimSuffix(strings.TrimSuffix(e.head, "..."), "…")
		name = strings.Trim(name, "[]<>")
		argHelp[name] = e
	}
	seen := map[string]bool{}
	var variable *projector.Param
	for i, w := range usage {
		switch w.kind {
		case "options", "command":
		case "option":
			p := byName[w.name]
			if p == nil {
				fail("its usage requires %s, which its options do not list", w.name)
				continue
			}
			p.Required = true
			// Its value name follows ("--name <NAME>").
			if p.Arity != projector.ArityNone && p.Arity != projector.ArityCount && i+1 < len(usage) {
				usage[i+1].kind = "value"
			}
		case "value":
		case "group":
			var members []string
			for _, m := range w.members {
				p := byName[m]
				if p == nil {
					fail("its usage requires one of %s, and %s is not among its options", strings.Join(w.members, "|"), m)
					break
				}
				members = append(members, p.Name)
			}
			if len(members) == len(w.members) {
				cmd.Groups = append(cmd.Groups, projector.Group{Params: members, Required: true})
			}
		case "positional":
			e := argHelp[w.name]
			if e == nil {
				fail("its usage names %q, which its arguments do not list", w.name)
				continue
			}
			seen[w.name] = true
			p := &projector.Param{Name: paramName(w.name), Kind: projector.KindString, Action: "clap:positional", Help: e.summary(), Metavar: w.name}
			switch {
			case w.multiple && w.required:
				p.Arity = projector.ArityOneOrMore
			case w.multiple:
				p.Arity = projector.ArityZeroOrMore
			case w.required:
				p.Arity = projector.ArityOne
			default:
				p.Arity = projector.ArityOptional
			}
			p.Required = w.required
			// clap fills positionals left to right: after one that may be
			// left out, only more such, closed by at most one list, can
			// be told apart (the projector chains them).
			if variable != nil && (variable.Arity != projector.ArityOptional || p.Required || p.Arity == projector.ArityOneOrMore) {
				fail("positionals %q and %q: argv cannot say which one a word is for", variable.Metavar, w.name)
			}
			if !p.Required || w.multiple {
				variable = p
			}
			def, values, _ := e.notes()
			p.Choices = choices(values)
			if def != nil && !w.multiple {
				p.Default = *def
			}
			if _, dup := byName[p.Name]; dup {
				fail("positional %q has the name of an option", w.name)
			}
			byName[p.Name] = p
			cmd.Params = append(cmd.Params, p)
		default:
			fail("its usage line %q is the program's own, not clap's: which positionals it takes is not settled", strings.Join(h.usage, " | "))
		}
	}
	for _, e := range h.args {
		name := strings.Trim(strings.TrimSuffix(strings.TrimSuffix(e.head, "..."), "…"), "[]<>")
		if !seen[name] && cmd.Runnable {
			fail("argument %q is not in its usage line: where it goes is not settled", name)
		}
	}
	return cmd
}

// firstAboutLine is the command's about text, first line: clap prints
// "NAME VERSION" and the authors before it when the command has them.
func firstAboutLine(about string) string {
	for _, l := range strings.Split(about, "\n") {
		l = strings.TrimSpace(l)
		switch {
		case l == "", nameVersion.MatchString(l), !strings.Contains(l, " "), authorLine.MatchString(l):
			continue
		}
		return l
	}
	return ""
}

var (
	nameVersion = regexp.MustCompile(`^\S+ v?\d[\w.+~-]*$`)
	authorLine  = regexp.MustCompile(`<[^<>@\s]+@[^<>\s]+>`)
)

// optionParam reads one option entry. nil is clap's own --help or
// --version, which are no caller's parameters.
func optionParam(e *entry) *projector.Param {
	head, err := readOptionHead(e.head)
	if err != nil {
		return &projector.Param{Name: strings.TrimLeft(e.head, "-"), Options: []string{e.head}, Kind: projector.KindString, Arity: projector.ArityOne,
			Action: "clap:option", Unrepresentable: &projector.Unrepresentable{Action: "clap:option", Reason: err.Error()}}
	}
	if head.long == "--help" || head.long == "--version" || head.long == "" && (head.short == "-h" || head.short == "-V") && len(head.values) == 0 {
		return nil
	}
	p := &projector.Param{Options: head.names(), Kind: projector.KindString, Action: "clap:option", Help: e.summary()}
	if head.long != "" {
		p.Name = paramName(strings.TrimPrefix(head.long, "--"))
	} else {
		p.Name = strings.TrimPrefix(head.short, "-")
	}
	unrep := func(format string, a ...any) *projector.Param {
		p.Unrepresentable = &projector.Unrepresentable{Action: "clap:option", Reason: fmt.Sprintf(format, a...)}
		return p
	}
	def, values, _ := e.notes()
	switch {
	case len(head.values) == 0 && head.multiple:
		// A flag clap accepts more than once (ArgAction::Count, or
		// repeated occurrences): given n times.
		max := float64(projector.MaxCount)
		p.Kind, p.Arity, p.Minimum, p.Maximum, p.Default, p.Action = projector.KindInteger, projector.ArityCount, new(float64), &max, int64(0), "clap:count"
		return p
	case len(head.values) == 0:
		// A flag: given (true) or not (false, its default).
		p.Kind, p.Arity, p.FlagValue, p.Default, p.Action = projector.KindBoolean, projector.ArityNone, true, false, "clap:flag"
		return p
	case head.optional:
		return unrep("its value may be left out (%s): what the bare option means is not in its help", e.head)
	case len(head.values) > 1:
		return unrep("it takes %d values (%s): how they are spelled is not settled by its help", len(head.values), e.head)
	case head.multiple:
		return unrep("it takes several values (%s): its help does not say whether per occurrence or by repeating it, nor where they end", e.head)
	}
	p.Arity, p.Metavar = projector.ArityOne, head.values[0]
	p.Choices = choices(values)
	if def != nil {
		p.Default = *def
		if len(p.Choices) > 0 && !slices.Contains(p.Choices, any(*def)) {
			p.Default = nil // a default outside the listed values is another spelling of one: say nothing
		}
	}
	return p
}

func choices(values []string) []any {
	if len(values) == 0 {
		return nil
	}
	out := make([]any, len(values))
	for i, v := range values {
		out[i] = v
	}
	return out
}

// paramName is a schema name for an option or argument name: dashes as
// underscores.
func paramName(s string) string {
	return strings.ReplaceAll(s, "-", "_")
}
