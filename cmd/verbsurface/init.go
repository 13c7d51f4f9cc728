//go:build unix

package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"github.com/spf13/cobra"
	"github.com/verbsurface/verbsurface/dispatch"
	"github.com/verbsurface/verbsurface/projector"
	"github.com/verbsurface/verbsurface/projector/fromargparse"
	"github.com/verbsurface/verbsurface/projector/fromclap"
	"github.com/verbsurface/verbsurface/projector/fromclick"
	"github.com/verbsurface/verbsurface/projector/fromcobrabin"
	"github.com/verbsurface/verbsurface/projector/fromoptparse"
	"github.com/verbsurface/verbsurface/verbsurface"
)

// initOptions is what verbsurface init reads a program from.
type initOptions struct {
	cobra, argparse, click string
	optparse, optparseCmd  string
	clap                   string
	pythonPath             []string
	python                 string
	command                []string
	out                    string
}

func newInitCmd(stdout, stderr io.Writer) *cobra.Command {
	var o initOptions
	c := &cobra.Command{
		Use:   "init (--cobra BINARY | --argparse MODULE:FUNCTION | --click MODULE:FUNCTION | --optparse MODULE:OBJECT | --clap BINARY) [-o FILE]",
		Short: "write a starting configuration listing every command as a verb, which passes check as written",
		Long: `init reads a program's parser and writes a starting configuration: every
command a verb with its summary; read-like commands (list, show, get, status,
...) offered as observe verbs, the others as control verbs commented out; the
parameters that name files confined to the roots; the parameters check would
refuse excluded; commands that cannot be offered listed with the reason. The
file passes check as written: edit it, then run check again.`,
		Args: cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			text, err := o.write(c.Context(), stderr)
			if err != nil {
				return err
			}
			if o.out == "" {
				_, err = io.WriteString(stdout, text)
				return err
			}
			f, err := os.OpenFile(o.out, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
			if err != nil {
				return fmt.Errorf("init: %v (init never overwrites a file)", err)
			}
			if _, err := io.WriteString(f, text); err != nil {
				f.Close()
				return err
			}
			return f.Close()
		},
	}
	c.Flags().StringVar(&o.cobra, "cobra", "", "read this installed cobra program from its completion protocol and --help")
	c.Flags().StringVar(&o.argparse, "argparse", "", "walk this argparse parser factory (MODULE:FUNCTION)")
	c.Flags().StringVar(&o.click, "click", "", "walk this click group or command (MODULE:FUNCTION)")
	c.Flags().StringVar(&o.optparse, "optparse", "", "walk this optparse parser, factory or command table (MODULE:OBJECT)")
	c.Flags().StringVar(&o.optparseCmd, "optparse-command", "", "with --optparse: the factory that turns a command table's entry into a parser (MODULE:FUNCTION)")
	c.Flags().StringVar(&o.clap, "clap", "", "read this installed clap program from its --help")
	c.Flags().StringSliceVar(&o.pythonPath, "pythonpath", nil, "directories on PYTHONPATH for --argparse, --click and --optparse")
	c.Flags().StringVar(&o.python, "python", "", "the Python interpreter for --argparse, --click and --optparse (default python3)")
	c.Flags().StringSliceVar(&o.command, "command", nil, "the command that runs the program, comma-separated (default: the --cobra or --clap binary; required with a Python parser)")
	c.Flags().StringVarP(&o.out, "output", "o", "", "write the configuration to this new file instead of stdout")
	return c
}

// readLike are the command names init offers as observe verbs: they read
// and report. Every other command is a control verb, commented out until
// the operator has read what it does.
var readLike = []string{"list", "ls", "show", "get", "status", "version", "info", "inspect", "diff",
	"describe", "view", "cat", "search", "find", "check", "lint", "stats", "log", "logs", "tree", "print",
	"help", "which", "whoami", "config", "env", "query", "dump", "export", "read", "count", "validate", "verify"}

// initVerb is one command as init writes it.
type initVerb struct {
	name, summary string
	path          []string
	class         verbsurface.Class
	active        bool
	files         []string // files: entries
	confined      []string // parameters the parser marks as paths, for a comment
	exclude       []string
	notes         []string // comments above the verb
}

// write reads the program and returns the configuration's text.
func (o *initOptions) write(ctx context.Context, stderr io.Writer) (string, error) {
	n := 0
	for _, s := range []string{o.cobra, o.argparse, o.click, o.optparse, o.clap} {
		if s != "" {
			n++
		}
	}
	if n != 1 {
		return "", errors.New("init: give exactly one of --cobra, --argparse, --click, --optparse, --clap")
	}
	if o.optparseCmd != "" && o.optparse == "" {
		return "", errors.New("init: --optparse-command goes with --optparse")
	}
	abs := func(p string) string {
		if a, err := filepath.Abs(p); err == nil {
			return a
		}
		return p
	}
	command := slices.Clone(o.command)
	if len(command) == 0 {
		if o.cobra == "" && o.clap == "" {
			return "", errors.New("init: --command is required with --argparse, --click and --optparse: the command that runs the program (--command=codespell, or --command=python3,tool.py)")
		}
		command = []string{o.cobra + o.clap}
	}
	if strings.Contains(command[0], "/") {
		command[0] = abs(command[0])
	}
	for i, a := range command[1:] {
		if fi, err := os.Stat(a); err == nil && fi.Mode().IsRegular() && !filepath.IsAbs(a) {
			command[i+1] = abs(a)
		}
	}
	pypath := make([]string, len(o.pythonPath))
	for i, d := range o.pythonPath {
		pypath[i] = abs(d)
	}
	var t *projector.Tree
	var err error
	var source string
	switch {
	case o.cobra != "":
		bin := o.cobra
		if strings.Contains(bin, "/") {
			bin = abs(bin)
		}
		t, err = fromcobrabin.Walk(ctx, []string{bin}, &fromcobrabin.Options{Env: dispatch.AllowlistEnv(os.Environ())})
		source = "{cobra: " + flowList([]string{bin}) + "}"
	case o.clap != "":
		bin := o.clap
		if strings.Contains(bin, "/") {
			bin = abs(bin)
		}
		t, err = fromclap.Walk(ctx, []string{bin}, &fromclap.Options{Env: dispatch.AllowlistEnv(os.Environ())})
		source = "{clap: " + flowList([]string{bin}) + "}"
	case o.argparse != "":
		t, err = fromargparse.Walk(ctx, o.argparse, &fromargparse.Options{Python: o.python, PythonPath: pypath})
		source = "{argparse: " + pythonSource(o.argparse, o.python, pypath) + "}"
	case o.optparse != "":
		t, err = fromoptparse.Walk(ctx, o.optparse, &fromoptparse.Options{Python: o.python, PythonPath: pypath, Command: o.optparseCmd,
			Program: strings.Join(command, " ")})
		source = pythonSource(o.optparse, o.python, pypath)
		if o.optparseCmd != "" {
			source = strings.TrimSuffix(source, "}") + ", command: " + yamlString(o.optparseCmd) + "}"
		}
		source = "{optparse: " + source + "}"
	default:
		t, err = fromclick.Walk(ctx, o.click, &fromclick.Options{Python: o.python, PythonPath: pypath})
		source = "{click: " + pythonSource(o.click, o.python, pypath) + "}"
	}
	if err != nil {
		return "", fmt.Errorf("init: %v", err)
	}
	program := displayName(command)
	verbs, skipped := initVerbs(t, program)
	if len(verbs) == 0 {
		return "", fmt.Errorf("init: %s has no command that can be offered", t.Program)
	}
	head := initHead{program: program, command: command, source: source, from: initFrom(o)}

	// What init writes must pass check as written: check it as check
	// would, and comment out what check refuses, confine what it warns
	// about, until nothing changes.
	// In a directory of its own: nothing is left beside the user's files,
	// and the file names nothing relative but roots: [.].
	dir, err := os.MkdirTemp("", "verbsurface-init-")
	if err != nil {
		return "", fmt.Errorf("init: %v", err)
	}
	defer os.RemoveAll(dir)
	for round := 0; round < 4; round++ {
		activate(verbs)
		text := head.render(verbs, skipped)
		changed, err := checkInit(ctx, dir, text, verbs)
		if err != nil {
			return "", err
		}
		if !changed {
			return text, nil
		}
	}
	fmt.Fprintln(stderr, "verbsurface: init: check still finds problems after four rounds; run check on the file")
	return head.render(verbs, skipped), nil
}

func initFrom(o *initOptions) string {
	switch {
	case o.cobra != "":
		return "--cobra " + o.cobra
	case o.clap != "":
		return "--clap " + o.clap
	case o.argparse != "":
		return "--argparse " + o.argparse
	case o.optparse != "":
		return "--optparse " + o.optparse
	}
	return "--click " + o.click
}

// initVerbs is every runnable command of t a verb could offer, and a line
// for each one that cannot be offered, with the reason.
func initVerbs(t *projector.Tree, program string) ([]*initVerb, []string) {
	var verbs []*initVerb
	var skipped []string
	names := map[string]bool{}
	fenced := func(path []string) bool {
		for _, f := range verbsurface.DefaultFence {
			if slices.Equal(f, path) {
				return true
			}
		}
		return false
	}
	for _, c := range t.Commands {
		if !c.Runnable || c.Hidden || len(c.Path) > 0 && slices.Contains([]string{"help", "completion", "__complete", "__completeNoDesc"}, c.Path[0]) {
			continue
		}
		shown := strings.Join(c.Path, " ")
		if shown == "" {
			shown = program
		}
		if fenced(c.Path) {
			skipped = append(skipped, fmt.Sprintf("%s: fenced (a privilege-granting command is never offered)", shown))
			continue
		}
		v := &initVerb{path: c.Path, summary: c.Summary, class: verbsurface.ClassControl}
		v.name = verbName(program, c.Path, names)
		if len(c.Path) > 0 && slices.Contains(readLike, strings.ToLower(c.Path[len(c.Path)-1])) {
			v.class = verbsurface.ClassObserve
		}
		// A parameter the projector cannot express makes the command
		// unavailable; excluding it, when the command does not need it,
		// offers the rest (what check would ask for).
		cmd := c
		for i := 0; i < len(c.Params); i++ {
			err := projector.Representable(cmd)
			var ue *projector.UnavailableError
			if err == nil || !errors.As(err, &ue) || ue.Param == "" {
				break
			}
			next, _ := projector.ExcludeFromCommand(cmd, ue.Param)
			v.exclude = append(v.exclude, ue.Param)
			v.notes = append(v.notes, fmt.Sprintf("excluded %s: %s", ue.Param, ue.Reason))
			cmd = next
		}
		if err := projector.Representable(cmd); err != nil {
			skipped = append(skipped, fmt.Sprintf("%s: %s", shown, strings.TrimPrefix(err.Error(), "projector: ")))
			continue
		}
		for _, p := range cmd.Params {
			switch {
			case p.Path != projector.PathUseNone:
				v.confined = append(v.confined, fmt.Sprintf("%s (%s)", p.Name, p.Path))
			case projector.LooksLikePath(p):
				v.files = append(v.files, p.Name+":read")
			}
		}
		verbs = append(verbs, v)
	}
	return verbs, skipped
}

// activate offers the observe verbs; when there is none, the first verb
// that check has not refused stays active as a control verb, so that the
// file offers something and passes check (a note says so: read it before
// serving).
func activate(verbs []*initVerb) {
	offered := false
	for _, v := range verbs {
		v.active = v.class == verbsurface.ClassObserve && !v.refused()
		offered = offered || v.active
	}
	if offered {
		return
	}
	for _, v := range verbs {
		if !v.refused() {
			v.active = true
			return
		}
	}
}

// refused reports whether check refused the verb (a note says why).
func (v *initVerb) refused() bool {
	return slices.ContainsFunc(v.notes, func(n string) bool { return strings.HasPrefix(n, "check: ") })
}

var verbWord = regexp.MustCompile(`[^a-z0-9_-]+`)

// verbName is a verb name for path: its words, lowercased, joined by dots
// (the program's name for its root command), unique among names.
func verbName(program string, path []string, names map[string]bool) string {
	words := path
	if len(words) == 0 {
		words = []string{program}
	}
	parts := make([]string, len(words))
	for i, w := range words {
		w = strings.Trim(verbWord.ReplaceAllString(strings.ToLower(w), "-"), "-")
		if w == "" || w[0] < 'a' || w[0] > 'z' {
			w = "x" + w
		}
		parts[i] = w
	}
	name := strings.Join(parts, ".")
	for i := 2; names[name]; i++ {
		name = fmt.Sprintf("%s_%d", strings.Join(parts, "."), i)
	}
	names[name] = true
	return name
}

// initHead is what the file says before its verbs.
type initHead struct {
	program, source, from string
	command               []string
}

func (h initHead) render(verbs []*initVerb, skipped []string) string {
	var b strings.Builder
	fmt.Fprintf(&b, `# A starting front for %s, written by verbsurface init %s.
# Every command is a verb. Read-like ones (list, show, get, status, ...) are
# offered as observe verbs; the others are control verbs, commented out:
# read what each does, then uncomment it to offer it. files: lists the
# parameters that look like paths (confined to the roots; say write, dir,
# read_or_dir or none where read is wrong). Check the output mode, then run
# verbsurface check -c FILE. docs/fronting.md explains every key.
`, h.program, h.from)
	fmt.Fprintf(&b, "name: %s\n", yamlString(h.program))
	fmt.Fprintf(&b, "command: %s\n", flowList(h.command))
	b.WriteString("output: text                 # or json / jsonl when the program prints JSON (machine: or args: that ask for it)\n")
	fmt.Fprintf(&b, "source: %s\n", h.source)
	b.WriteString("roots: [.]                   # the directories under which callers may name files\n")
	b.WriteString("verbs:\n")
	for _, v := range verbs {
		if !v.active && v.class == verbsurface.ClassObserve && !v.refused() {
			continue // cannot happen: activate offers every observe verb check accepts
		}
		prefix := "  "
		if !v.active {
			prefix = "  # "
		}
		if v.active && v.class == verbsurface.ClassControl {
			b.WriteString("  # init found no read-like command: this one is offered so that the file passes check;\n  # read what it does before serving, and say observe only if it changes nothing.\n")
		}
		for _, n := range v.notes {
			fmt.Fprintf(&b, "  # %s\n", oneLine(n))
		}
		if len(v.confined) > 0 {
			fmt.Fprintf(&b, "  # confined by the parser's own marks: %s\n", strings.Join(v.confined, ", "))
		}
		fmt.Fprintf(&b, "%s- name: %s\n", prefix, v.name)
		ind := strings.Replace(prefix, "- ", "  ", 1) + "  "
		if !v.active {
			ind = "  #   "
		}
		fmt.Fprintf(&b, "%spath: %s\n", ind, flowList(v.path))
		fmt.Fprintf(&b, "%sclass: %s\n", ind, v.class)
		if v.summary != "" {
			fmt.Fprintf(&b, "%ssummary: %s\n", ind, yamlString(oneLine(v.summary)))
		}
		if len(v.files) > 0 {
			fmt.Fprintf(&b, "%sfiles: %s\n", ind, flowList(v.files))
		}
		if len(v.exclude) > 0 {
			fmt.Fprintf(&b, "%sexclude: %s\n", ind, flowList(v.exclude))
		}
	}
	if len(skipped) > 0 {
		b.WriteString("# Commands that cannot be offered:\n")
		for _, s := range skipped {
			fmt.Fprintf(&b, "#   %s\n", oneLine(s))
		}
	}
	return b.String()
}

// displayName is the program's name as its command runs it: the
// executable's base name, or for a Python interpreter the module (-m) or
// script it runs.
func displayName(command []string) string {
	name := filepath.Base(command[0])
	if strings.HasPrefix(name, "python") && len(command) > 1 {
		if command[1] == "-m" && len(command) > 2 {
			return command[2]
		}
		return strings.TrimSuffix(filepath.Base(command[1]), ".py")
	}
	return name
}

// checkInit loads text as check would, from a file in dir (replaced at
// each round), and folds what
// check says back into verbs: a verb it refuses is commented out with the
// reason; a parameter it warns looks like a path is confined as read. It
// reports whether anything changed.
func checkInit(ctx context.Context, dir, text string, verbs []*initVerb) (bool, error) {
	f, err := os.Create(filepath.Join(dir, "init.yaml"))
	if err != nil {
		return false, fmt.Errorf("init: %v", err)
	}
	if _, err := f.WriteString(text); err != nil {
		f.Close()
		return false, err
	}
	f.Close()
	cfg, err := LoadConfig(f.Name())
	if err != nil {
		return false, fmt.Errorf("init: the written configuration does not load (a bug in init): %v", err)
	}
	byName := map[string]*initVerb{}
	for _, v := range verbs {
		byName[v.name] = v
	}
	refuse := func(name, reason string) bool {
		if v := byName[name]; v != nil && !v.refused() {
			v.notes = append(v.notes, "check: "+reason)
			return true
		}
		return false
	}
	fr, err := newFront(cfg)
	if err != nil {
		var ce *ConfigError
		if errors.As(err, &ce) {
			var i int
			if _, serr := fmt.Sscanf(ce.Field, "verbs[%d]", &i); serr == nil && i < len(cfg.Verbs) {
				return refuse(cfg.Verbs[i].Name, ce.Msg), nil
			}
		}
		return false, fmt.Errorf("init: %v", err)
	}
	changed := false
	errs, warns := fr.lint(ctx)
	for _, e := range errs {
		var ce *ConfigError
		var i int
		if errors.As(e, &ce) {
			if _, serr := fmt.Sscanf(ce.Field, "verbs[%d]", &i); serr == nil && i < len(cfg.Verbs) {
				changed = refuse(cfg.Verbs[i].Name, ce.Msg) || changed
				continue
			}
		}
		return false, fmt.Errorf("init: %v", e)
	}
	for _, p := range fr.check(ctx) {
		changed = refuse(p.Verb, p.Reason) || changed
	}
	for _, w := range warns {
		if v := byName[w.Verb]; v != nil && w.Param != "" && !slices.ContainsFunc(v.files, func(f string) bool { return strings.HasPrefix(f, w.Param+":") }) {
			v.files = append(v.files, w.Param+":read")
			changed = true
		}
	}
	return changed, nil
}

func pythonSource(target, python string, pypath []string) string {
	s := "{target: " + yamlString(target)
	if python != "" {
		s += ", python: " + yamlString(python)
	}
	if len(pypath) > 0 {
		s += ", pythonpath: " + flowList(pypath)
	}
	return s + "}"
}

// yamlString is s as a YAML scalar: a JSON string, which YAML reads as a
// double-quoted scalar.
func yamlString(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

func flowList(words []string) string {
	q := make([]string, len(words))
	for i, w := range words {
		q[i] = yamlString(w)
	}
	return "[" + strings.Join(q, ", ") + "]"
}

// oneLine is s on one line, for a comment.
func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }
