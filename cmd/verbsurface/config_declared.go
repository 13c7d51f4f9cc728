//go:build unix

package main

import (
	"fmt"
	"slices"
	"strings"

	"github.com/verbsurface/verbsurface/projector"
	"go.yaml.in/yaml/v3"
)

// DeclaredSource is source.declared: the commands of a program no reader
// can read, declared by the operator (docs/fronting.md, "Declared
// verbs"). It is decoded here and checked by projector.Declare, which a Go
// embedder calls directly.
type DeclaredSource struct {
	// Values is how an option's value follows it: equals (--opt=value,
	// the default) or separate (--opt value).
	Values string `yaml:"values"`
	// Separator says whether "--" goes before the positionals (default
	// true); false for a program that refuses "--".
	Separator *bool `yaml:"separator"`
	// Help is the arguments after a command's path that make the program
	// print its options, for check's comparison (default [--help]; []
	// compares nothing).
	Help *[]string `yaml:"help"`
	// Commands are the declared commands.
	Commands []DeclaredCommand `yaml:"commands"`
}

// DeclaredCommand is one declared command.
type DeclaredCommand struct {
	// Path is the command path ([] for the program itself); required.
	Path        *[]string       `yaml:"path"`
	Summary     string          `yaml:"summary"`
	Options     []DeclaredParam `yaml:"options"`
	Positionals []DeclaredParam `yaml:"positionals"`
	// Exclusive lists sets of parameters (by name) no two of which may be
	// given together.
	Exclusive [][]string `yaml:"exclusive"`
}

// DeclaredParam is one declared option or positional.
type DeclaredParam struct {
	Name string `yaml:"name"`
	// Flags are the option strings (options only): [-c, --compact].
	Flags []string `yaml:"flags"`
	// Type is string (the default), integer, number or boolean (a flag).
	Type string `yaml:"type"`
	// Arity: for an option none (a flag: the default for a boolean), one
	// (the default), repeated (given once per value) or count (-vvv); for
	// a positional one (the default), optional, zero_or_more or
	// one_or_more.
	Arity    string   `yaml:"arity"`
	Choices  []any    `yaml:"choices"`
	Default  any      `yaml:"default"`
	Required bool     `yaml:"required"`
	Minimum  *float64 `yaml:"minimum"`
	Maximum  *float64 `yaml:"maximum"`
	// Path is read, write, dir or read_or_dir: the value names a file the
	// program opens, confined to the roots.
	Path string `yaml:"path"`
	// Pattern is an RE2 pattern every value must match.
	Pattern string `yaml:"pattern"`
	Help    string `yaml:"help"`
	// Unlisted says the program's help does not show the option (its
	// manual does): check does not look for it there.
	Unlisted bool `yaml:"unlisted"`
}

// declaredRendering is the source's rendering as projector states it.
func (d *DeclaredSource) rendering() projector.Rendering {
	r := projector.Rendering{Values: projector.ValueSpelling(d.Values)}
	if d.Separator != nil && !*d.Separator {
		r.NoSeparator = true
	}
	return r
}

// helpArgs is what check appends to a command path to read its options
// (nil: compare nothing).
func (d *DeclaredSource) helpArgs() []string {
	if d.Help == nil {
		return []string{"--help"}
	}
	return *d.Help
}

// checkDeclared checks source.declared and builds its tree (kept in
// c.declared): every mistake a *ConfigError naming the command's line,
// whatever projector.Declare refuses included, so a declaration the
// surface could not keep its promises about never loads.
func (c *Config) checkDeclared() error {
	d := c.Source.Declared
	line := func(keys ...any) int {
		if l := nodeLine(c.doc, append([]any{"source", "declared"}, keys...)...); l > 0 {
			return l
		}
		return nodeLine(c.doc, "source")
	}
	bad := func(l int, field, format string, args ...any) error {
		return &ConfigError{File: c.file, Line: l, Field: "source.declared" + field, Msg: fmt.Sprintf(format, args...)}
	}
	switch d.Values {
	case "", string(projector.ValuesEquals), string(projector.ValuesSeparate):
	default:
		return bad(line("values"), ".values", "%q is not equals (--opt=value) or separate (--opt value)", d.Values)
	}
	if d.Help != nil && len(*d.Help) > 0 && !strings.HasPrefix((*d.Help)[0], "-") {
		return bad(line("help"), ".help", "%q is not an option: help holds the arguments that make the program print its options ([--help], [-h])", (*d.Help)[0])
	}
	if len(d.Commands) == 0 {
		return bad(line(), ".commands", "required: the commands to declare, each with its path, options and positionals")
	}
	r := d.rendering()
	var cmds []*projector.Command
	for i, dc := range d.Commands {
		field := fmt.Sprintf(".commands[%d]", i)
		l := line("commands", i)
		cmd, err := dc.command()
		if err != nil {
			return bad(l, field, "%v", err)
		}
		// Declared one at a time first, so a refusal names its command's
		// line; then together, for what lies between them.
		if _, err := projector.Declare(c.Name, r, cmd); err != nil {
			return bad(l, field, "%s", declareMessage(err))
		}
		cmds = append(cmds, cmd)
	}
	t, err := projector.Declare(c.Name, r, cmds...)
	if err != nil {
		return bad(line("commands"), ".commands", "%s", declareMessage(err))
	}
	c.declared = t
	return nil
}

// declareMessage is projector.Declare's refusal as the configuration's
// words: the declaration is the model, so "invalid parser model" says
// nothing more.
func declareMessage(err error) string {
	msg := strings.TrimPrefix(err.Error(), "projector: ")
	return strings.Replace(msg, "invalid parser model: ", "", 1)
}

// command is the declared command as the projector models it, before
// projector.Declare fills defaults and checks it.
func (dc *DeclaredCommand) command() (*projector.Command, error) {
	if dc.Path == nil {
		return nil, fmt.Errorf("path: required: the command path, as a list ([] for the program itself, [remote, add])")
	}
	cmd := &projector.Command{Path: slices.Clone(*dc.Path), Summary: dc.Summary}
	for _, list := range []struct {
		key    string
		params []DeclaredParam
	}{{"options", dc.Options}, {"positionals", dc.Positionals}} {
		for j, dp := range list.params {
			where := fmt.Sprintf("%s[%d]", list.key, j)
			if dp.Name == "" {
				return nil, fmt.Errorf("%s: name: required", where)
			}
			if list.key == "options" && len(dp.Flags) == 0 {
				return nil, fmt.Errorf("%s (%s): flags: required: the option strings ([-c, --compact])", where, dp.Name)
			}
			if list.key == "positionals" && len(dp.Flags) > 0 {
				return nil, fmt.Errorf("%s (%s): a positional has no flags (declare it under options:)", where, dp.Name)
			}
			p := &projector.Param{Name: dp.Name, Options: dp.Flags, Kind: projector.Kind(dp.Type), Arity: projector.Arity(dp.Arity),
				Choices: dp.Choices, Default: dp.Default, Required: dp.Required, Minimum: dp.Minimum, Maximum: dp.Maximum,
				Pattern: dp.Pattern, Help: dp.Help, Action: "declared"}
			switch p.Kind {
			case "", projector.KindString, projector.KindInteger, projector.KindNumber, projector.KindBoolean:
			default:
				return nil, fmt.Errorf("%s (%s): type %q is not string, integer, number or boolean", where, dp.Name, dp.Type)
			}
			if dp.Path != "" {
				u := projector.PathUse(dp.Path)
				if !slices.Contains(projector.PathUses, u) {
					return nil, fmt.Errorf("%s (%s): path %q is not read, write, dir or read_or_dir", where, dp.Name, dp.Path)
				}
				p.Path = u
			}
			cmd.Params = append(cmd.Params, p)
		}
	}
	for _, g := range dc.Exclusive {
		cmd.Groups = append(cmd.Groups, projector.Group{Params: g})
	}
	return cmd, nil
}

// nodeLine is the line of the node reached from doc's root by keys (a
// string for a mapping's key, an int for a sequence's item): the line of
// the last key when it is a mapping's, of the item otherwise; 0 when there
// is none.
func nodeLine(doc *yaml.Node, keys ...any) int {
	if doc == nil || len(doc.Content) != 1 {
		return 0
	}
	n := doc.Content[0]
	line := n.Line
	for _, k := range keys {
		switch k := k.(type) {
		case string:
			if n.Kind != yaml.MappingNode {
				return 0
			}
			var key, next *yaml.Node
			for i := 0; i+1 < len(n.Content); i += 2 {
				if n.Content[i].Value == k {
					key, next = n.Content[i], n.Content[i+1]
				}
			}
			if next == nil {
				return 0
			}
			line, n = key.Line, next
		case int:
			if n.Kind != yaml.SequenceNode || k >= len(n.Content) {
				return 0
			}
			n = n.Content[k]
			line = n.Line
		}
	}
	return line
}
