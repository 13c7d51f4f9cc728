package fromclick

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/verbsurface/verbsurface/projector"
	"github.com/verbsurface/verbsurface/projector/internal/pywalk"
)

// Walk imports target's click command with Python and returns its model
// (dialect click). target is "module:object" — a click.Command (a Group
// included) or a Typer app — or "module:function", a factory called without
// arguments that returns one. A failure to get a command is an *Error
// naming the target and its Kind.
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
	if opts == nil {
		opts = &Options{}
	}
	status := func(r rawResult) pywalk.Status {
		s := r.Status
		s.OK = s.OK && r.Command != nil
		return s
	}
	return pywalk.Walk(ctx, walker(opts), targets, status, func(_ string, r rawResult) *projector.Tree { return buildTree(r.Command, opts) })
}

// The walker's raw report (see walker.py).
type rawResult struct {
	pywalk.Status
	Command *rawCommand `json:"command"`
}

type rawCommand struct {
	Name                 string        `json:"name"`
	Class                string        `json:"class"`
	Summary              string        `json:"summary"`
	Hidden               bool          `json:"hidden"`
	Deprecated           any           `json:"deprecated"` // false, true or a message
	Group                bool          `json:"group"`
	InvokeWithoutCommand bool          `json:"invoke_without_command"`
	NoArgsIsHelp         bool          `json:"no_args_is_help"`
	OptPrefixes          []string      `json:"opt_prefixes"`
	Params               []*rawParam   `json:"params"`
	Commands             []rawSubcmd   `json:"commands"`
	ListError            string        `json:"list_error"`
	ancestors            []*rawCommand // filled while building
}

type rawSubcmd struct {
	Name    string      `json:"name"`
	Aliases []string    `json:"aliases"`
	Error   string      `json:"error"`
	Cycle   bool        `json:"cycle"`
	SameAs  []string    `json:"same_as"`
	Command *rawCommand `json:"command"`
}

type rawParam struct {
	ParamType      string   `json:"param_type"` // option, argument, other
	Class          string   `json:"class"`
	Name           string   `json:"name"`
	Opts           []string `json:"opts"`
	SecondaryOpts  []string `json:"secondary_opts"`
	Required       bool     `json:"required"`
	Hidden         bool     `json:"hidden"`
	Nargs          int      `json:"nargs"`
	Multiple       bool     `json:"multiple"`
	Count          bool     `json:"count"`
	IsFlag         bool     `json:"is_flag"`
	IsBoolFlag     bool     `json:"is_bool_flag"`
	FlagValue      rawValue `json:"flag_value"`
	FlagNeedsValue bool     `json:"flag_needs_value"`
	Default        rawValue `json:"default"`
	Envvar         bool     `json:"envvar"`
	Prompt         bool     `json:"prompt"`
	PromptRequired bool     `json:"prompt_required"`
	HideInput      bool     `json:"hide_input"`
	IsEager        bool     `json:"is_eager"`
	ExposeValue    bool     `json:"expose_value"`
	Callback       *string  `json:"callback"`
	CallbackKnown  *string  `json:"callback_known"`
	Help           *string  `json:"help"`
	Deprecated     any      `json:"deprecated"`
	Type           *rawType `json:"type"`
	Metavar        *string  `json:"metavar"`
}

type rawValue struct {
	Value      json.RawMessage `json:"value"`
	Unset      bool            `json:"unset"`
	Callable   *string         `json:"callable"`
	Unjsonable *string         `json:"unjsonable"`
}

type rawType struct {
	Class         string     `json:"class"`
	Name          *string    `json:"name"`
	Known         *string    `json:"known"`
	OverridesConv bool       `json:"overrides_convert"`
	Min           any        `json:"min"`
	Max           any        `json:"max"`
	MinOpen       bool       `json:"min_open"`
	MaxOpen       bool       `json:"max_open"`
	Clamp         bool       `json:"clamp"`
	Choices       []any      `json:"choices"`
	ChoicesRepr   *string    `json:"choices_repr"`
	EnumNames     bool       `json:"enum_names"`
	CaseSensitive bool       `json:"case_sensitive"`
	FileOkay      bool       `json:"file_okay"`
	DirOkay       bool       `json:"dir_okay"`
	Writable      bool       `json:"writable"`
	AllowDash     bool       `json:"allow_dash"`
	PathType      *string    `json:"path_type"`
	Mode          string     `json:"mode"`
	Formats       []string   `json:"formats"`
	Types         []*rawType `json:"types"`
}

func (t *rawType) known() string {
	if t == nil || t.Known == nil {
		return ""
	}
	return *t.Known
}

func str(p *string) string {
	if p == nil {
		return ""
	}
	return *p
}

func buildTree(root *rawCommand, opts *Options) *projector.Tree {
	t := &projector.Tree{Program: root.Name, Dialect: projector.DialectClick}
	type sharing struct {
		cmd   *projector.Command
		first []string
	}
	var shared []sharing
	ambiguous := func(other string) *projector.Unrepresentable {
		return &projector.Unrepresentable{Reason: fmt.Sprintf("ambiguous nested command: the same click command object is also reachable as %q", other)}
	}
	var visit func(c *rawCommand, path, aliases []string, ancestors []*rawCommand)
	visit = func(c *rawCommand, path, aliases []string, ancestors []*rawCommand) {
		cmd := command(c, path, ancestors, opts)
		cmd.Aliases = aliases
		t.Commands = append(t.Commands, cmd)
		if !c.Group {
			return
		}
		if c.ListError != "" && cmd.Unrepresentable == nil {
			cmd.Unrepresentable = &projector.Unrepresentable{Action: c.Class, Reason: "its subcommands cannot be listed: " + c.ListError}
		}
		for _, sc := range c.Commands {
			subPath := append(slices.Clone(path), sc.Name)
			if sc.Command != nil {
				visit(sc.Command, subPath, sc.Aliases, append(slices.Clone(ancestors), c))
				continue
			}
			sub := &projector.Command{Path: subPath, Aliases: sc.Aliases, Runnable: true, Params: []*projector.Param{}}
			switch {
			case sc.Cycle:
				sub.Unrepresentable = &projector.Unrepresentable{Action: c.Class, Reason: "the subcommand is one of its own ancestors (a cycle of groups)"}
			case sc.SameAs != nil:
				sub.Unrepresentable = ambiguous(strings.Join(sc.SameAs, " "))
				shared = append(shared, sharing{sub, sc.SameAs})
			case sc.Error != "":
				sub.Unrepresentable = &projector.Unrepresentable{Action: c.Class, Reason: "the group cannot resolve the subcommand: " + sc.Error}
			default:
				sub.Unrepresentable = &projector.Unrepresentable{Action: c.Class, Reason: "the walker did not describe the subcommand"}
			}
			t.Commands = append(t.Commands, sub)
		}
	}
	visit(root, []string{}, nil, nil)
	for _, s := range shared {
		for _, other := range t.Commands {
			if slices.Equal(other.Path, s.first) && other.Unrepresentable == nil {
				other.Unrepresentable = ambiguous(strings.Join(s.cmd.Path, " "))
			}
		}
	}
	return t
}

// deprecatedLabel is the mark a deprecated command or option carries in its
// description, unless click already put one there.
func deprecatedLabel(text string, deprecated any) string {
	msg := ""
	switch d := deprecated.(type) {
	case bool:
		if !d {
			return text
		}
	case string:
		if d == "" {
			return text
		}
		msg = d
	default:
		return text
	}
	if strings.Contains(strings.ToUpper(text), "DEPRECATED") {
		return text
	}
	label := "(DEPRECATED)"
	if msg != "" {
		label = "(DEPRECATED: " + msg + ")"
	}
	return strings.TrimSpace(text + " " + label)
}

// command builds one command; ancestors are the groups that lead to it,
// outermost first.
func command(c *rawCommand, path []string, ancestors []*rawCommand, opts *Options) *projector.Command {
	cmd := &projector.Command{
		Path:     path,
		Summary:  deprecatedLabel(c.Summary, c.Deprecated),
		Hidden:   c.Hidden,
		Runnable: !c.Group || c.InvokeWithoutCommand,
		Params:   []*projector.Param{},
	}
	fail := func(u *projector.Unrepresentable) {
		if cmd.Unrepresentable == nil {
			cmd.Unrepresentable = u
		}
	}
	// What an ancestor group parses comes before the subcommand name in
	// argv; the surface renders nothing there, so an ancestor must need
	// nothing (its options keep their defaults).
	for _, a := range ancestors {
		for _, p := range a.Params {
			switch {
			case p.ParamType == "argument":
				fail(&projector.Unrepresentable{Action: p.Class, Reason: fmt.Sprintf("ancestor group %q takes argument %q before the subcommand name, which the surface does not render", a.Name, p.Name)})
			case p.Required:
				fail(&projector.Unrepresentable{Action: p.Class, Reason: fmt.Sprintf("ancestor group %q requires option %s before the subcommand name, which the surface does not render", a.Name, strings.Join(p.Opts, "/"))})
			case p.Prompt && str(p.CallbackKnown) != "confirmation":
				fail(&projector.Unrepresentable{Action: p.Class, Reason: fmt.Sprintf("ancestor group %q prompts for option %s on stdin when it is not given, before the subcommand name", a.Name, strings.Join(p.Opts, "/"))})
			}
		}
	}

	exclude := map[string]bool{}
	for _, e := range opts.Exclude {
		exclude[e] = true
	}
	// Flags that share a parameter name (click's flag_value idiom:
	// --upper/--lower both storing into "mode") become one boolean each.
	byName := map[string][]*rawParam{}
	for _, p := range c.Params {
		byName[p.Name] = append(byName[p.Name], p)
	}
	sharedMembers := map[string][]string{}
	var sharedOrder []string
	seen := map[string]bool{}
	var args []*projector.Param
	var excludedArgs []*rawParam
	for _, rp := range c.Params {
		if metaOption(rp) {
			continue // help, version and completion options, like argparse help
		}
		excluded := exclude[rp.Name]
		for _, o := range append(slices.Clone(rp.Opts), rp.SecondaryOpts...) {
			excluded = excluded || exclude[o]
		}
		// Hidden hides an option; on an argument (Typer's) it only hides
		// it from help, and the argument still takes its word.
		if excluded || rp.Hidden && rp.ParamType != "argument" {
			if excluded {
				cmd.Excluded = append(cmd.Excluded, append(slices.Clone(rp.Opts), rp.SecondaryOpts...)...)
			}
			if rp.Required || rp.Prompt {
				why := "hidden"
				if excluded {
					why = "excluded (Options.Exclude)"
				}
				fail(&projector.Unrepresentable{Action: rp.Class, Reason: fmt.Sprintf("%s is required (or prompts) but %s", describe(rp), why)})
			}
			if rp.ParamType == "argument" {
				excludedArgs = append(excludedArgs, rp)
			}
			continue
		}
		param := paramOf(rp, c, opts)
		if group := byName[rp.Name]; len(group) > 1 && param.Unrepresentable == nil {
			if rp.IsFlag && !rp.IsBoolFlag {
				param.Name, param.Dest = optionName(rp), rp.Name
			}
			if sharedMembers[rp.Name] == nil {
				sharedOrder = append(sharedOrder, rp.Name)
			}
			sharedMembers[rp.Name] = append(sharedMembers[rp.Name], param.Name)
		}
		if seen[param.Name] && param.Unrepresentable == nil {
			fail(&projector.Unrepresentable{Action: rp.Class, Reason: fmt.Sprintf("several parameters store to %q and not all of them are flags with a flag_value", rp.Name)})
		}
		seen[param.Name] = true
		cmd.Params = append(cmd.Params, param)
		if param.Positional() {
			args = append(args, param)
			for _, ex := range excludedArgs {
				// The excluded argument would take this one's word.
				fail(&projector.Unrepresentable{Action: rp.Class, Reason: fmt.Sprintf("%s is excluded but comes before %s, whose words it would take", describe(ex), describe(rp))})
			}
		}
	}
	for _, name := range sharedOrder {
		if members := sharedMembers[name]; len(members) >= 2 {
			cmd.Groups = append(cmd.Groups, projector.Group{Params: members})
		}
	}
	if u := arrangeArguments(args); u != nil {
		fail(u)
	}
	if c.NoArgsIsHelp && cmd.Runnable && len(cmd.Params) > 0 {
		// click shows help instead of running when argv is empty: at
		// least one parameter must be given.
		var names []string
		for _, p := range cmd.Params {
			names = append(names, p.Name)
		}
		cmd.AnyRequired = append(cmd.AnyRequired, names)
	}
	return cmd
}

// arrangeArguments fits click's reading of arguments to the model. click
// fills the arguments before the one nargs=-1 argument from the left and
// those after it from the right (click.parser._unpack_args), handing a
// missing one None. So an optional argument followed by a required one can
// never be left out (the required one's word would be its), nor can an
// optional one after the nargs=-1 argument (it would take the last word):
// both are offered as required. What remains optional is a run directly
// before the variadic argument or at the end, read left to right, which
// the projector chains with dependentRequired.
func arrangeArguments(args []*projector.Param) *projector.Unrepresentable {
	spos := -1
	for i, a := range args {
		if a.Arity == projector.ArityZeroOrMore || a.Arity == projector.ArityOneOrMore {
			if spos >= 0 {
				return &projector.Unrepresentable{Reason: fmt.Sprintf("arguments %q and %q both take nargs=-1, which click refuses", args[spos].Name, a.Name)}
			}
			spos = i
		}
	}
	requiredLater := false
	for i := len(args) - 1; i >= 0; i-- {
		a := args[i]
		switch {
		case spos >= 0 && i > spos:
			a.Required = true
			a.Arity = fixedArity(a)
		case i == spos:
		default:
			if requiredLater && !a.Required {
				a.Required = true
				a.Arity = fixedArity(a)
			}
		}
		if a.Required && i != spos {
			requiredLater = true
		}
		if a.Arity == projector.ArityExactly && !a.Required {
			a.Required = true // click reads an incomplete tuple as an error, never as "omitted"
		}
	}
	return nil
}

func fixedArity(a *projector.Param) projector.Arity {
	if a.Arity == projector.ArityOptional {
		return projector.ArityOne
	}
	return a.Arity
}

// metaOption reports whether rp is a help, version or completion option:
// eager, it prints something and exits, and is not a parameter (as
// argparse's help and version actions are not). click's own help and
// version options and Typer's completion options are known by their
// callbacks; a program's own version option by its name.
func metaOption(rp *rawParam) bool {
	if rp.ParamType != "option" {
		return false
	}
	switch str(rp.CallbackKnown) {
	case "help", "version", "completion":
		return true
	}
	return rp.IsEager && rp.IsFlag && slices.Contains(rp.Opts, "--version")
}

func describe(p *rawParam) string {
	if p.ParamType == "argument" {
		return fmt.Sprintf("argument %q", p.Name)
	}
	return "option " + strings.Join(append(slices.Clone(p.Opts), p.SecondaryOpts...), "/")
}

// optionName is the parameter name of a flag split from a shared name:
// its first long option string, without dashes, in snake case.
func optionName(p *rawParam) string {
	o := p.Opts[0]
	for _, s := range p.Opts {
		if strings.HasPrefix(s, "--") {
			o = s
			break
		}
	}
	return strings.ReplaceAll(strings.TrimLeft(o, "-/+"), "-", "_")
}
