package guard

import (
	"fmt"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	"github.com/verbsurface/verbsurface/projector/fromcobra"
)

// Forbidden are the flags a stored command may never set: "json" and
// "home" (the tick sets them itself: a stored --home would repoint the
// state directory), "notify-url" and "notify-command" (a notify command is
// arbitrary code, run later with the home owner's rights; a URL makes the
// CLI send requests on the caller's behalf). Scheduled runs take the
// notify setting of config.yaml instead.
var Forbidden = []string{"json", "home", "notify-url", "notify-command"}

// SpawnCommands are the commands a stored command may start with.
var SpawnCommands = []string{"agent", "fanout", "flow", "play"}

// PlayCommand is the command whose first positional names a playbook that
// adds flags (playbook.PlayCommand; a test holds them equal).
const PlayCommand = "play"

// Injector performs the binary's dynamic injection on root before the
// stored command is parsed: for `play PLAYBOOK …`, the playbook's args as
// flags of play, as they are now (playbook.Inject).
type Injector func(root *cobra.Command, playbook string) error

// Refusal is a stored command the guard will not let run.
type Refusal struct {
	Command []string // the stored argv, as given
	Reason  string   // one sentence: what is wrong
	Err     error    // the injection's or the parser's own error, when one is to blame
	// Forbidden names the forbidden flag the command sets ("" when it was
	// refused for another reason: it does not parse, no such playbook).
	Forbidden string
}

func (r *Refusal) Error() string {
	return fmt.Sprintf("stored command %q refused: %s", strings.Join(r.Command, " "), r.Reason)
}

// Unwrap returns the injection's or the parser's error, so a caller can
// report it in its own terms (a playbook that does not exist).
func (r *Refusal) Unwrap() error { return r.Err }

// Check parses argv (a stored spawn command, without the program) with
// root — a freshly built limcp tree that has not parsed anything — as the
// binary will parse it when the command runs, and returns a [*Refusal]
// when, in this order: argv does not start with one of [SpawnCommands]; the
// command path does not resolve; inject (nil: none) fails for the
// playbook a play command names; the flags do not parse; a [Forbidden]
// flag is set, in any spelling the parser accepts.
//
// Run it again whenever the stored command is about to run: what argv
// means depends on the tree and the playbooks at that moment.
func Check(root *cobra.Command, argv []string, inject Injector) error {
	return check(root, argv, inject, false)
}

// CheckNoFiles is [Check] that also refuses a stored command setting a
// flag that names a file or directory (annotated with
// fromcobra.AnnotationPath: --prompt-file, --spec, --cwd). The server uses
// it: a request's file arguments are confined to the operator's roots when
// the request names them, while a stored path would be opened at every
// tick, long after that check, by the CLI, which knows no roots. The CLI
// itself uses Check: an operator at a terminal may store such flags.
func CheckNoFiles(root *cobra.Command, argv []string, inject Injector) error {
	return check(root, argv, inject, true)
}

func check(root *cobra.Command, argv []string, inject Injector, noFiles bool) error {
	refuse := func(format string, args ...any) *Refusal {
		return &Refusal{Command: append([]string(nil), argv...), Reason: fmt.Sprintf(format, args...)}
	}
	if len(argv) == 0 || !contains(SpawnCommands, argv[0]) {
		return refuse("it must start with %s", strings.Join(SpawnCommands, ", "))
	}
	cmd, rest, err := root.Find(argv)
	if err != nil {
		r := refuse("%v", err)
		r.Err = err
		return r
	}
	if cmd.Name() == PlayCommand && cmd.Parent() == root && inject != nil {
		if name := FirstPositional(cmd, rest); name != "" {
			if err := inject(root, name); err != nil {
				r := refuse("playbook %q: %v", name, err)
				r.Err = err
				return r
			}
		}
	}
	if err := cmd.ParseFlags(rest); err != nil {
		r := refuse("its flags do not parse: %v", err)
		r.Err = err
		return r
	}
	for _, name := range Forbidden {
		if f := cmd.Flags().Lookup(name); f != nil && f.Changed {
			r := refuse("it sets --%s, which may not be stored in a schedule (scheduled runs take the tick's home and the notify setting of config.yaml)", name)
			r.Forbidden = name
			return r
		}
	}
	if noFiles {
		var r *Refusal
		cmd.Flags().VisitAll(func(f *pflag.Flag) {
			if r == nil && f.Changed && len(f.Annotations[fromcobra.AnnotationPath]) > 0 {
				r = refuse("it sets --%s, and a stored command may not name a file: files are checked against the server's roots when a request names them, and a schedule would open this one later, unchecked", f.Name)
				r.Forbidden = f.Name
			}
		})
		if r != nil {
			return r
		}
	}
	return nil
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// FirstPositional returns the first positional argument cmd would see in
// args, before parsing: the first argument that is neither a flag nor the
// value of one of cmd's flags (its own, inherited, or the root's
// persistent ones), or the argument after "--"; "" when there is none.
// It is how the binary finds the playbook a `play` command names before
// the playbook's flags exist.
func FirstPositional(cmd *cobra.Command, args []string) string {
	lookup := func(name string, short bool) *pflag.Flag {
		for _, fs := range []*pflag.FlagSet{cmd.Flags(), cmd.InheritedFlags(), cmd.Root().PersistentFlags()} {
			var f *pflag.Flag
			if short {
				f = fs.ShorthandLookup(name)
			} else {
				f = fs.Lookup(name)
			}
			if f != nil {
				return f
			}
		}
		return nil
	}
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "--":
			if i+1 < len(args) {
				return args[i+1]
			}
			return ""
		case strings.HasPrefix(a, "--"):
			if strings.Contains(a, "=") {
				continue
			}
			if f := lookup(strings.TrimPrefix(a, "--"), false); f != nil && f.NoOptDefVal == "" {
				i++ // its value
			}
		case strings.HasPrefix(a, "-") && len(a) > 1:
			if len(a) == 2 {
				if f := lookup(a[1:], true); f != nil && f.NoOptDefVal == "" {
					i++
				}
			}
		default:
			return a
		}
	}
	return ""
}

// Prompts returns the prompt text a stored command carries, for an audit
// to redact: its PROMPT positional (by the command's Use line) and the
// value of every flag whose name holds "prompt", parsed with root and the
// playbook inject finds as [Check] parses them. A command that does not
// parse gives every word after the first: without a parse no word can be
// shown to be anything but a prompt.
func Prompts(root *cobra.Command, argv []string, inject Injector) []string {
	everything := func() []string {
		if len(argv) < 2 {
			return nil
		}
		return append([]string(nil), argv[1:]...)
	}
	if len(argv) == 0 || !contains(SpawnCommands, argv[0]) {
		return everything()
	}
	cmd, rest, err := root.Find(argv)
	if err != nil {
		return everything()
	}
	if cmd.Name() == PlayCommand && cmd.Parent() == root && inject != nil {
		if name := FirstPositional(cmd, rest); name != "" {
			if inject(root, name) != nil {
				return everything()
			}
		}
	}
	if cmd.ParseFlags(rest) != nil {
		return everything()
	}
	var out []string
	names := strings.Fields(cmd.Use)
	pos := cmd.Flags().Args()
	for i, n := range names[min(1, len(names)):] {
		if strings.Trim(n, "[].") == "PROMPT" && i < len(pos) {
			out = append(out, pos[i])
		}
	}
	cmd.Flags().Visit(func(f *pflag.Flag) {
		if strings.Contains(f.Name, "prompt") {
			out = append(out, f.Value.String())
		}
	})
	return out
}
