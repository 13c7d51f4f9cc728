package fromcobrabin

import (
	"context"
	"errors"
	"fmt"
	"os"
	"regexp"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/verbsurface/verbsurface/projector"
	"github.com/verbsurface/verbsurface/projector/fromcobra"
	"github.com/verbsurface/verbsurface/projector/internal/helprun"
)

// Defaults of [Options].
const (
	DefaultTimeout     = 10 * time.Second
	DefaultMaxOutput   = 4 << 20
	DefaultParallel    = 4
	DefaultMaxCommands = 2000
)

// Options adjusts a walk. The zero value (or a nil *Options) runs the
// program in the current environment and directory with the defaults
// above.
type Options struct {
	// Env is the program's environment (nil: this process's). The walk
	// sets a few variables over it (see the package documentation), so
	// that the program prints its plain layout.
	Env []string
	// Dir is the program's working directory ("": this process's).
	Dir string
	// Timeout bounds each call of the program; MaxOutput what it may
	// print on stdout, and on stderr, per call. A call past either is
	// stopped and fails the walk.
	Timeout   time.Duration
	MaxOutput int
	// Parallel is how many calls run at once.
	Parallel int
	// MaxCommands bounds how many command paths the walk visits; a
	// program with more fails the walk rather than run without end.
	MaxCommands int
	// Paths, when set, limits the walk to these command paths (by name,
	// not alias), everything below them, and their ancestors: a front
	// reads only the commands its verbs name, and a program of two
	// hundred commands (podman) costs a few seconds instead of minutes.
	// The tree then holds only those commands; nil walks every command.
	Paths [][]string
	// ExcludeFlags names flags (by long name) that are not parameters
	// anywhere in the tree, as fromcobra.Options.ExcludeFlags: a command
	// that has one lists it in projector.Command.Excluded.
	ExcludeFlags []string
}

// Error is a walk that produced no tree: the program could not be run,
// does not speak cobra's completion protocol, or ran past a bound. What a
// single command's help leaves unsettled is not an Error: that command is
// unavailable in the tree, with its reason.
type Error struct {
	Argv []string
	Kind ErrorKind
	Err  error
}

// ErrorKind classifies an [Error].
type ErrorKind string

const (
	KindLaunch   ErrorKind = "launch"   // the executable cannot be found or started
	KindProtocol ErrorKind = "protocol" // the root does not answer cobra's completion protocol
	KindCall     ErrorKind = "call"     // a call ran past its timeout or output cap
	KindLimit    ErrorKind = "limit"    // more commands than Options.MaxCommands
)

func (e *Error) Error() string {
	return fmt.Sprintf("fromcobrabin: %q: %v", strings.Join(e.Argv, " "), e.Err)
}

func (e *Error) Unwrap() error { return e.Err }

// Walk reads the parser model (dialect pflag) of the installed cobra
// program argv — its executable and any fixed leading arguments, as it
// would be started: {"helm"} or {"/usr/bin/restic"} — from the program's
// own completion protocol and per-command --help, and returns it. Every
// subcommand the program offers is visited, parents before children,
// siblings in the program's order; hidden commands, and cobra's own help
// and completion commands, are not offered by the program and so are not
// in the tree. Tree.Program is the root command's name.
//
// Walk never runs a command: it asks __complete, which only completes, and
// runs PATH --help only on a command that cobra's completion shows parses
// its flags (so that --help prints help). What the output does not settle
// makes that command unavailable with the reason (see the package
// documentation); a failure to run the program, a call past its bound or
// a cancelled ctx fails the whole walk with an [*Error] (or ctx's error).
func Walk(ctx context.Context, argv []string, opts *Options) (*projector.Tree, error) {
	return walk(ctx, argv, opts, nil)
}

// walkTrace is what a test asks of a walk: to ask every probe of a flag
// alone, as the reader did before it asked them together (batch.go), and
// how many times the program was run.
type walkTrace struct {
	oneByOne bool
	calls    int64
}

func walk(ctx context.Context, argv []string, opts *Options, trace *walkTrace) (*projector.Tree, error) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	w, own, err := start(ctx, cancel, argv, opts, trace)
	if err != nil {
		return nil, err
	}
	if trace != nil {
		defer func() { trace.calls = w.prog.calls.Load() }()
	}
	var paths [][]string
	if opts != nil {
		paths = opts.Paths
	}
	root := w.visit(ctx, nil, "", "", own, wanted(paths))
	if err := w.failure(); err != nil {
		return nil, w.fatal(ctx, err)
	}
	return w.tree(root), nil
}

// start makes the walker of argv and asks the root what kind of cobra
// program it is: own reports a help flag of the program's own. cancel
// stops the walk's calls (ctx's) on its first fatal error.
func start(ctx context.Context, cancel context.CancelFunc, argv []string, opts *Options, trace *walkTrace) (w *walker, own bool, err error) {
	if len(argv) == 0 || argv[0] == "" {
		return nil, false, &Error{Argv: argv, Kind: KindLaunch, Err: errors.New("no program given")}
	}
	if opts == nil {
		opts = &Options{}
	}
	exe, err := lookPath(argv[0])
	if err != nil {
		return nil, false, &Error{Argv: argv, Kind: KindLaunch, Err: err}
	}
	env := opts.Env
	if env == nil {
		env = os.Environ()
	}
	p := &program{runner: &helprun.Program{
		Argv:      append([]string{exe}, argv[1:]...),
		Env:       environ(env),
		Dir:       opts.Dir,
		Timeout:   positive(opts.Timeout, DefaultTimeout),
		MaxOutput: positive(opts.MaxOutput, DefaultMaxOutput),
		Parallel:  positive(opts.Parallel, DefaultParallel),
	}}
	w = &walker{prog: p, argv: argv, exclude: map[string]bool{"help": true}, max: positive(opts.MaxCommands, DefaultMaxCommands), resolved: map[string]*pending{}}
	if trace != nil {
		w.oneByOne = trace.oneByOne
	}
	for _, n := range opts.ExcludeFlags {
		w.exclude[n] = true
	}
	w.cancel = cancel

	name, ok, err := p.parsesFlags(ctx, nil)
	if err != nil {
		return nil, false, w.fatal(ctx, err)
	}
	if ok {
		if raw, err := p.readsRaw(ctx, nil); err != nil {
			return nil, false, w.fatal(ctx, err)
		} else if raw {
			return nil, false, &Error{Argv: argv, Kind: KindProtocol, Err: fmt.Errorf("its completion goes on past an unknown flag (%s), so its root parses no flags (DisableFlagParsing) and its --help could run it", unknownFlag)}
		}
	} else {
		// A help flag of the program's own (gh's "Show help for
		// command", podman's "Help for podman"): the root's name is its
		// executable's, and its --help is run only if completion shows
		// that it parses its flags and that --help is one of them.
		st, err := w.ownHelp(ctx, nil)
		if err != nil {
			return nil, false, w.fatal(ctx, err)
		}
		if st.reason != "" {
			return nil, false, &Error{Argv: argv, Kind: KindProtocol, Err: fmt.Errorf("its completion (__complete --help) did not offer cobra's own --help flag (\"help for NAME\"), and %s", st.reason)}
		}
		if name, err = w.ownName(ctx); err != nil {
			return nil, false, w.fatal(ctx, err)
		}
		own = true
	}
	w.root = name
	return w, own, nil
}

// tree is the tree of the visited commands under root, parents before
// children.
func (w *walker) tree(root *node) *projector.Tree {
	t := &projector.Tree{Program: w.root, Dialect: projector.DialectPflag}
	t.Commands = w.flatten(root, nil)
	return t
}

// flatten appends n's command and its descendants', parents first.
func (w *walker) flatten(n *node, out []*projector.Command) []*projector.Command {
	out = append(out, n.cmd)
	for _, c := range n.children {
		out = w.flatten(c, out)
	}
	return out
}

func positive[T int | time.Duration](v, def T) T {
	if v > 0 {
		return v
	}
	return def
}

type walker struct {
	prog    *program
	argv    []string
	exclude map[string]bool
	root    string
	max     int
	cancel  context.CancelFunc

	mu       sync.Mutex
	visited  int
	err      error
	resolved map[string]*pending // an inherited flag's printed entry -> what probing it found

	oneByOne bool // ask each flag's probes alone (a test's comparison)

	// listOnly makes the commands wanted (and all below them) listed,
	// not read (see List); listings keeps what reading one needs.
	listOnly bool
	listings map[string]listing
}

// node is one visited command and its children.
type node struct {
	cmd      *projector.Command
	children []*node
	text     string // the first line of its help's text (its Long, else its Short)
}

// fail records the walk's first fatal error and stops the rest.
func (w *walker) fail(err error) {
	w.mu.Lock()
	if w.err == nil {
		w.err = err
	}
	w.mu.Unlock()
	w.cancel()
}

func (w *walker) failure() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.err
}

// fatal wraps a walk-stopping error.
func (w *walker) fatal(ctx context.Context, err error) error {
	var e *Error
	if errors.As(err, &e) {
		return e
	}
	if ctx.Err() != nil && errors.Is(err, ctx.Err()) {
		return err
	}
	var ce *helprun.CallError
	if errors.As(err, &ce) && ce.Launch {
		return &Error{Argv: w.argv, Kind: KindLaunch, Err: err}
	}
	if errors.As(err, &ce) {
		return &Error{Argv: w.argv, Kind: KindCall, Err: err}
	}
	return &Error{Argv: w.argv, Kind: KindProtocol, Err: err}
}

// settled reports whether err is a finding about one command (the program
// answered, deterministically, something the reader cannot use) rather
// than a failure of the walk: a call that exited non-zero, or an answer
// outside the protocol. A call that could not start, ran too long or
// printed too much, or a cancelled walk, is recorded as the walk's failure
// (it may not recur, and a tree must not keep a command unavailable for
// it); settled then returns false.
func (w *walker) settled(err error) bool {
	var ce *helprun.CallError
	if errors.As(err, &ce) && !ce.Exit {
		w.fail(err)
		return false
	}
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		w.fail(err)
		return false
	}
	return true
}

func (w *walker) commandPath(path []string) string {
	return strings.Join(append([]string{w.root}, path...), " ")
}

// visit reads the command at path and, concurrently, its subcommands.
// parentText is its parent's help ("" for the root); own is set for the
// root when its help flag is the program's own. It returns nil for a word
// completion offers that is no command.
//
// want is what of its subtree is walked (nil: all of it).
func (w *walker) visit(ctx context.Context, path []string, summary, parentText string, own bool, want *wantTree) *node {
	cmd := &projector.Command{Path: append([]string{}, path...), Summary: summary, Params: []*projector.Param{}}
	n := &node{cmd: cmd}
	w.mu.Lock()
	w.visited++
	over := w.visited > w.max
	w.mu.Unlock()
	if over {
		w.fail(&Error{Argv: w.argv, Kind: KindLimit, Err: fmt.Errorf("it has more than %d command paths (Options.MaxCommands)", w.max)})
		return n
	}
	// A command whose help cannot be read is reported as runnable, so
	// that an inventory lists it among the unavailable with its reason
	// rather than among the groups.
	unavailable := func(format string, a ...any) *node {
		cmd.Runnable = true
		cmd.Unrepresentable = &projector.Unrepresentable{Reason: fmt.Sprintf(format, a...)}
		return n
	}
	cmdPath := w.commandPath(path)

	if len(path) > 0 {
		_, ok, err := w.prog.parsesFlags(ctx, path)
		if err != nil {
			if !w.settled(err) {
				return n
			}
			return unavailable("completing its flags failed: %v", err)
		}
		if ok {
			raw, err := w.prog.readsRaw(ctx, path)
			if err != nil {
				if !w.settled(err) {
					return n
				}
				return unavailable("completing its flags failed: %v", err)
			}
			if raw {
				return unavailable("cobra's completion goes on past an unknown flag (%s), so it does not parse flags (DisableFlagParsing: it reads its argv raw), though it offers cobra's own --help (as cobra before v1.7 does for every command); its --help is not run, since it could run the command, and its subcommands, if any, are not walked", unknownFlag)
			}
		} else {
			st, err := w.ownHelp(ctx, path)
			if err != nil {
				if !w.settled(err) {
					return n
				}
				return unavailable("completing its flags failed: %v", err)
			}
			switch {
			case st.noCommand:
				return nil
			case st.reason != "":
				return unavailable("cobra's completion does not offer its --help flag as cobra's own (%q), and %s; its --help is not run, since it could run the command, and its subcommands, if any, are not walked", helpFlagUsage(path[len(path)-1]), st.reason)
			}
			own = true
		}
	}
	out, err := w.prog.run(ctx, append(append([]string{}, path...), "--help")...)
	if err != nil {
		if !w.settled(err) {
			return n
		}
		return unavailable("reading its help failed: %v", err)
	}
	text := string(out.stdout)
	if strings.TrimSpace(text) == "" {
		text = string(out.stderr)
	}
	if len(path) > 0 && text == parentText {
		// cobra found no command by the last word: it is a value
		// completion offered (ValidArgs), and --help printed the
		// parent's help.
		return nil
	}
	n.text = firstLine(text)
	if cmd.Summary == "" {
		cmd.Summary = n.text
	}
	pg, err := parseHelp(text, cmdPath)
	var layout error
	if err != nil {
		layout = err
		// A layout of the program's own: the subcommands and the flags
		// come from completion, what help shows in cobra's own words
		// (its usage line, pflag's flag entries) where it can be found.
		pg = &page{}
	} else {
		cmd.Aliases = pg.aliases
		cmd.Runnable = pg.useLine != ""
	}
	var wg sync.WaitGroup
	var children []candidate
	skipped := 0 // candidates not walked (Options.Paths)
	if layout != nil || pg.hasSub {
		children, err = w.children(ctx, path, pg, layout == nil)
		if err != nil {
			// The tree would be missing this command's subtree: say so
			// on the command rather than offer a tree that lacks it.
			return unavailable("listing its subcommands failed: %v", err)
		}
		n.children = make([]*node, len(children))
		for i, c := range children {
			sub, ok := want.child(c.value)
			if !ok {
				skipped++
				continue
			}
			if w.listOnly && (sub == nil || len(sub.sub) == 0) {
				n.children[i] = w.listed(path, c, text)
				continue
			}
			wg.Add(1)
			go func() {
				defer wg.Done()
				n.children[i] = w.visit(ctx, append(append([]string{}, path...), c.value), c.desc, text, false, sub)
			}()
		}
	}
	if layout == nil {
		w.params(ctx, cmd, pg, own)
		wg.Wait()
	} else {
		// Whether it has subcommands is known once they are read: a
		// name completion offers may be a value (ValidArgs), dropped.
		wg.Wait()
		n.children = slices.DeleteFunc(n.children, func(c *node) bool { return c == nil })
		w.ownPage(ctx, cmd, text, len(n.children) > 0 || skipped > 0, layout)
	}
	n.children = slices.DeleteFunc(n.children, func(c *node) bool { return c == nil || len(path) == 0 && w.cobras(c) })
	return n
}

// wantTree is the part of a command's subtree a walk reads (see
// Options.Paths): all of it, or the children named.
type wantTree struct {
	all bool
	sub map[string]*wantTree
}

// wanted builds the tree of paths (nil paths: everything).
func wanted(paths [][]string) *wantTree {
	if paths == nil {
		return nil
	}
	root := &wantTree{sub: map[string]*wantTree{}}
	for _, p := range paths {
		t := root
		for _, name := range p {
			next, ok := t.sub[name]
			if !ok {
				next = &wantTree{sub: map[string]*wantTree{}}
				t.sub[name] = next
			}
			t = next
		}
		t.all = true
	}
	return root
}

// child says whether the child name is walked, and what of it.
func (t *wantTree) child(name string) (*wantTree, bool) {
	if t == nil || t.all {
		return nil, true
	}
	sub, ok := t.sub[name]
	return sub, ok
}

// cobras reports whether a child of the root is the help or completion
// command cobra adds when the program runs (command.go
// InitDefaultHelpCmd, completions.go InitDefaultCompletionCmd), known by
// its name and Short (and, for completion, the first line of its Long),
// all cobra's own. (cobra answers "help --help" with the root's help, so
// the help command has no page of its own to tell it by.) A program's own
// completion command (kind's) stays.
func (w *walker) cobras(n *node) bool {
	c := n.cmd
	switch c.Path[0] {
	case "help":
		return c.Summary == cobraHelpShort
	case "completion":
		return c.Summary == cobraCompletionShort && !c.Runnable &&
			n.text == fmt.Sprintf("Generate the autocompletion script for %s for the specified shell.", w.root)
	}
	return false
}

// children returns the subcommands the program completes after path that
// its help also lists (a command with ValidArgs completes those too, and
// a help's examples may hold listing-like lines: a name must be in both).
//
// In a help layout of the program's own (listed false) the listing is not
// read: every name completion offers is visited, and one that is no
// command is dropped there (see visit and ownHelp).
func (w *walker) children(ctx context.Context, path []string, pg *page, listed bool) ([]candidate, error) {
	c, err := w.prog.complete(ctx, path, "")
	if err != nil {
		w.settled(err)
		return nil, err
	}
	var out []candidate
	seen := map[string]bool{}
	for _, it := range c.items {
		if it.value == "" || strings.HasPrefix(it.value, "-") || listed && !pg.listed[it.value] || seen[it.value] {
			continue
		}
		seen[it.value] = true
		out = append(out, it)
	}
	return out, nil
}

// The Short texts of the help and completion commands cobra adds
// (command.go InitDefaultHelpCmd, completions.go InitDefaultCompletionCmd).
const (
	cobraHelpShort       = "Help about any command"
	cobraCompletionShort = "Generate the autocompletion script for the specified shell"
)

func firstLine(text string) string {
	for _, l := range strings.Split(text, "\n") {
		if l = strings.TrimSpace(l); l != "" && l != "Usage:" {
			return l
		}
		if l == "Usage:" {
			break
		}
	}
	return ""
}

// params fills cmd's parameters from its help page: the local flags, then
// the inherited ones, in the order pflag printed them (the order fromcobra
// walks them in), then the positionals of its usage line.
//
// own is set when the command's help flag is the program's own, which
// its Flags block need not list.
func (w *walker) params(ctx context.Context, cmd *projector.Command, pg *page, own bool) {
	path := cmd.Path
	// The raw first line of every flag's usage, as completion offers it,
	// asked only when a flag's word is also in its usage (classifyWord
	// needs it for no other).
	raw := map[string]string{}
	if needsRaw(pg) || w.oneByOne {
		if c, err := w.prog.complete(ctx, path, "--"); err == nil {
			for _, it := range c.items {
				if name, ok := strings.CutPrefix(it.value, "--"); ok {
					raw[name] = it.desc
				}
			}
		} else if !w.settled(err) {
			return
		}
	}
	claimed := map[string]string{} // param name -> what claimed it
	claim := func(name, by string) {
		if prev, dup := claimed[name]; dup && cmd.Unrepresentable == nil {
			cmd.Unrepresentable = &projector.Unrepresentable{Reason: fmt.Sprintf("%s and %s both map to parameter name %q", prev, by, name)}
		}
		claimed[name] = by
	}
	var asked []*flagLine
	for _, f := range append(append([]*flagLine{}, pg.local...), pg.inherited...) {
		if !w.cobraVersion(path, f) {
			asked = append(asked, f)
		}
	}
	inherited := map[*flagLine]bool{}
	for _, f := range pg.inherited {
		inherited[f] = true
	}
	pre := w.probeTogether(ctx, path, asked, func(f *flagLine) probeKind { return kindToProbe(f, raw) }, func(f *flagLine) bool { return inherited[f] })
	sawHelp := false
	for k, block := range [][]*flagLine{pg.local, pg.inherited} {
		for _, f := range block {
			if f.name == "help" {
				sawHelp = sawHelp || k == 0 && f.word == "" && strings.HasPrefix(f.usage, "help for ")
				continue
			}
			if w.cobraVersion(path, f) {
				continue // cobra's own --version (InitDefaultVersionFlag): it prints the version instead of running
			}
			if w.exclude[f.name] {
				cmd.Excluded = append(cmd.Excluded, "--"+f.name)
				continue
			}
			p := w.flagParam(ctx, path, f, raw, k == 1, pre)
			claim(p.Name, "flag --"+f.name)
			cmd.Params = append(cmd.Params, p)
		}
	}
	if !sawHelp && !own && cmd.Unrepresentable == nil {
		cmd.Unrepresentable = &projector.Unrepresentable{Reason: "its help's Flags block does not list cobra's own --help flag, so it is not cobra's layout"}
		return
	}
	if !cmd.Runnable {
		return
	}
	excluded := map[string]bool{} // option string -> takes a value
	for _, block := range [][]*flagLine{pg.local, pg.inherited} {
		for _, f := range block {
			if w.exclude[f.name] {
				for _, o := range options(f) {
					excluded[o] = f.word != ""
				}
			}
		}
	}
	w.positionals(cmd, pg.useLine, excluded, claimed, claim)
}

// cobraVersion reports whether f is cobra's own --version flag
// (InitDefaultVersionFlag), which prints the version instead of running.
func (w *walker) cobraVersion(path []string, f *flagLine) bool {
	return f.name == "version" && f.word == "" && f.usage == "version for "+w.nameOf(path)
}

// needsRaw reports whether a flag of the page prints a word that its
// usage also holds: only then does classifyWord need the raw usage.
func needsRaw(pg *page) bool {
	for _, block := range [][]*flagLine{pg.local, pg.inherited} {
		for _, f := range block {
			if f.word != "" && strings.Contains(f.usage, f.word) {
				return true
			}
		}
	}
	return false
}

// positionals adds the positionals the usage line useLine names to cmd,
// after its flags (cmd.Params so far, and the excluded ones: option
// string -> whether it takes a value), or makes cmd unavailable when the
// line names nothing reliably.
func (w *walker) positionals(cmd *projector.Command, useLine string, excluded map[string]bool, claimed map[string]string, claim func(name, by string)) {
	rest := strings.TrimPrefix(useLine, w.commandPath(cmd.Path))
	// "[command options]" is the urfave/cli spelling of "[flags]" some
	// cobra programs keep in their Use lines (skopeo), and "WORD ..." a
	// spelling of "WORD..." (restic's "[snapshotID ...]" and "[FILE/DIR] ...").
	rest = strings.ReplaceAll(rest, "[command options]", "[flags]")
	rest = spacedEllipsis.ReplaceAllString(rest, "$1...")
	valueFlag := func(opt string) (takes, known bool) {
		if takes, ok := excluded[opt]; ok {
			return takes, true
		}
		for _, p := range cmd.Params {
			if slices.Contains(p.Options, opt) {
				// A bool read from help is spelled --flag=true (arity
				// one) but takes no word after it; nor does a count.
				return p.Kind != projector.KindBoolean && p.Arity != projector.ArityNone && p.Action != "pflag:count", true
			}
		}
		return false, false
	}
	pos, err := fromcobra.ReadUsePositionals("command"+rest, &fromcobra.UseReading{ValueFlag: valueFlag, Repeats: true})
	if err != nil {
		if cmd.Unrepresentable == nil {
			cmd.Unrepresentable = &projector.Unrepresentable{ByPositionals: true, Reason: fmt.Sprintf("positionals cannot be determined from its usage line %q: %v, and help does not show how many arguments it accepts", useLine, err)}
		}
		return
	}
	for _, p := range pos {
		for {
			if prev, taken := claimed[p.Name]; !taken || strings.HasPrefix(prev, "positional ") {
				break
			}
			p.Name += "_arg"
		}
		claim(p.Name, "positional "+p.Help)
		word := strings.Trim(p.Help, "[]<>.")
		if word == "" {
			word = strings.ToUpper(p.Name)
		}
		opt := ""
		if !p.Required {
			opt = "optional "
		}
		p.Help = fmt.Sprintf("the %spositional argument %s of `%s`", opt, word, useLine)
		cmd.Params = append(cmd.Params, p)
	}
}

var spacedEllipsis = regexp.MustCompile(`([^\s]) +\.\.\.`)

func (w *walker) nameOf(path []string) string {
	if len(path) == 0 {
		return w.root
	}
	return path[len(path)-1]
}

// pending is a resolution being learnt, or learnt: the first command to
// need it probes, the others (walked at the same time) wait for it.
type pending struct {
	done chan struct{}
	res  resolution
}

// resolution is what the walk learnt of a flag whose word is a
// placeholder.
type resolution struct {
	typ     string // "string", "bool" or "count"; "" when unknown
	unknown string // why it is unknown
}

// flagParam maps one printed flag. A flag whose word is its type maps by
// the type (typedParam). A flag whose word is a placeholder is probed
// through completion: one given bare that parses is a bool or a count
// (pflag shows no "[=…]" for those two only), told apart by which of
// --flag=true and --flag=2 parses; one that needs a value is a string.
//
// pre holds what was learnt of the command's flags together (batch.go).
func (w *walker) flagParam(ctx context.Context, path []string, f *flagLine, raw map[string]string, inherited bool, pre *probed) *projector.Param {
	r, known := raw[f.name]
	if !known && f.word != "" && strings.Contains(f.usage, f.word) {
		// Cobra offered only the required flags: ask for this one.
		if c, err := w.prog.complete(ctx, path, "--"+f.name); err == nil {
			if it, ok := c.find("--" + f.name); ok {
				r, known = it.desc, true
			}
		} else if !w.settled(err) {
			return unknownParam(f, placeholderAction(f.word), "the walk stopped")
		}
	}
	kind, why := classifyWord(f, r, known)
	switch kind {
	case wordType:
		if f.word == "" {
			return w.fromResolution(f, w.cached(ctx, f, inherited, func() resolution { return w.noWord(ctx, path, f, pre) }))
		}
		typ := f.word
		if t, ok := pflagTypes[typ]; ok {
			typ = t
		}
		return typedParam(f, typ)
	case wordUnknown:
		return unknownParam(f, placeholderAction(f.word), "%s", why)
	}
	if f.hasNoOpt {
		return stringParam(f) // "[=…]": a value flag that may be given bare
	}
	return w.fromResolution(f, w.cached(ctx, f, inherited, func() resolution { return w.resolve(ctx, path, f, pre) }))
}

// cached returns what learn finds about f. An inherited flag is one of an
// ancestor's persistent flags, the same on every command below it: it is
// learnt once, and the commands walked at the same time wait for it.
func (w *walker) cached(ctx context.Context, f *flagLine, inherited bool, learn func() resolution) resolution {
	if !inherited {
		return learn()
	}
	w.mu.Lock()
	pd, ok := w.resolved[f.text]
	if !ok {
		pd = &pending{done: make(chan struct{})}
		w.resolved[f.text] = pd
	}
	w.mu.Unlock()
	if ok {
		select {
		case <-pd.done:
		case <-ctx.Done():
			return resolution{unknown: "the walk stopped"}
		}
		return pd.res
	}
	pd.res = learn()
	close(pd.done)
	return pd.res
}

// noWord settles a flag printed with no word after its name. pflag prints
// none for a bool, and also for a value of the program's own whose Type
// is "" (or "bool" while it takes other words: on, off, auto): help alone
// cannot tell them apart, and reading such a flag as a bool would offer
// only true and false. So a flag is a bool when its parser, through
// completion, reads both --flag=true and --flag=false, and its help
// prints no default but pflag's for a bool ("true"); it is a value of its
// own (string-in, its Set the validator) when either says otherwise (a
// printed default of one word but "true").
func (w *walker) noWord(ctx context.Context, path []string, f *flagLine, pre *probed) resolution {
	// pflag prints a bool's default only when it is true; one word
	// other than that is a value's default ("(default auto)"); words are
	// the usage's own prose ("(default hides intermediate images)").
	if valueDefault(f) {
		return resolution{typ: typeWords}
	}
	pr, asked := pre.boolAnswer(f) // asked with the command's other flags
	if !asked {
		var err error
		pr, err = w.prog.parses(ctx, path, "--"+f.name+"=true", "--"+f.name+"=false")
		if err != nil && !w.settled(err) {
			return resolution{unknown: "the walk stopped"}
		}
	}
	switch pr {
	case probeParsed:
		return resolution{typ: "bool"}
	case probeRejected:
		return resolution{typ: typeWords}
	}
	return resolution{unknown: "its help shows no type word, as for a bool, and completing after --" + f.name + "=true --" + f.name + "=false gave neither a parse nor a refusal, so whether it is a bool or takes words of its own cannot be told"}
}

func (w *walker) fromResolution(f *flagLine, res resolution) *projector.Param {
	switch res.typ {
	case "":
		if f.word == "" {
			return unknownParam(f, untypedAction, "%s", res.unknown)
		}
		return unknownParam(f, placeholderAction(f.word), "its help names the value by the placeholder %q, not by its type, and %s", f.word, res.unknown)
	case typeWords:
		return wordsParam(f)
	case "bool":
		if f.word == "" {
			return typedParam(f, "bool")
		}
	case "string":
		return stringParam(f)
	case repeatedString:
		return repeatedParam(f)
	}
	p := typedParam(f, res.typ)
	p.Action = placeholderAction(f.word)
	if p.Unrepresentable != nil {
		p.Unrepresentable.Action = p.Action
	}
	return p
}

// resolve learns the type of a flag whose help names its value by a
// placeholder, from what its parser accepts. Each question is asked
// through completion (parses), so nothing runs; the answers are pflag's
// own parsers at work:
//
//   - given bare, it parses: a bool or a count (the only types pflag
//     shows no "[=…]" for); --flag=true parses only for a bool, --flag=2
//     only for a count;
//   - it needs a value, and --flag=x parses: a string (or a type that
//     reads any text; the program's Set validates it) — repeated if cobra
//     completes the flag again once it is given (cobra offers a given flag
//     again only for a slice, an array or a map);
//   - x does not parse but 1 does: a number if 1.5 parses too (float32
//     if 1e39 does not), else an integer — signed if -1 parses, as wide
//     as the largest of 2^7, 2^15, 2^31 (2^8, 2^16, 2^32 unsigned) that
//     parses;
//   - neither parses but 1s does: a duration;
//   - none parses: a value of a type of the program's own, offered as a
//     string, which its Set validates.
func (w *walker) resolve(ctx context.Context, path []string, f *flagLine, pre *probed) resolution {
	stopped := false
	ask := func(words ...string) probe {
		if stopped {
			return probeUnclear
		}
		pr, err := w.prog.parses(ctx, path, words...)
		if err != nil && !w.settled(err) {
			stopped = true
			return probeUnclear
		}
		return pr
	}
	parses := func(words ...string) bool { return ask(words...) == probeParsed }
	with := func(v string) string { return "--" + f.name + "=" + v }
	res := func() resolution {
		switch ask("--" + f.name) {
		case probeParsed:
			asBool, asCount := parses(with("true")), parses(with("2"))
			switch {
			case asBool && !asCount:
				return resolution{typ: "bool"}
			case asCount && !asBool:
				return resolution{typ: "count"}
			}
			return resolution{unknown: "it parses given bare, as only a bool or a count does, but --" + f.name + "=true and --" + f.name + "=2 do not tell which"}
		case probeUnclear:
			return resolution{unknown: "completing after it given bare gave neither a parse nor a refusal"}
		}
		switch {
		case pre.textAnswer(f, func() probe { return ask(with("x")) }) == probeParsed:
			if again, known := pre.repeated(f); known {
				if again {
					return resolution{typ: repeatedString}
				}
				return resolution{typ: "string"}
			}
			if w.repeats(ctx, path, f) {
				return resolution{typ: repeatedString}
			}
			return resolution{typ: "string"}
		case parses(with("1")):
			if parses(with("1.5")) {
				if parses(with("1e39")) {
					return resolution{typ: "float64"}
				}
				return resolution{typ: "float32"}
			}
			widths := []struct{ over, typ string }{{"2147483648", "int32"}, {"32768", "int16"}, {"128", "int8"}}
			typ := "int"
			if !parses(with("-1")) {
				widths = []struct{ over, typ string }{{"4294967296", "uint32"}, {"65536", "uint16"}, {"256", "uint8"}}
				typ = "uint"
			}
			for _, wd := range widths {
				if parses(with(wd.over)) {
					break
				}
				typ = wd.typ
			}
			return resolution{typ: typ}
		case parses(with("1s")):
			return resolution{typ: "duration"}
		}
		return resolution{typ: "string"}
	}()
	if stopped {
		return resolution{unknown: "the walk stopped"}
	}
	return res
}

// repeats asks whether cobra offers the flag again once it is given
// (completions.go: a flag already set is offered again only when its
// Value is a slice, an array or a map). A required flag of the same
// prefix not yet given would hide it: the answer is then no, and the flag
// is offered as a single value, which it also takes.
func (w *walker) repeats(ctx context.Context, path []string, f *flagLine) bool {
	c, err := w.prog.complete(ctx, path, "--"+f.name+"=x", "--"+f.name)
	if err != nil {
		w.settled(err)
		return false
	}
	_, again := c.find("--" + f.name)
	return again
}
