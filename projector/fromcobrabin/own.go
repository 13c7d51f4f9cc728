package fromcobrabin

import (
	"context"
	"fmt"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/verbsurface/verbsurface/projector"
)

// Programs whose help is their own: gh and podman define their own help
// flag ("Show help for command", "Help for podman", hidden on podman's
// subcommands), and print help in a template of their own (gh's USAGE,
// FLAGS, INHERITED FLAGS; podman's Options:). cobra still parses their
// flags and still answers its completion protocol, so the reader learns
// from completion what the layout hides, and takes from the help only what
// cobra and pflag print in their own words whatever the template: the
// command's usage line and pflag's flag entries.

// helpState is what completion said about a command whose --help is not
// offered as cobra's.
type helpState struct {
	noCommand bool   // cobra finds no command by that path: a value completion offered
	reason    string // why its --help is not run ("": it prints help)
}

// ownHelp asks whether the command at path, whose completion does not
// offer cobra's own help flag, prints its help on --help all the same.
// It does when cobra parses its flags and --help is one of them: cobra
// then returns its help (flag.ErrHelp) for any help flag set, before any
// hook of the command runs, and a help flag that is not a bool makes
// cobra refuse to run at all. Completion shows both without running
// anything:
//
//   - an unknown flag is refused (no candidate, the default directive):
//     cobra parsed the words and failed; a command that reads its argv
//     raw parses nothing and goes on to complete flag names, its help
//     flag among them;
//   - --help given bare is not refused: it is a flag of the command that
//     needs no value (a bool; hidden or not).
//
// Both refused, and nothing completed for a bare "-" either (a command
// that parses its flags completes at least its flag names, or answers
// with the no-file directive): cobra found no command by that path; the
// name completion offered is a value (gh's alias "co"), not a command.
func (w *walker) ownHelp(ctx context.Context, path []string) (helpState, error) {
	raw, err := w.prog.parses(ctx, path, unknownFlag)
	if err != nil {
		return helpState{}, err
	}
	help, err := w.prog.parses(ctx, path, "--help")
	if err != nil {
		return helpState{}, err
	}
	switch {
	case raw == probeRejected && help != probeRejected:
		return helpState{}, nil
	case raw == probeRejected:
		c, err := w.prog.complete(ctx, path, "-")
		if err != nil {
			return helpState{}, err
		}
		if len(c.items) == 0 && c.directive == 0 && len(path) > 0 {
			return helpState{noCommand: true}, nil
		}
		return helpState{reason: "its completion refuses --help given bare, so --help is not a flag of its that needs no value, and its help cannot be asked for"}, nil
	}
	return helpState{reason: fmt.Sprintf("its completion goes on past an unknown flag (%s), so it does not parse flags (DisableFlagParsing: it reads its argv raw)", unknownFlag)}, nil
}

// ownName learns the root command's name for a program whose help flag
// is its own (cobra's "help for NAME" names it otherwise): the first word
// of the usage lines its help prints under a Usage title, which cobra
// starts with the command's path; the executable's file name when there
// are none, or they disagree. A wrong name costs nothing but readings: no
// command's usage line then starts with its path, and each says so.
func (w *walker) ownName(ctx context.Context) (string, error) {
	out, err := w.prog.run(ctx, "--help")
	if err != nil && !w.settled(err) {
		return "", err
	}
	text := string(out.stdout)
	if strings.TrimSpace(text) == "" {
		text = string(out.stderr)
	}
	name := ""
	for _, u := range usageLines(strings.Split(text, "\n"), "") {
		first, _, _ := strings.Cut(u, " ")
		if name != "" && first != name {
			name = ""
			break
		}
		name = first
	}
	if name == "" {
		name = filepath.Base(w.prog.argv0())
		if ext := filepath.Ext(name); strings.EqualFold(ext, ".exe") {
			name = strings.TrimSuffix(name, ext)
		}
	}
	return name, nil
}

// usageLines returns the lines a page prints under a title Usage (any
// case, with or without a colon) that start with cmdPath ("": any line),
// indent removed.
//
// A title with the usage on its own line, "Usage:  docker context ls
// [OPTIONS]" (the Docker CLI's template), is a usage line too.
func usageLines(lines []string, cmdPath string) []string {
	var usage []string
	for i, l := range lines {
		if m := usageInline.FindStringSubmatch(l); m != nil && (cmdPath == "" || startsWithPath(m[1], cmdPath)) {
			usage = append(usage, strings.TrimSpace(m[1]))
			continue
		}
		if !usageHeader.MatchString(strings.TrimSpace(l)) || strings.HasPrefix(l, " ") {
			continue
		}
		for _, u := range lines[i+1:] {
			u = strings.TrimSpace(u)
			if u == "" || cmdPath != "" && !startsWithPath(u, cmdPath) {
				break
			}
			usage = append(usage, u)
		}
	}
	return usage
}

// usageHeader is the title of a usage section in any layout: "Usage:",
// "USAGE".
var usageHeader = regexp.MustCompile(`(?i)^usage:?$`)

// usageInline is a usage title at the start of a line followed, after
// two spaces or more, by the usage itself.
var usageInline = regexp.MustCompile(`(?i)^usage: {2,}(\S.*)$`)

// commandWord is a usage line's placeholder for a subcommand: "[command]",
// "<command>", "COMMAND", "<subcommand>".
var commandWord = regexp.MustCompile(`(?i)^[\[<]?(sub)?command[\]>]?$`)

// ownPage reads a command from help in a layout of the program's own
// (layout says why it is not cobra's): its usage line from the section
// titled Usage, its flags from completion and pflag's entries wherever
// the page prints them. hasSub says it has subcommands.
func (w *walker) ownPage(ctx context.Context, cmd *projector.Command, text string, hasSub bool, layout error) {
	cmdPath := w.commandPath(cmd.Path)
	lines := strings.Split(strings.ReplaceAll(text, "\r\n", "\n"), "\n")
	usage := usageLines(lines, cmdPath)
	unavailable := func(format string, a ...any) {
		cmd.Runnable = true
		if cmd.Unrepresentable == nil {
			cmd.Unrepresentable = &projector.Unrepresentable{Reason: fmt.Sprintf(format, a...)}
		}
	}
	if hasSub {
		// A group, when every usage line it prints names a subcommand
		// placeholder; whether it also runs itself cannot be told
		// otherwise.
		group := len(usage) > 0
		for _, u := range usage {
			group = group && hasCommandWord(u)
		}
		if !group {
			unavailable("its help is in a layout of its own (%v), and with subcommands and the usage lines %q it does not show whether it runs itself", layout, usage)
		}
		return
	}
	// Completion offers only commands that run or have subcommands
	// (IsAvailableCommand): this one runs.
	cmd.Runnable = true
	entries := flagEntries(lines)
	w.ownFlags(ctx, cmd, entries)
	if cmd.Unrepresentable != nil {
		return
	}
	switch len(usage) {
	case 0:
		unavailable("positionals cannot be determined: its help is in a layout of its own (%v) and prints no usage line starting with %q under a Usage title", layout, cmdPath)
		return
	case 1:
	default:
		unavailable("positionals cannot be determined: its help is in a layout of its own (%v) and prints %d usage lines %q", layout, len(usage), usage)
		return
	}
	claimed := map[string]string{}
	for _, p := range cmd.Params {
		claimed[p.Name] = "flag " + p.Options[0]
	}
	claim := func(name, by string) {
		if prev, dup := claimed[name]; dup && cmd.Unrepresentable == nil {
			cmd.Unrepresentable = &projector.Unrepresentable{Reason: fmt.Sprintf("%s and %s both map to parameter name %q", prev, by, name)}
		}
		claimed[name] = by
	}
	// An excluded flag takes a value when the page prints a word for it;
	// one it does not print is unknown, and a usage line naming it is
	// unreadable.
	excluded := map[string]bool{}
	for _, o := range cmd.Excluded {
		if e := entries[strings.TrimPrefix(o, "--")]; e != nil {
			for _, opt := range options(e) {
				excluded[opt] = e.word != ""
			}
		}
	}
	w.positionals(cmd, usage[0], excluded, claimed, claim)
}

func hasCommandWord(u string) bool {
	for _, f := range strings.Fields(u) {
		if commandWord.MatchString(f) {
			return true
		}
	}
	return false
}

// ownFlags reads the flags of a command whose help is in a layout of its
// own. Completion names them (PATH -: each flag's long name, and its
// shorthand right after it, with the raw first line of its usage); a
// required flag not yet given hides the others, so a flag the page prints
// that completion did not name is asked for by name. Each is then read as
// in cobra's layout from its pflag entry where the page prints one, once
// (its type word, default, no-value default); a flag the page does not
// print is learnt from its parser alone, through completion, as a
// placeholder is, with no default.
func (w *walker) ownFlags(ctx context.Context, cmd *projector.Command, entries map[string]*flagLine) {
	path := cmd.Path
	c, err := w.prog.complete(ctx, path, "-")
	if err != nil {
		if w.settled(err) {
			cmd.Unrepresentable = &projector.Unrepresentable{Reason: fmt.Sprintf("completing its flags failed: %v", err)}
		}
		return
	}
	type named struct{ name, short, desc string }
	var flags []*named
	byName := map[string]*named{}
	add := func(name, desc string) *named {
		if f, ok := byName[name]; ok {
			return f
		}
		f := &named{name: name, desc: desc}
		byName[name] = f
		flags = append(flags, f)
		return f
	}
	var last *named
	for _, it := range c.items {
		switch {
		case strings.HasPrefix(it.value, "--"):
			last = add(it.value[2:], it.desc)
		case len(it.value) == 2 && it.value[0] == '-':
			// cobra offers a shorthand right after its long name, with
			// the same usage (getFlagNameCompletions).
			if last != nil && last.desc == it.desc && last.short == "" {
				last.short = it.value[1:]
			}
			last = nil
		default:
			last = nil
		}
	}
	for _, e := range entries {
		if _, ok := byName[e.name]; ok || e.name == "help" {
			continue
		}
		if c, err := w.prog.complete(ctx, path, "--"+e.name); err == nil {
			if it, ok := c.find("--" + e.name); ok {
				add(e.name, it.desc)
			}
		} else if !w.settled(err) {
			return
		}
	}
	raw := map[string]string{}
	unprintedCount := 0
	for _, f := range flags {
		raw[f.name] = f.desc
		if entries[f.name] == nil && f.name != "help" && !w.exclude[f.name] {
			unprintedCount++
		}
	}
	if unprintedCount > maxUnprinted {
		// rclone's help prints none of its thousand global flags:
		// learning each from its parser would take thousands of calls
		// on every command.
		cmd.Unrepresentable = &projector.Unrepresentable{Reason: fmt.Sprintf("its help, in a layout of its own, does not print %d of the flags completion names (more than %d), and learning each from its parser would take about five calls a flag", unprintedCount, maxUnprinted)}
		return
	}
	// Each flag's entry: the page's, or one made for a flag it does not
	// print, whose parser alone says what it takes.
	lines := map[*named]*flagLine{}
	unprintedLine := map[*flagLine]bool{}
	var asked []*flagLine
	for _, f := range flags {
		if f.name == "help" || w.exclude[f.name] {
			continue
		}
		fl := entries[f.name]
		if fl == nil || f.short != "" && fl.shorthand != f.short {
			fl = &flagLine{name: f.name, shorthand: f.short, usage: strings.ReplaceAll(f.desc, "`", "")}
			fl.text = "\x00" + strings.Join(path, " ") + "\x00" + f.name // learnt for this command alone
			fl.word = unprinted
			unprintedLine[fl] = true
		}
		lines[f] = fl
		asked = append(asked, fl)
	}
	kind := func(fl *flagLine) probeKind {
		if unprintedLine[fl] {
			return probeString // resolve asks it first, past the bare probe
		}
		return kindToProbe(fl, raw)
	}
	pre := w.probeTogether(ctx, path, asked, kind, func(fl *flagLine) bool { return !unprintedLine[fl] })
	for _, f := range flags {
		if f.name == "help" {
			continue
		}
		if w.exclude[f.name] {
			cmd.Excluded = append(cmd.Excluded, "--"+f.name)
			continue
		}
		var p *projector.Param
		if fl := lines[f]; !unprintedLine[fl] {
			p = w.flagParam(ctx, path, fl, raw, true, pre)
		} else {
			p = w.fromResolution(fl, w.resolve(ctx, path, fl, pre))
			p.Default = nil
			p.Action = unprintedAction
			if p.Unrepresentable != nil {
				p.Unrepresentable.Action = p.Action
			}
		}
		cmd.Params = append(cmd.Params, p)
	}
}

// maxUnprinted bounds how many flags of one command are learnt from the
// parser alone.
const maxUnprinted = 64

// unprinted stands for the word of a flag that help does not print.
const (
	unprinted       = "VALUE"
	unprintedAction = "pflag:(not in help)"
)

// ownFlagEntry finds pflag's entry for a flag in a page of any layout:
// "-s, --name WORD[=NOOPT]   usage", at any indent (gh removes the
// indent pflag gives a flag without shorthand when none has one), usage
// after at least two spaces. pflag pads with spaces only: a page that
// separates with tabs (etcdctl's "--debug[=false]<TAB>usage", where the
// brackets hold the default, not a no-value default) prints a format of
// its own, and its flags are learnt from their parser.
var ownFlagEntry = regexp.MustCompile(`^( *)(?:-([^\s-]), )?--([^\s=\[]+)((?: [^\s]+)?(?:\[=[^\]]*\])?)(?:( {2,})([^\s].*))?$`)

// flagEntries returns the pflag entries a page prints, by flag name, with
// their continuation lines (indented to their usage's column). A name
// printed twice, differently, is left out: which entry is the flag's
// cannot be told.
func flagEntries(lines []string) map[string]*flagLine {
	out := map[string]*flagLine{}
	twice := map[string]bool{}
	for i := 0; i < len(lines); i++ {
		m := ownFlagEntry.FindStringSubmatch(lines[i])
		if m == nil {
			continue
		}
		col := "      --" + m[3] + m[4]
		if m[2] != "" {
			col = "  -" + m[2] + ", --" + m[3] + m[4]
		}
		f, err := parseFlagColumn(col)
		if err != nil {
			continue
		}
		f.usage, f.text = m[6], lines[i]
		if m[5] != "" {
			usageCol := len(lines[i]) - len(m[6])
			pad := strings.Repeat(" ", usageCol)
			for i+1 < len(lines) && strings.HasPrefix(lines[i+1], pad) && strings.TrimSpace(lines[i+1]) != "" {
				i++
				f.usage += "\n" + strings.TrimPrefix(lines[i], pad)
				f.text += "\n" + lines[i]
			}
		}
		if prev, ok := out[f.name]; ok && prev.text != f.text {
			twice[f.name] = true
		}
		out[f.name] = f
	}
	for n := range twice {
		delete(out, n)
	}
	return out
}
