package verbsurface

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/verbsurface/verbsurface/projector"
)

// MachineAt is where the machine-mode arguments go on the command line.
type MachineAt string

const (
	// MachineAtLeaf puts them after the command path: `cli job list --json`.
	// The zero value means leaf.
	MachineAtLeaf MachineAt = "leaf"
	// MachineAtRoot puts them before the command path, on the root
	// parser: `cli --json job list` (argparse's usual top-level --json).
	MachineAtRoot MachineAt = "root"
)

// Machine says how the surface puts the CLI into machine mode: the
// arguments, and where they go. See Options.Machine.
type Machine struct {
	// Args are rendered as given on every dispatch: options, each
	// followed by its value when it takes one ("--json", "--format=json",
	// "-o", "json"). Args[0] must be an option. The seam check reads them
	// with the command's model: each must be an option of it, with a value
	// it admits (one of its choices, where it has some), and none may take
	// a path.
	Args []string
	// At is leaf (default) or root.
	At MachineAt
}

func (m Machine) check() error {
	switch m.At {
	case "", MachineAtLeaf, MachineAtRoot:
	default:
		return fmt.Errorf("verbsurface: New: Options.Machine.At %q is not %q or %q", m.At, MachineAtLeaf, MachineAtRoot)
	}
	if len(m.Args) > 0 && !strings.HasPrefix(m.Args[0], "-") {
		return fmt.Errorf("verbsurface: New: Options.Machine.Args[0] %q is not an option (it must start with -)", m.Args[0])
	}
	return nil
}

// option is the option string the seam check looks for: Args[0] without
// an attached "=value". "" when there are no machine arguments (the
// runner arranges machine output itself).
func (m Machine) option() string {
	if len(m.Args) == 0 {
		return ""
	}
	opt, _, _ := strings.Cut(m.Args[0], "=")
	return opt
}

// Seam reports whether cmd of t can print the machine result with these
// arguments: nil when it accepts the machine options where At puts them,
// each with a value it takes (or there are no arguments), else an error
// whose text says why and which setting fixes it, the reason Surface.Check
// and help give for such a verb. An inventory passes it as
// projector.InventoryOptions.Offerable, so a command without the seam is
// not counted clean.
func (m Machine) Seam(t *projector.Tree, cmd *projector.Command) error {
	return m.SeamWith(t, cmd, nil)
}

// SeamWith is [Machine.Seam] for a verb that says which of cmd's
// parameters name files ([Verb.PathParams]): one it says is
// projector.PathUseNone may carry the machine mode whatever its name (a
// format option called --output). An inventory judging a command as a
// verb offers it uses this.
func (m Machine) SeamWith(t *projector.Tree, cmd *projector.Command, pathParams map[string]projector.PathUse) error {
	if _, bad := m.seam(t, cmd, pathParams); bad != nil {
		return errors.New(bad.Reason)
	}
	return nil
}

// seam checks that the machine options reach cmd where the surface puts
// them, and returns cmd without them (they are the surface's channel,
// never a caller's parameters). It checks, in this order: the first
// option is accepted where At puts it (else it says which position or
// setting fixes it); every word reads as an option of that command with
// its value ([readFixed]); no option takes a path (marked, or named like
// one: projector.LooksLikePath), since `--output json` on a command whose
// --output names a file writes a file named json instead of printing.
// uses is the verb's own word on which parameters are paths
// (Verb.PathParams): PathUseNone there says an option is not one,
// whatever its name.
func (m Machine) seam(t *projector.Tree, cmd *projector.Command, uses map[string]projector.PathUse) (*projector.Command, *unavailableReason) {
	opt := m.option()
	if opt == "" {
		return cmd, nil
	}
	path := strings.Join(cmd.Path, " ")
	if path == "" {
		path = t.Program // the root command: a program of one command
	}
	root := t.Find()
	rootHas := root != nil && hasOption(root, opt)
	target := cmd
	if m.At == MachineAtRoot {
		if !rootHas {
			hint := ""
			if hasOption(cmd, opt) {
				hint = fmt.Sprintf("; %q accepts it after the command path: set the machine position to leaf (Options.Machine.At, config machine.at)", path)
			}
			return nil, &unavailableReason{Reason: fmt.Sprintf(
				"no machine-result seam: the root parser of %s does not accept %s, so %q cannot print the one JSON result the surface reads%s",
				t.Program, opt, path, hint)}
		}
		target = root
	} else if !hasOption(cmd, opt) {
		hint := "; configure the arguments that select its machine mode (Options.Machine, config machine.args)"
		if rootHas {
			hint = "; the root parser accepts it: set the machine position to root (Options.Machine.At, config machine.at: root)"
		}
		return nil, &unavailableReason{Reason: fmt.Sprintf(
			"no machine-result seam: %q does not accept %s, so it cannot print the one JSON result the surface reads%s",
			path, opt, hint)}
	}
	fixed, err := readFixed(target, m.Args)
	if err != nil {
		return nil, &unavailableReason{Reason: fmt.Sprintf("no machine-result seam: the machine arguments %q on %q: %v", m.Args, path, err)}
	}
	for _, f := range fixed {
		if p := f.param; p != nil && takesPath(p, uses) {
			return nil, &unavailableReason{Param: p.Name, Reason: fmt.Sprintf(
				"no machine-result seam: %s on %q takes a path (parameter %s), so the machine arguments %q would name a file rather than select machine output; choose the option that selects the output format",
				f.opt, path, p.Name, m.Args)}
		}
	}
	return projector.WithdrawParams(cmd, fixedOptions(fixed)...), nil
}

// takesPath reports whether p's value names a file: as the verb says
// (uses, Verb.PathParams), else as the adapter marked it or its name
// suggests (projector.LooksLikePath).
func takesPath(p *projector.Param, uses map[string]projector.PathUse) bool {
	if use, said := uses[p.Name]; said {
		return use != projector.PathUseNone
	}
	return p.Path != projector.PathUseNone || projector.LooksLikePath(p)
}

// fixedOption is one option of fixed arguments (Machine.Args, Verb.Args)
// as the command's model reads it.
type fixedOption struct {
	opt    string           // the option string ("--format")
	param  *projector.Param // nil for a flag the adapter excluded from the model
	values []string         // the words it takes as values
}

func fixedOptions(fixed []fixedOption) []string {
	out := make([]string, len(fixed))
	for i, f := range fixed {
		out[i] = f.opt
	}
	return out
}

// readFixed reads words as options of cmd, each followed by its value
// when it takes one, and refuses, in this order: a word that is not an
// option ("json", "-", "--"); "-o=v" (click would keep the "="; a
// declared command's own option strings excepted); an option
// cmd does not have; a value on an option that takes none; a missing value, or one starting
// with '-' as a separate word (write --opt=VALUE); an option that may be
// given bare, with a separate word (attach the value: --opt=VALUE); an
// option taking one or more values given none (one taking zero or more
// may be given alone: its values are the words up to the next option); a
// value the parameter does not admit (kind, choices, pattern: projector.CheckWord). An option the
// adapter excluded from the model (Command.Excluded) is taken as written,
// with the next word, if it is not an option, as its value: its model is
// gone, so nothing about it can be checked (leave it in the model, and the
// seam withdraws it from the schema all the same, to have it checked).
func readFixed(cmd *projector.Command, words []string) ([]fixedOption, error) {
	var out []fixedOption
	for i := 0; i < len(words); i++ {
		w := words[i]
		if !strings.HasPrefix(w, "-") || w == "-" || w == "--" {
			return nil, fmt.Errorf("%q is not an option: fixed arguments are options, each followed by its value when it takes one", w)
		}
		opt, val, attached := strings.Cut(w, "=")
		if attached && !strings.HasPrefix(w, "--") && !declaredOption(cmd, opt) {
			return nil, fmt.Errorf("%q: give a short option's value as the next word (click reads \"-o=v\" as \"=v\")", w)
		}
		var p *projector.Param
		negated := false
		for _, c := range cmd.Params {
			if slices.Contains(c.Options, opt) {
				p = c
			} else if slices.Contains(c.NegOptions, opt) {
				p, negated = c, true
			}
		}
		next := func() (string, bool) {
			if i+1 < len(words) && !strings.HasPrefix(words[i+1], "-") {
				return words[i+1], true
			}
			return "", false
		}
		f := fixedOption{opt: opt, param: p}
		switch {
		case p == nil && !slices.Contains(cmd.Excluded, opt):
			return nil, fmt.Errorf("%s is not an option of %q", opt, strings.Join(cmd.Path, " "))
		case p == nil:
			// Excluded from the model (a cobra walk's ExcludeFlags): it
			// exists, but whether and what it takes cannot be checked, so
			// it is taken as written, a following word as its value.
			if v, more := next(); !attached && more {
				f.values = []string{v}
				i++
			}
		case negated || p.Arity == projector.ArityNone || p.Arity == projector.ArityCount:
			if attached {
				return nil, fmt.Errorf("%s takes no value", opt)
			}
		case (p.Arity == projector.ArityZeroOrMore || p.Arity == projector.ArityOneOrMore) && !attached:
			// Its values are the words up to the next option: the
			// caller's rendered arguments after it start with an option
			// or "--", where the parser stops taking values. Zero words
			// is the option given alone (argparse nargs='*').
			for {
				v, ok := next()
				if !ok {
					break
				}
				f.values = append(f.values, v)
				i++
			}
			if len(f.values) == 0 && p.Arity == projector.ArityOneOrMore {
				return nil, fmt.Errorf("%s takes one or more values (the next words, not starting with '-')", opt)
			}
		case attached:
			if p.Arity == projector.ArityExactly && p.N > 1 || p.Arity == projector.ArityRepeatedTuple {
				return nil, fmt.Errorf("%s takes %d values as separate words", opt, p.N)
			}
			f.values = []string{val}
		case p.Bare:
			if _, more := next(); more {
				return nil, fmt.Errorf("%s may also be given without a value, so a separate word is ambiguous: write %s=%s", opt, opt, words[i+1])
			}
		default:
			n := 1
			if p.Arity == projector.ArityExactly || p.Arity == projector.ArityRepeatedTuple {
				n = p.N
			}
			for range n {
				v, ok := next()
				if !ok {
					return nil, fmt.Errorf("%s takes a value (write %s=VALUE, or the value as the next word, not starting with '-')", opt, opt)
				}
				f.values = append(f.values, v)
				i++
			}
		}
		for _, v := range f.values {
			if p == nil {
				break
			}
			if err := projector.CheckWord(cmd, p, v); err != nil {
				return nil, fmt.Errorf("%s %s: %v", opt, v, err)
			}
		}
		out = append(out, f)
	}
	return out, nil
}

// declaredOption reports whether opt, longer than one letter, is an
// option string of cmd, a declared command (projector.Declare): its parser
// is the program's own, whose option strings are the operator's word, so
// "-std=c11" means what the declaration's rendering says, not what click
// would read.
func declaredOption(cmd *projector.Command, opt string) bool {
	if cmd.Rendering == nil || len(opt) <= 2 {
		return false // "-n=5" is "=5" to getopt, as projector.Declare says
	}
	for _, p := range cmd.Params {
		if slices.Contains(p.Options, opt) {
			return true
		}
	}
	return false
}

// fixedArgs checks a verb's fixed arguments against cmd and returns cmd
// without the parameters they set (projector.WithdrawParams): no caller
// may set what the operator fixed, nor override it by giving it again.
func fixedArgs(cmd *projector.Command, args []string) (*projector.Command, *unavailableReason) {
	if len(args) == 0 {
		return cmd, nil
	}
	fixed, err := readFixed(cmd, args)
	if err != nil {
		return nil, &unavailableReason{Reason: fmt.Sprintf("the fixed arguments %q (Verb.Args, config args) on %q: %v", args, strings.Join(cmd.Path, " "), err)}
	}
	return projector.WithdrawParams(cmd, fixedOptions(fixed)...), nil
}

// CheckFixedArgs reports whether args, a verb's fixed arguments
// ([Verb.Args]), read as options of cmd with values it admits: nil, or an
// error saying which word is wrong. An inventory uses it beside
// [Machine.Seam] to count only commands a verb could run as configured.
func CheckFixedArgs(cmd *projector.Command, args []string) error {
	if _, bad := fixedArgs(cmd, args); bad != nil {
		return errors.New(bad.Reason)
	}
	return nil
}
