package fromoptparse

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/verbsurface/verbsurface/projector"
	"github.com/verbsurface/verbsurface/projector/internal/pywalk"
)

// ArgsParam is the name of the parameter that holds a command's
// positional arguments: optparse does not declare them, it hands every
// word after the options (after "--", where the surface puts them) to the
// program as one list.
const ArgsParam = "args"

// Walk imports target with Python and returns its model (dialect
// optparse). target is "MODULE:OBJECT", where the object is an
// optparse.OptionParser (or has one as .parser), a command table (a
// mapping from command name to a parser, to an object with .parser, or to
// whatever opts.Command turns into one), or a callable returning either:
// a callable that builds a parser and calls its parse_args is
// intercepted, and the parser taken before anything runs. A failure to get
// a parser is an *Error naming the target and its Kind.
func Walk(ctx context.Context, target string, opts *Options) (*projector.Tree, error) {
	trees, err := WalkAll(ctx, []string{target}, opts)
	if err != nil {
		return nil, err
	}
	return trees[0], nil
}

// WalkAll walks several targets with one Python process. The trees are in
// the order of targets; if any target fails, the error joins one *Error per
// failed target and no tree is returned.
func WalkAll(ctx context.Context, targets []string, opts *Options) ([]*projector.Tree, error) {
	if opts == nil {
		opts = &Options{}
	}
	return pywalk.Walk(ctx, walker(opts), targets, func(r rawResult) pywalk.Status { return r.Status },
		func(target string, r rawResult) *projector.Tree {
			tree := buildTree(target, r, opts)
			if len(opts.ExcludeFlags) > 0 {
				tree = projector.ExcludeParams(tree, opts.ExcludeFlags...)
			}
			return tree
		})
}

// The walker's raw report (see walker.py).
type rawResult struct {
	pywalk.Status
	Root     *rawParser `json:"root"`
	Commands []struct {
		Name    string     `json:"name"`
		Summary *string    `json:"summary"`
		Parser  *rawParser `json:"parser"`
	} `json:"commands"`
}

type rawParser struct {
	Prog        string       `json:"prog"`
	Description *string      `json:"description"`
	Options     []*rawOption `json:"options"`
}

type rawOption struct {
	Short       []string  `json:"short"`
	Long        []string  `json:"long"`
	Action      string    `json:"action"`
	KnownAction bool      `json:"known_action"`
	Type        *string   `json:"type"`
	KnownType   bool      `json:"known_type"`
	Dest        *string   `json:"dest"`
	Nargs       *int      `json:"nargs"`
	Choices     []any     `json:"choices"`
	BadChoices  bool      `json:"unjsonable_choices"`
	Const       rawValue  `json:"const"`
	Default     *rawValue `json:"default"`
	Help        *string   `json:"help"`
	Suppressed  bool      `json:"suppressed"`
	Metavar     *string   `json:"metavar"`
	Callback    *string   `json:"callback"`
	Class       string    `json:"class"`
	Overrides   []string  `json:"overrides"`
}

type rawValue struct {
	Value      json.RawMessage `json:"value"`
	Unjsonable *string         `json:"unjsonable"`
}

func buildTree(target string, r rawResult, opts *Options) *projector.Tree {
	t := &projector.Tree{Program: opts.Program, Dialect: projector.DialectOptparse}
	if r.Root != nil {
		if t.Program == "" {
			t.Program = r.Root.Prog
		}
		root := command(r.Root, []string{}, opts)
		if root.Summary == "" && r.Root.Description != nil {
			root.Summary = firstLine(*r.Root.Description)
		}
		t.Commands = []*projector.Command{root}
		return t
	}
	if t.Program == "" {
		module, _, _ := strings.Cut(target, ":")
		t.Program = strings.Split(module, ".")[0]
	}
	// A table's root dispatches to its commands; what its own parser takes
	// before the command name is not rendered, so it is a group.
	t.Commands = []*projector.Command{{Path: []string{}, Params: []*projector.Param{}}}
	for _, c := range r.Commands {
		cmd := command(c.Parser, []string{c.Name}, opts)
		switch {
		case c.Summary != nil:
			cmd.Summary = firstLine(*c.Summary)
		case c.Parser.Description != nil:
			cmd.Summary = firstLine(*c.Parser.Description)
		}
		t.Commands = append(t.Commands, cmd)
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

// command builds one runnable command from its parser: its options in
// parser order, then ArgsParam.
func command(p *rawParser, path []string, opts *Options) *projector.Command {
	cmd := &projector.Command{Path: path, Runnable: true, Params: []*projector.Param{}}
	visible := []*rawOption{}
	for _, o := range p.Options {
		if o.Action == "help" || o.Action == "version" || o.Suppressed {
			continue // not a caller's parameter: help and version print and exit; a hidden option is no one's
		}
		visible = append(visible, o)
	}
	// Several options may store into one dest (--user/--no-user). Each
	// flag or callback among them becomes a parameter of its own, named
	// after its option; at most one value option keeps the dest's name;
	// and giving two of them is refused, as the last would silently win.
	byDest := map[string][]*rawOption{}
	for _, o := range visible {
		if o.Dest != nil {
			byDest[*o.Dest] = append(byDest[*o.Dest], o)
		}
	}
	seen := map[string]*rawOption{}
	var sharedOrder []string
	sharedMembers := map[string][]string{}
	for _, o := range visible {
		param := optionParam(o, opts)
		if o.Dest != nil && len(byDest[*o.Dest]) > 1 {
			dest := *o.Dest
			values := 0
			for _, m := range byDest[dest] {
				if valueOption(m) {
					values++
				}
			}
			if !valueOption(o) || values > 1 && o != firstValue(byDest[dest]) {
				param.Name, param.Dest = optionName(o), dest
				if param.Arity == projector.ArityNone && param.Unrepresentable == nil && o.Action != "append_const" {
					// A flag of a shared dest: true gives it, storing its
					// value (Const); false says nothing, leaving the dest
					// to another member or the default.
					if o.Action != "store_const" {
						param.Const = param.FlagValue
					}
					param.FlagValue, param.Default, param.Choices = true, false, nil
				}
			}
			if sharedMembers[dest] == nil {
				sharedOrder = append(sharedOrder, dest)
			}
			sharedMembers[dest] = append(sharedMembers[dest], param.Name)
			if values > 1 && cmd.Unrepresentable == nil {
				cmd.Unrepresentable = &projector.Unrepresentable{ByParams: true,
					Reason: fmt.Sprintf("%d options that take a value store to dest %q: the last given would silently win", values, dest)}
			}
		}
		if prev, dup := seen[param.Name]; dup {
			cmd.Unrepresentable = &projector.Unrepresentable{ByParams: true,
				Reason: fmt.Sprintf("options %s and %s are both named %q", spell(prev), spell(o), param.Name)}
		}
		seen[param.Name] = o
		cmd.Params = append(cmd.Params, param)
	}
	for _, dest := range sharedOrder {
		cmd.Groups = append(cmd.Groups, projector.Group{Params: sharedMembers[dest]})
	}
	if o, dup := seen[ArgsParam]; dup {
		cmd.Unrepresentable = &projector.Unrepresentable{ByParams: true,
			Reason: fmt.Sprintf("option %s is named %q, the name of the positional arguments", spell(o), ArgsParam)}
	}
	cmd.Params = append(cmd.Params, &projector.Param{Name: ArgsParam, Kind: projector.KindString, Arity: projector.ArityZeroOrMore,
		Action: "optparse:args", Help: "the arguments after the options, handed to the program as they are"})
	return cmd
}

// valueOption reports whether o stores what it is given (store, append,
// count), as against a flag that stores a constant or a callback.
func valueOption(o *rawOption) bool {
	switch o.Action {
	case "store", "append", "count":
		return true
	}
	return false
}

func firstValue(members []*rawOption) *rawOption {
	for _, m := range members {
		if valueOption(m) {
			return m
		}
	}
	return nil
}

// optionName is the name of a parameter split from a shared dest: its
// first long option string, without dashes, in snake case.
func optionName(o *rawOption) string {
	s := slices.Concat(o.Long, o.Short)[0]
	return strings.ReplaceAll(strings.TrimLeft(s, "-"), "-", "_")
}

func spell(o *rawOption) string {
	return strings.Join(slices.Concat(o.Short, o.Long), "/")
}
