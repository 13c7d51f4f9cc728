package verbsurface

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/verbsurface/verbsurface/projector"
)

// RuleStoredCommand: a parameter holding a command line the CLI stores and
// runs later ([StoredCommand]) holds one the surface will not let it store.
const RuleStoredCommand = "stored_command"

// StoredCommand guards a verb's parameter that holds a command line (an
// array of words, the argv without the program) which the CLI stores and
// runs later, long after this op: a schedule's command. Those words become
// options of a command no caller renders through its schema, and a path
// among them would be opened later by the CLI, which knows no roots. So
// the surface reads them with the parser model as the CLI will
// (projector.ParseArgv, which refuses whatever it cannot read with
// certainty: an abbreviated or unknown option, combined short options it
// cannot resolve, a word argparse would read as a file of arguments) and
// refuses the op (invalid_args, rule stored_command, nothing run) when the
// command line, in this order:
//
//  1. cannot be read with certainty;
//  2. resolves to a fenced command, or to one not under Allow;
//  3. sets an option the tree excludes (Command.Excluded: a state home,
//     the machine flag of a cobra walk);
//  4. sets a parameter a verb on that command excludes, fixes (Verb.Args)
//     or uses as machine mode (Verb.Machine, Options.Machine);
//  5. sets a path parameter: marked by the adapter or by a verb on that
//     command (Verb.PathParams), or named like one
//     (projector.LooksLikePath), option or positional.
//
// The check runs on every op, against the tree as it is then. It cannot
// see what the CLI will do at run time beyond its parser (a playbook whose
// flags change later: a CLI that stores commands should check them again
// when it runs them, as limcp's schedule tick does).
type StoredCommand struct {
	// Param is the schema name of the parameter holding the command line:
	// a list of strings.
	Param string
	// Allow lists the command paths a stored command may run (["agent"],
	// ["job", "list"]); each may be spelt with aliases. Nothing else may
	// be stored. Registration refuses an empty list or a fenced path.
	Allow [][]string
}

func (sc *StoredCommand) check(name string, f *fence) error {
	if sc.Param == "" {
		return fmt.Errorf("verbsurface: register %q: StoredCommand.Param is empty", name)
	}
	if len(sc.Allow) == 0 {
		return fmt.Errorf("verbsurface: register %q: StoredCommand.Allow is empty: name the commands a stored command may run", name)
	}
	for _, p := range sc.Allow {
		if len(p) == 0 || slices.Contains(p, "") {
			return fmt.Errorf("verbsurface: register %q: StoredCommand.Allow has the path %q; a stored command runs a command, not the program's root", name, p)
		}
		if fp, ok := f.matchPath(p); ok {
			return fmt.Errorf("verbsurface: register %q: StoredCommand.Allow names %q, which is fenced (%s)", name, strings.Join(p, " "), fp)
		}
	}
	return nil
}

// guardStored is the [StoredCommand] check of one op's args: nil when the
// verb has no guard or the parameter is not given, else the problem.
func (s *Surface) guardStored(ctx context.Context, rs *requestState, v *Verb, args map[string]any) *Problem {
	sc := v.StoredCommand
	if sc == nil {
		return nil
	}
	raw, ok := args[sc.Param].([]any)
	if !ok {
		return nil
	}
	argv := make([]string, len(raw))
	for i, w := range raw {
		argv[i], _ = w.(string)
	}
	refuse := func(format string, a ...any) *Problem {
		return &Problem{Param: sc.Param, Rule: RuleStoredCommand, Reason: fmt.Sprintf("the stored command %s ", short(strings.Join(argv, " "))) +
			fmt.Sprintf(format, a...) + "; nothing was stored"}
	}
	t, err := s.tree(ctx, rs)
	if err != nil {
		return refuse("cannot be checked: the CLI's parser could not be read: %v", err)
	}
	pa, err := projector.ParseArgv(t, argv)
	var ae *projector.ArgvError
	switch {
	case errors.As(err, &ae) && ae.Excluded != "":
		return refuse("sets %s, which no caller may set", ae.Excluded)
	case errors.As(err, &ae):
		return refuse("cannot be read with certainty as the CLI would read it: %s", strings.TrimPrefix(ae.Error(), "projector: "))
	case err != nil:
		return refuse("cannot be read: %v", err)
	}
	cmd := pa.Command
	shown := strings.Join(cmd.Path, " ")
	if cmd.Unread {
		return refuse("cannot be checked: the parameters of %q are not read yet", shown)
	}
	if p, ok := s.reg.fence.matchPath(cmd.Path); ok {
		return refuse("runs the fenced command %q", p)
	}
	allowed := false
	var allow []string
	for _, a := range sc.Allow {
		allowed = allowed || t.Find(a...) == cmd
		allow = append(allow, strings.Join(a, " "))
	}
	if !allowed {
		return refuse("runs %q; a stored command may run only %s", shown, quoteList(allow))
	}
	// What the verbs on this command keep from callers, and what they
	// mark as paths.
	forbidden := map[string]string{} // option string or name -> why
	paths := map[string]bool{}
	machine := func(m Machine) {
		for _, w := range m.Args {
			if strings.HasPrefix(w, "-") {
				opt, _, _ := strings.Cut(w, "=")
				forbidden[opt] = "the machine option"
			}
		}
	}
	machine(s.opts.Machine)
	for _, ov := range s.reg.snapshot() {
		if ov.Machine != nil {
			machine(*ov.Machine)
		}
		if t.Find(ov.Path...) != cmd {
			continue
		}
		for _, n := range ov.Exclude {
			forbidden[n] = fmt.Sprintf("excluded by %s", ov.Name)
		}
		for _, w := range ov.Args {
			if strings.HasPrefix(w, "-") {
				opt, _, _ := strings.Cut(w, "=")
				forbidden[opt] = fmt.Sprintf("fixed by %s", ov.Name)
			}
		}
		for n, use := range ov.PathParams {
			if use != projector.PathUseNone {
				paths[n] = true
			}
		}
	}
	for _, o := range pa.Options {
		for name, why := range forbidden {
			if o.Option == name || o.Param.Named(name) {
				return refuse("sets %s, which is %s", o.Option, why)
			}
		}
		if isPath(o.Param, paths) {
			return refuse("sets %s, which names a file: files are checked against the roots when a request names them, and a stored one would be opened later, unchecked", o.Option)
		}
	}
	for _, p := range pa.Positionals {
		if isPath(p.Param, paths) {
			return refuse("gives %s the positional %s, which names a file: files are checked against the roots when a request names them, and a stored one would be opened later, unchecked", short(p.Word), p.Param.Name)
		}
	}
	return nil
}

func isPath(p *projector.Param, marked map[string]bool) bool {
	return p.Path != projector.PathUseNone || marked[p.Name] || projector.LooksLikePath(p)
}
