package fromcobrabin

import (
	"bytes"
	"context"
	"fmt"
	"strconv"
	"strings"
)

// The completion protocol (cobra v1.2 and later, completions.go): the
// hidden command __complete takes a command line whose last word is the
// one being completed, and prints one candidate a line — the candidate, a
// tab and its description (a subcommand's Short, a flag's usage; only the
// first line of it) — then ":N", the directive, as the last line. It never
// runs the command it completes; it may call the command's own completion
// function for positional values (a shell calls it on every tab).

const completeCmd = "__complete"

// completion is one parsed answer of __complete.
type completion struct {
	items     []candidate
	directive int
}

type candidate struct {
	value, desc string
}

// directiveNoFileComp is cobra's ShellCompDirectiveNoFileComp, which it
// returns after completing flag names.
const directiveNoFileComp = 4

// activeHelpMarker starts the lines cobra prints as active help (they are
// also turned off by COBRA_ACTIVE_HELP=0).
const activeHelpMarker = "_activeHelp_ "

// parseCompletion reads the output of __complete. Output without a final
// ":N" line is not the protocol's: the program is not a cobra program, or
// its cobra predates the protocol.
func parseCompletion(out []byte) (*completion, error) {
	lines := strings.Split(strings.TrimRight(string(bytes.ReplaceAll(out, []byte("\r\n"), []byte("\n"))), "\n"), "\n")
	last := lines[len(lines)-1]
	n, err := strconv.Atoi(strings.TrimPrefix(last, ":"))
	if !strings.HasPrefix(last, ":") || err != nil || n < 0 {
		return nil, fmt.Errorf("its answer to %s does not end with cobra's directive line (\":N\"), so it does not speak cobra's completion protocol", completeCmd)
	}
	c := &completion{directive: n}
	for _, l := range lines[:len(lines)-1] {
		if l == "" || strings.HasPrefix(l, activeHelpMarker) {
			continue
		}
		v, d, _ := strings.Cut(l, "\t")
		c.items = append(c.items, candidate{value: v, desc: d})
	}
	return c, nil
}

// find returns the candidate spelled value.
func (c *completion) find(value string) (candidate, bool) {
	for _, it := range c.items {
		if it.value == value {
			return it, true
		}
	}
	return candidate{}, false
}

// complete asks the program to complete the command line path + words.
func (p *program) complete(ctx context.Context, path []string, words ...string) (*completion, error) {
	args := append(append([]string{completeCmd}, path...), words...)
	out, err := p.run(ctx, args...)
	if err != nil {
		return nil, err
	}
	c, err := parseCompletion(out.stdout)
	if err != nil {
		return nil, fmt.Errorf("%s: %v", p.describe(args), err)
	}
	return c, nil
}

// helpFlagUsage is the usage cobra gives the help flag it adds to a
// command (InitDefaultHelpFlag): "help for " and the command's name.
func helpFlagUsage(name string) string {
	if name == "" {
		return "help for this command"
	}
	return "help for " + name
}

// parsesFlags asks whether the command at path parses its flags, and what
// its name is. Cobra adds the help flag to the command it completes only
// when the command parses flags (DisableFlagParsing unset), with usage
// "help for NAME": completing "--help" therefore offers "--help" with that
// usage exactly when the command at path is the one named last in path
// and --help would print its help rather than run it. (Completing "--"
// is not enough: while a command has required flags unset, cobra offers
// only those.) name is "" for the root, whose name is learnt here.
func (p *program) parsesFlags(ctx context.Context, path []string) (name string, ok bool, err error) {
	c, err := p.complete(ctx, path, "--help")
	if err != nil {
		return "", false, err
	}
	it, found := c.find("--help")
	if !found {
		return "", false, nil
	}
	if len(path) == 0 {
		name, ok = strings.CutPrefix(it.desc, "help for ")
		return name, ok && name != "", nil
	}
	return path[len(path)-1], it.desc == helpFlagUsage(path[len(path)-1]), nil
}

// unknownFlag is a flag no program defines.
const unknownFlag = "--verbsurface-no-such-flag"

// readsRaw reports whether the command at path reads its argv raw
// (DisableFlagParsing) although it completes cobra's own --help: cobra
// before v1.7 adds the help flag to every command it completes, so
// parsesFlags cannot tell. A command that parses its flags refuses an
// unknown flag while completing (probeRejected); one that reads its argv
// raw goes on to complete flag names after it. Anything else is taken
// for raw too: its --help is then never run, which is the safe side (a
// command that ignores unknown flags, FParseErrWhitelist, is lost).
func (p *program) readsRaw(ctx context.Context, path []string) (bool, error) {
	pr, err := p.parses(ctx, path, unknownFlag)
	if err != nil {
		return false, err
	}
	return pr != probeRejected, nil
}

// probe is what completing after a flag said about parsing it.
type probe int

const (
	probeUnclear  probe = iota // neither of the answers below
	probeParsed                // the words parsed: cobra went on to complete flag names
	probeRejected              // the words did not parse: no candidate, the default directive
)

// parses asks whether the flag words parse on the command at path, by
// completing a flag name after them: cobra parses the words first, and
// completes flag names (at least --help, or the required flags not yet
// given, or none when every flag is given) with the no-file directive only
// if they parse; if they do not, it answers nothing with the default
// directive. It never runs the command.
func (p *program) parses(ctx context.Context, path []string, words ...string) (probe, error) {
	c, err := p.complete(ctx, path, append(words, "-")...)
	if err != nil {
		return probeUnclear, err
	}
	return c.probe(), nil
}

// probe reads an answer to completing a flag name after words (see
// parses).
func (c *completion) probe() probe {
	switch {
	case c.directive == directiveNoFileComp:
		// Flag names completed, or none left to complete (every flag
		// given, a help flag hidden): the words parsed.
		return probeParsed
	case len(c.items) == 0 && c.directive == 0:
		return probeRejected
	}
	return probeUnclear
}
