package fromargparse

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/verbsurface/verbsurface/projector"
	"github.com/verbsurface/verbsurface/projector/internal/pywalk"
)

// Walk imports target's parser with Python and returns its model (dialect
// argparse). target is "module:function" — a factory that returns an
// argparse.ArgumentParser, or a main()-style function that builds one and
// calls parse_args (intercepted before anything runs) — or "module:__main__",
// which runs the module as __main__ under the same interception (for
// programs that build their parser under `if __name__ == "__main__":`).
// The function is called without arguments. A failure to get a parser is an
// *Error naming the target and its Kind.
func Walk(ctx context.Context, target string, opts *Options) (*projector.Tree, error) {
	trees, err := WalkAll(ctx, []string{target}, opts)
	if err != nil {
		return nil, err
	}
	return trees[0], nil
}

// WalkAll walks several targets with one Python process (Python's start-up
// dominates a walk). The trees are in the order of targets; if any target
// fails, the error joins one *Error per failed target and no tree is
// returned.
func WalkAll(ctx context.Context, targets []string, opts *Options) ([]*projector.Tree, error) {
	return pywalk.Walk(ctx, walker(opts), targets, func(r rawResult) pywalk.Status { return r.Status },
		func(target string, r rawResult) *projector.Tree {
			tree := buildTree(target, r.Parser)
			if opts != nil && len(opts.ExcludeFlags) > 0 {
				tree = projector.ExcludeParams(tree, opts.ExcludeFlags...)
			}
			return tree
		})
}

// The walker's raw report (see walker.py).
type rawResult struct {
	pywalk.Status
	Parser *rawParser `json:"parser"`
}

type rawParser struct {
	Prog                    string         `json:"prog"`
	Description             *string        `json:"description"`
	PrefixChars             string         `json:"prefix_chars"`
	FromfilePrefixChars     string         `json:"fromfile_prefix_chars"`
	NegativeNumberOptionals bool           `json:"negative_number_optionals"`
	Actions                 []*rawAction   `json:"actions"`
	Groups                  []rawGroup     `json:"groups"`
	Subparsers              *rawSubparsers `json:"subparsers"`
}

type rawAction struct {
	Class               string      `json:"class"`
	Known               *string     `json:"known"`
	OptionStrings       []string    `json:"option_strings"`
	Dest                string      `json:"dest"`
	Nargs               any         `json:"nargs"`
	Default             rawValue    `json:"default"`
	Type                *rawType    `json:"type"`
	Choices             *rawChoices `json:"choices"`
	Required            bool        `json:"required"`
	Help                *string     `json:"help"`
	Const               rawValue    `json:"const"`
	AmbiguousInAncestor *string     `json:"ambiguous_in_ancestor"`
	Metavar             *string     `json:"metavar"`
}

type rawValue struct {
	Value      json.RawMessage `json:"value"`
	Suppress   bool            `json:"suppress"`
	Unjsonable *string         `json:"unjsonable"`
}

type rawType struct {
	Name   string  `json:"name"`
	Scalar *string `json:"scalar"`
	// Path is "read" or "write" for an argparse.FileType (by its mode),
	// "path" for a pathlib class, empty otherwise.
	Path string `json:"path"`
}

type rawChoices struct {
	Values     []any   `json:"values"`
	Range      []any   `json:"range"`
	Unjsonable *string `json:"unjsonable"`
}

type rawGroup struct {
	Actions  []int `json:"actions"`
	Required bool  `json:"required"`
}

type rawSubparsers struct {
	Index    int    `json:"index"`
	Class    string `json:"class"`
	Required bool   `json:"required"`
	Multiple bool   `json:"multiple"`
	Commands []struct {
		Name    string     `json:"name"`
		Aliases []string   `json:"aliases"`
		Help    *string    `json:"help"`
		Hidden  bool       `json:"hidden"`
		SameAs  []string   `json:"same_as"` // the first path of a parser object met before (Parser nil)
		Cycle   bool       `json:"cycle"`   // set (with Parser nil) when the parser object is an ancestor
		Parser  *rawParser `json:"parser"`
	} `json:"commands"`
}

const suppress = "==SUPPRESS=="

func buildTree(target string, root *rawParser) *projector.Tree {
	t := &projector.Tree{Program: root.Prog, Dialect: projector.DialectArgparse}
	if module, ok := strings.CutSuffix(target, ":__main__"); ok {
		t.Program = "python3 -m " + module
	}
	// A parser object reachable at two paths (not as aliases of one entry)
	// is ambiguous at both: the walker describes it at the first and
	// reports the second as the same as the first.
	type sharing struct {
		cmd   *projector.Command
		first []string
	}
	var shared []sharing
	ambiguous := func(class, other string) *projector.Unrepresentable {
		return &projector.Unrepresentable{Action: class, Reason: fmt.Sprintf("ambiguous nested subparser: the same parser object is also reachable as %q", other)}
	}
	var visit func(p *rawParser, path, aliases []string, summary string, hidden bool, ancestors []*rawParser)
	visit = func(p *rawParser, path, aliases []string, summary string, hidden bool, ancestors []*rawParser) {
		if summary == "" && p.Description != nil {
			summary = firstLine(*p.Description)
		}
		cmd := command(p, path, ancestors)
		cmd.Aliases, cmd.Summary, cmd.Hidden = aliases, summary, hidden
		t.Commands = append(t.Commands, cmd)
		if p.Subparsers == nil {
			return
		}
		for _, sc := range p.Subparsers.Commands {
			subPath := append(append([]string{}, path...), sc.Name)
			help := ""
			if sc.Help != nil {
				help = firstLine(*sc.Help)
			}
			if sc.Parser == nil {
				c := &projector.Command{Path: subPath, Aliases: sc.Aliases, Summary: help, Hidden: sc.Hidden, Runnable: true, Params: []*projector.Param{}}
				switch {
				case sc.Cycle:
					c.Unrepresentable = &projector.Unrepresentable{Action: p.Subparsers.Class, Reason: "the subcommand's parser is one of its own ancestors (a cycle of subparsers)"}
				case sc.SameAs != nil:
					c.Unrepresentable = ambiguous(p.Subparsers.Class, strings.Join(sc.SameAs, " "))
					shared = append(shared, sharing{c, sc.SameAs})
				default:
					c.Unrepresentable = &projector.Unrepresentable{Action: p.Subparsers.Class, Reason: "the walker did not describe the subcommand's parser"}
				}
				t.Commands = append(t.Commands, c)
				continue
			}
			visit(sc.Parser, subPath, sc.Aliases, help, sc.Hidden, append(append([]*rawParser{}, ancestors...), p))
		}
	}
	visit(root, []string{}, nil, "", false, nil)
	for _, s := range shared {
		for _, other := range t.Commands {
			if slices.Equal(other.Path, s.first) && other.Unrepresentable == nil {
				other.Unrepresentable = ambiguous(s.cmd.Unrepresentable.Action, strings.Join(s.cmd.Path, " "))
			}
		}
	}
	return t
}

func firstLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = strings.TrimSpace(s[:i])
	}
	return s
}

// command builds one command from its parser; ancestors are the parsers
// whose subparsers lead to it, outermost first.
func command(p *rawParser, path []string, ancestors []*rawParser) *projector.Command {
	cmd := &projector.Command{Path: path, Runnable: p.Subparsers == nil, Params: []*projector.Param{}}
	// The first reason is kept, except that one lying only in how the
	// parameters sit together (ByParams, which excluding parameters can
	// settle) gives way to any other: a reason exclusion cannot settle
	// must never be hidden behind one it can.
	fail := func(u *projector.Unrepresentable) {
		if cmd.Unrepresentable == nil || cmd.Unrepresentable.ByParams && !u.ByParams {
			cmd.Unrepresentable = u
		}
	}
	if p.PrefixChars != "-" {
		fail(&projector.Unrepresentable{Reason: fmt.Sprintf("prefix_chars %q: only '-' option prefixes are rendered", p.PrefixChars)})
	}
	if p.Subparsers != nil && p.Subparsers.Multiple {
		fail(&projector.Unrepresentable{Action: p.Subparsers.Class, Reason: "the parser has several subparsers actions"})
	}
	// What an ancestor parses comes before the subcommand name in argv; the
	// surface renders nothing there, so an ancestor must need nothing.
	fromfile := p.FromfilePrefixChars
	defer func() { cmd.ArgFilePrefixes = fromfile }()
	for _, a := range ancestors {
		if a.PrefixChars != "-" {
			fail(&projector.Unrepresentable{Reason: fmt.Sprintf("ancestor parser %q has prefix_chars %q", a.Prog, a.PrefixChars)})
		}
		fromfile += a.FromfilePrefixChars
		for _, g := range a.Groups {
			if g.Required {
				fail(&projector.Unrepresentable{Reason: fmt.Sprintf("ancestor parser %q requires one of a mutually exclusive group before the subcommand name, which the surface does not render", a.Prog)})
			}
		}
		for i, act := range a.Actions {
			if a.Subparsers != nil && i == a.Subparsers.Index || known(act) == "help" || known(act) == "version" {
				continue
			}
			if act.Required || len(act.OptionStrings) == 0 {
				fail(&projector.Unrepresentable{Action: actionName(act),
					Reason: fmt.Sprintf("ancestor parser %q takes %s before the subcommand name, which the surface does not render", a.Prog, describeAction(act))})
			}
		}
	}

	names := map[string]string{}
	byName := map[string]*projector.Param{}
	byIndex := map[int]*projector.Param{}
	var positionals []*rawAction
	shared := sharedDests(p)
	sharedMembers := map[string][]string{}
	var sharedOrder []string
	for i, act := range p.Actions {
		k := known(act)
		if k == "help" || k == "version" || k == "parsers" || p.Subparsers != nil && i == p.Subparsers.Index {
			continue
		}
		if act.Help != nil && *act.Help == suppress {
			if act.Required {
				fail(&projector.Unrepresentable{Action: actionName(act), Reason: fmt.Sprintf("%s is required but hidden (help=SUPPRESS)", describeAction(act))})
			}
			if len(act.OptionStrings) == 0 {
				positionals = append(positionals, act) // still consumes argv words; checked below
			}
			continue
		}
		param := actionParam(act, fromfile, p.NegativeNumberOptionals)
		if shared[act.Dest] && param.Unrepresentable == nil {
			// Several options store into this dest, all but at most one
			// of them flags: each flag is a boolean of its own, named
			// after its option ("true" gives it, storing its const), the
			// value option keeps the dest's name, and giving two of them
			// is refused (the last would silently win).
			if flag := constFlag(act); flag != nil {
				param.Name, param.Dest = optionName(act), act.Dest
				param.Kind, param.Arity, param.Type, param.FlagValue, param.NegOptions = projector.KindBoolean, projector.ArityNone, "", true, nil
				param.Default, param.Choices, param.Const = false, nil, flag.value
			}
			if sharedMembers[act.Dest] == nil {
				sharedOrder = append(sharedOrder, act.Dest)
			}
			sharedMembers[act.Dest] = append(sharedMembers[act.Dest], param.Name)
		}
		if act.AmbiguousInAncestor != nil && param.Unrepresentable == nil {
			param.Unrepresentable = &projector.Unrepresentable{Action: actionName(act), Reason: *act.AmbiguousInAncestor}
		}
		// Two actions storing to one dest cannot be two parameters. If
		// either is unrepresentable anyway, that is the reason given.
		if prev, dup := byName[param.Name]; dup && prev.Unrepresentable == nil && param.Unrepresentable == nil {
			fail(&projector.Unrepresentable{ByParams: true, Reason: fmt.Sprintf("%s and %s both store to dest %q", names[param.Name], describeAction(act), param.Name)})
		}
		names[param.Name], byName[param.Name] = describeAction(act), param
		byIndex[i] = param
		cmd.Params = append(cmd.Params, param)
		if len(act.OptionStrings) == 0 {
			positionals = append(positionals, act)
		}
	}

	// Positionals are matched by a regular expression over all of them: a
	// hidden one before a visible one takes their values. Of those taking
	// a variable number of values, only a run of consecutive nargs='?'
	// ones (optionally closed by one nargs='*') can be told apart: the
	// regular expression fills them left to right, so each later one is
	// given only with every earlier one (the projector's
	// dependentRequired). After a '?', a '+' would take its value.
	var variable []int
	for i, act := range positionals {
		hidden := act.Help != nil && *act.Help == suppress
		if hidden && i < len(positionals)-1 {
			fail(&projector.Unrepresentable{Reason: fmt.Sprintf("hidden positional %q comes before other positionals and would take their values", act.Dest)})
		}
		if act.Nargs == "..." && i > 0 && i == len(positionals)-1 && !hidden {
			remainderParam(act, byName[act.Dest])
		}
		switch nargs := act.Nargs; nargs {
		case "?", "*", "+", "...":
			if nargs == "..." {
				nargs = "*" // a remainder reads like a '*' positional (see remainderParam)
			}
			if n := len(variable); n > 0 {
				prev := positionals[variable[n-1]]
				if variable[n-1] != i-1 || prev.Nargs != "?" || nargs == "+" {
					// Settled by excluding one when both are parameters of
					// the model; a hidden one consumes words unseen.
					visible := !hidden && !(prev.Help != nil && *prev.Help == suppress)
					fail(&projector.Unrepresentable{ByParams: visible, Reason: fmt.Sprintf("positionals %q (nargs=%v) and %q (nargs=%v) both take a variable number of values, so argv cannot say where one ends", prev.Dest, prev.Nargs, act.Dest, act.Nargs)})
				}
			}
			variable = append(variable, i)
		}
	}

	for _, dest := range sharedOrder {
		if members := sharedMembers[dest]; len(members) >= 2 && !inOneGroup(p, byIndex, members) {
			cmd.Groups = append(cmd.Groups, projector.Group{Params: members})
		}
	}

	for _, g := range p.Groups {
		var members []string
		for _, i := range g.Actions {
			if param, ok := byIndex[i]; ok {
				members = append(members, param.Name)
				if g.Required {
					requiredGroupMember(param)
				}
			}
		}
		if g.Required && len(members) == 0 {
			fail(&projector.Unrepresentable{Reason: "a required mutually exclusive group has no member the surface can offer"})
			continue
		}
		if len(members) >= 2 || g.Required {
			cmd.Groups = append(cmd.Groups, projector.Group{Params: members, Required: g.Required})
		}
	}
	return cmd
}

// requiredGroupMember narrows a member of a required exclusive group:
// argparse counts a member as given only if its value "is not" its default
// (object identity), so a value rendered as nothing, or parsed into the very
// object of the default (CPython caches small ints and one-character
// strings), leaves the group unsatisfied. A flag's parsed value is a fresh
// empty list, never its default, so a flag counts whenever it is rendered:
// a store_true/store_false flag is narrowed to the one value it spells,
// a BooleanOptionalAction (which spells both) not at all.
func requiredGroupMember(param *projector.Param) {
	if param.Kind == projector.KindBoolean && param.Arity == projector.ArityNone {
		if len(param.NegOptions) == 0 {
			param.Choices = []any{param.FlagValue}
		}
		return
	}
	switch d := param.Default.(type) {
	case int64:
		if d >= -5 && d <= 256 {
			param.Forbidden = append(param.Forbidden, d)
		}
	case string:
		if len([]rune(d)) <= 1 {
			param.Forbidden = append(param.Forbidden, d)
		}
	}
}

func known(a *rawAction) string {
	if a.Known == nil {
		return ""
	}
	return *a.Known
}

// actionName is the source action name kept for messages: argparse's
// registry name for a known class, the class name otherwise.
func actionName(a *rawAction) string {
	if k := known(a); k != "" {
		return k
	}
	return a.Class
}

func describeAction(a *rawAction) string {
	if len(a.OptionStrings) > 0 {
		return "option " + strings.Join(a.OptionStrings, "/")
	}
	return fmt.Sprintf("positional %q", a.Dest)
}

// classChars spells chars for use inside a regexp character class.
func classChars(chars string) string {
	var b strings.Builder
	for _, r := range chars {
		if strings.ContainsRune(`\]^-`, r) {
			b.WriteByte('\\')
		}
		b.WriteRune(r)
	}
	return b.String()
}

// constValue is what a flag action stores: its const, or true/false.
type constValue struct{ value any }

// constFlag returns what act stores if it is a flag that stores a fixed
// JSON value (store_const with a plain const, store_true, store_false), or
// nil.
func constFlag(a *rawAction) *constValue {
	switch known(a) {
	case "store_true":
		return &constValue{true}
	case "store_false":
		return &constValue{false}
	case "store_const":
		if v, ok := plainValue(a.Const); ok {
			return &constValue{v}
		}
		if a.Const.Value != nil { // const None: stored as null
			return &constValue{nil}
		}
	}
	return nil
}

// sharedDests returns the dests of p that several visible actions store
// into where every one but at most one is a const flag (constFlag): those
// are split into one parameter per action. Other shared dests stay one
// name for two parameters, which command refuses.
func sharedDests(p *rawParser) map[string]bool {
	flags, others := map[string]int{}, map[string]int{}
	for i, act := range p.Actions {
		k := known(act)
		if k == "help" || k == "version" || k == "parsers" || p.Subparsers != nil && i == p.Subparsers.Index ||
			act.Help != nil && *act.Help == suppress || len(act.OptionStrings) == 0 {
			continue
		}
		if constFlag(act) != nil {
			flags[act.Dest]++
		} else {
			others[act.Dest]++
		}
	}
	out := map[string]bool{}
	for dest, n := range flags {
		if n+others[dest] >= 2 && others[dest] <= 1 {
			out[dest] = true
		}
	}
	return out
}

// optionName is the parameter name of a flag split from a shared dest: its
// first long option string, without dashes, in snake case.
func optionName(a *rawAction) string {
	o := a.OptionStrings[0]
	for _, s := range a.OptionStrings {
		if strings.HasPrefix(s, "--") {
			o = s
			break
		}
	}
	return strings.ReplaceAll(strings.TrimLeft(o, "-"), "-", "_")
}

// inOneGroup reports whether the parser already has one mutually exclusive
// group holding every one of members.
func inOneGroup(p *rawParser, byIndex map[int]*projector.Param, members []string) bool {
	for _, g := range p.Groups {
		in := map[string]bool{}
		for _, i := range g.Actions {
			if param, ok := byIndex[i]; ok {
				in[param.Name] = true
			}
		}
		all := true
		for _, m := range members {
			all = all && in[m]
		}
		if all {
			return true
		}
	}
	return false
}

// remainderParam offers a nargs=REMAINDER positional that is the last of
// several as an array of strings: rendered after "--", the positional before
// it takes that "--" (argparse removes it from that one's values) and the
// remainder takes every later word verbatim, "--" and dash-leading ones
// included. As the first positional it would keep the "--" itself, so it
// stays unrepresentable there; so does one with a type or choices.
func remainderParam(a *rawAction, p *projector.Param) {
	if p == nil || a.Type != nil || a.Choices != nil {
		return
	}
	*p = projector.Param{Name: p.Name, Kind: projector.KindString, Arity: projector.ArityZeroOrMore, Default: []any{},
		Help: p.Help, Action: p.Action}
}
