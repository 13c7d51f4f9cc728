package fromcobra

import (
	"fmt"
	"reflect"
	"strings"
	"unicode"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/verbsurface/verbsurface/projector"
)

// Options adjusts a walk. The zero value (or a nil *Options) walks every
// command and every visible flag except help.
type Options struct {
	// ExcludeFlags names flags (by long name) that are not caller
	// parameters anywhere in the tree: the embedder sets them itself. The
	// reference CLI's persistent machine-mode flag "json" is the example —
	// the dispatcher always renders it, so offering it would let a caller
	// switch machine mode off. An excluded flag is left out of parameters,
	// groups and required checks alike; a command that has it lists it in
	// projector.Command.Excluded.
	ExcludeFlags []string
}

// Walk walks the in-process cobra tree under root and returns its parser
// model (dialect pflag); nil opts means the zero Options. Each command becomes one projector.Command (parents
// before children, siblings in cobra's order); the root's Path is empty and
// Tree.Program is root.Name().
//
// Per command, parameters are, in this order: its local flags (including its
// own persistent flags), then the persistent flags it inherits from its
// ancestors (cobra parses those on the child too, so they are the child's
// parameters), each set in pflag's listing order; then the positionals of the
// Use line. Flags that are hidden, deprecated, named "help" or listed in
// opts.ExcludeFlags are left out. What makes a command or flag
// unrepresentable is listed in the package documentation.
//
// Walk calls each command's Args validator with probe argument lists
// (the validator is a function; calling it is the only way to learn which
// counts it accepts), and lets cobra merge persistent flags into each
// command's flag set, as cobra itself does before parsing; so two walks of
// one tree must not run at once. Walk a freshly built tree: one that has
// executed may carry the help command and flags cobra adds at execution.
func Walk(root *cobra.Command, opts *Options) (*projector.Tree, error) {
	if root == nil {
		return nil, fmt.Errorf("fromcobra: nil root command")
	}
	if opts == nil {
		opts = &Options{}
	}
	w := &walker{exclude: map[string]bool{"help": true},
		offered: map[string]string{}, claimed: map[string]claimant{}, bound: map[uintptr]string{}}
	for _, n := range opts.ExcludeFlags {
		w.exclude[n] = true
	}
	t := &projector.Tree{Program: root.Name(), Dialect: projector.DialectPflag}
	var visit func(c *cobra.Command, path []string)
	visit = func(c *cobra.Command, path []string) {
		t.Commands = append(t.Commands, w.command(c, path))
		for _, sub := range c.Commands() {
			visit(sub, append(append([]string(nil), path...), sub.Name()))
		}
	}
	visit(root, []string{})
	return t, nil
}

type walker struct {
	exclude map[string]bool

	// Scratch for command, reused from one command to the next (Walk
	// walks on one goroutine).
	offered map[string]string
	claimed map[string]claimant
	bound   map[uintptr]string
}

// claimant is what claimed a parameter name: a flag or a positional.
type claimant struct {
	by         string // a flag's name or a Use-line word
	positional bool
}

func (w *walker) command(c *cobra.Command, path []string) *projector.Command {
	cmd := &projector.Command{
		Path:     path,
		Aliases:  append([]string(nil), c.Aliases...),
		Summary:  summary(c),
		Hidden:   c.Hidden || c.Deprecated != "",
		Runnable: c.Runnable(),
		Params:   []*projector.Param{},
	}
	if c.DisableFlagParsing {
		cmd.Unrepresentable = &projector.Unrepresentable{Reason: "flag parsing is disabled (DisableFlagParsing), so the command reads its argv raw and no schema describes it"}
		return cmd
	}
	describe := func(c claimant) string {
		if c.positional {
			return "positional " + c.by
		}
		return "flag --" + c.by
	}
	// The walk's scratch maps, emptied for each command: a tree of
	// thousands of commands would otherwise allocate three maps apiece.
	clear(w.offered)
	clear(w.claimed)
	clear(w.bound)
	offered := w.offered // flag name -> param name, for offered flags
	claimed := w.claimed // param name -> what claimed it
	claim := func(name string, c claimant) {
		if prev, dup := claimed[name]; dup && cmd.Unrepresentable == nil {
			cmd.Unrepresentable = &projector.Unrepresentable{Reason: fmt.Sprintf("%s and %s both map to parameter name %q", describe(prev), describe(c), name)}
		}
		claimed[name] = c
	}
	bound := w.bound                 // a flag Value's address -> the first param bound to it
	var sharing map[uintptr][]string // the addresses bound to more than one: every param
	var sharingOrder []uintptr
	addFlags := func(fs *pflag.FlagSet) {
		fs.VisitAll(func(f *pflag.Flag) {
			if w.exclude[f.Name] {
				if f.Name != "help" {
					// Recorded, so a consumer can tell "excluded" from
					// "absent" (the surface checks the machine-mode flag
					// is really there: no flag, no machine-result seam).
					cmd.Excluded = append(cmd.Excluded, "--"+f.Name)
				}
				return
			}
			if f.Hidden || f.Deprecated != "" {
				if isRequired(f) && cmd.Unrepresentable == nil {
					cmd.Unrepresentable = &projector.Unrepresentable{Reason: fmt.Sprintf("flag --%s is required but hidden or deprecated, so the surface cannot supply it", f.Name)}
				}
				return
			}
			p := flagParam(f)
			if ptr := valuePointer(f.Value); ptr != 0 {
				if first, seen := bound[ptr]; !seen {
					bound[ptr] = p.Name
				} else {
					if sharing == nil {
						sharing = map[uintptr][]string{}
					}
					if len(sharing[ptr]) == 0 {
						sharingOrder = append(sharingOrder, ptr)
						sharing[ptr] = []string{first}
					}
					sharing[ptr] = append(sharing[ptr], p.Name)
				}
			}
			offered[f.Name] = p.Name
			claim(p.Name, claimant{by: f.Name})
			cmd.Params = append(cmd.Params, p)
		})
	}
	addFlags(c.LocalFlags())
	addFlags(c.InheritedFlags())
	w.groups(c, cmd, offered)
	// Flags bound to one variable (an old and a new name for one
	// setting): the last one given wins, so giving two is refused.
	for _, ptr := range sharingOrder {
		if names := sharing[ptr]; len(names) > 1 {
			cmd.Groups = append(cmd.Groups, projector.Group{Params: names})
		}
	}

	pos, u := positionals(c)
	if u != nil {
		if cmd.Unrepresentable == nil {
			cmd.Unrepresentable = u
		}
	} else {
		for _, p := range pos {
			// A positional's name is the Use line's documentation; when a
			// flag has it already, the positional yields ("model_arg").
			for {
				if prev, taken := claimed[p.Name]; !taken || prev.positional {
					break
				}
				p.Name += "_arg"
			}
			claim(p.Name, claimant{by: p.Help, positional: true})
			// The Use-line word alone ("[PROMPT]") tells a model little:
			// say what it is until an annotation says better.
			p.Help = positionalHelp(c, p)
			cmd.Params = append(cmd.Params, p)
		}
	}
	if u := applyConstraints(c, cmd); u != nil && cmd.Unrepresentable == nil {
		cmd.Unrepresentable = u
	}
	return cmd
}

func summary(c *cobra.Command) string {
	if c.Short != "" {
		return c.Short
	}
	long := strings.TrimSpace(c.Long)
	if i := strings.IndexByte(long, '\n'); i >= 0 {
		long = long[:i]
	}
	return long
}

// snakeCase turns a flag's long name or a Use-line word into a schema name:
// "dry-run" → "dry_run", "promptFile" → "prompt_file", "MODEL" → "model".
func snakeCase(s string) string {
	if isSnake(s) {
		return s // most flag names: nothing to change, nothing to allocate
	}
	var b strings.Builder
	runes := []rune(s)
	for i, r := range runes {
		switch {
		case r == '-' || r == '.' || r == ' ':
			b.WriteByte('_')
		case unicode.IsUpper(r):
			if i > 0 && (unicode.IsLower(runes[i-1]) || unicode.IsDigit(runes[i-1])) {
				b.WriteByte('_')
			}
			b.WriteRune(unicode.ToLower(r))
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// isSnake reports whether snakeCase would return s unchanged: lower-case
// ASCII letters, digits and underscores only.
func isSnake(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; !('a' <= c && c <= 'z' || '0' <= c && c <= '9' || c == '_') {
			return false
		}
	}
	return true
}

// valuePointer is the address a flag's Value points at (pflag's built-in
// values are pointers to the bound variable), or 0.
func valuePointer(v pflag.Value) uintptr {
	rv := reflect.ValueOf(v)
	if rv.Kind() != reflect.Pointer || rv.IsNil() || rv.Type().Elem().Size() == 0 {
		return 0 // zero-size values may share an address without sharing anything
	}
	return rv.Pointer()
}

// positionalHelp is a positional's description when its command gives none
// (see [Constraint].Description): the word and where it stands in the
// command's usage, so a model can tell what it is for.
func positionalHelp(c *cobra.Command, p *projector.Param) string {
	word := strings.Trim(p.Help, "[]<>.")
	if word == "" {
		word = strings.ToUpper(p.Name)
	}
	opt := ""
	if !p.Required {
		opt = "optional "
	}
	return fmt.Sprintf("the %spositional argument %s of `%s`", opt, word, c.UseLine())
}
