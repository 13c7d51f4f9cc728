package fromcobrabin

import (
	"fmt"
	"regexp"
	"strings"
)

// The help layout the reader knows is the one cobra's default usage
// template prints (cobra v1.10 command.go, defaultUsageFunc), after the
// command's Long (or Short) text:
//
//	Usage:
//	  PATH USE [flags]          (when the command is runnable)
//	  PATH [command]            (when it has subcommands)
//
//	Aliases:
//	  NAME, ALIAS, …
//
//	Examples:
//	…free text…
//
//	Available Commands:       (or one block per command group, titled by the program)
//	  NAME   SHORT
//
//	Flags:
//	  -s, --name TYPE   USAGE (default …)
//
//	Global Flags:
//	      --name TYPE   USAGE
//
//	Additional help topics:
//	  PATH TOPIC   SHORT
//
//	Use "PATH [command] --help" for more information about a command.
//
// The one variant accepted besides is usage lines without their two-space
// indent (the template skopeo and other containers tools use). The flag
// blocks are pflag's FlagUsages: one line a flag, its continuation lines
// indented to the column where every flag's usage starts.
//
// The page is read from both ends, since the Long text and the examples
// are the program's own and may hold anything: the usage block is the one
// "Usage:" line followed by a line that starts with the command's path,
// and the flag blocks are the last "Flags:" block and what follows it,
// which must be exactly the sections above, in that order, to the end.

// page is one command's --help, read.
type page struct {
	useLine    string // the runnable usage line, without its indent ("" if not runnable)
	hasSub     bool   // "PATH [command]" line and footer
	aliases    []string
	listed     map[string]bool // names in the command listing blocks
	local      []*flagLine     // Flags:
	inherited  []*flagLine     // Global Flags:
	helpTopics bool
}

// flagLine is one flag of a Flags block as pflag printed it.
type flagLine struct {
	shorthand string // "" if none shown
	name      string
	word      string // the type word or placeholder after the name ("" for none)
	noOptDef  string // the value in "[=…]" (quotes removed for a string)
	hasNoOpt  bool
	usage     string // the usage, continuation lines joined by "\n", the default suffix included
	text      string // the whole printed entry, for messages and caching
}

// layoutError is a help page the reader does not recognise.
type layoutError struct{ msg string }

func (e *layoutError) Error() string { return e.msg }

func layoutErrorf(format string, a ...any) error {
	return &layoutError{msg: fmt.Sprintf(format, a...)}
}

// parseHelp reads the help page of the command whose path (as cobra's
// CommandPath prints it, root name first) is cmdPath.
func parseHelp(text, cmdPath string) (*page, error) {
	text = strings.ReplaceAll(text, "\r\n", "\n")
	lines := strings.Split(strings.TrimRight(text, "\n"), "\n")
	pg := &page{listed: map[string]bool{}}

	// The usage block: "Usage:", then lines that start with the command's
	// path, then an empty line and what cobra prints next (or the end).
	// The Long text and the examples may hold such a block too; cobra's
	// is the one that is followed by one of its sections.
	var at []int
	for i := 0; i+1 < len(lines); i++ {
		if lines[i] == "Usage:" && startsWithPath(strings.TrimPrefix(lines[i+1], "  "), cmdPath) && followedBySection(lines, i+1) {
			at = append(at, i)
		}
	}
	switch {
	case len(at) == 0:
		return nil, layoutErrorf("its help has no \"Usage:\" line followed by %q and one of cobra's sections: not cobra's usage layout", cmdPath)
	case len(at) > 1:
		return nil, layoutErrorf("its help has %d \"Usage:\" blocks naming %q (lines %d and %d), so which one is cobra's cannot be told", len(at), cmdPath, at[0]+1, at[1]+1)
	}
	i := at[0] + 1
	indent := ""
	if strings.HasPrefix(lines[i], "  ") {
		indent = "  "
	}
	subLine := cmdPath + " [command]"
	var usage []string
	for ; i < len(lines) && lines[i] != ""; i++ {
		l, ok := strings.CutPrefix(lines[i], indent)
		if !ok || strings.HasPrefix(l, " ") || !startsWithPath(l, cmdPath) {
			return nil, layoutErrorf("usage line %q does not start with %q", lines[i], cmdPath)
		}
		usage = append(usage, l)
	}
	switch {
	case len(usage) == 1 && usage[0] == subLine:
		pg.hasSub = true
	case len(usage) == 1:
		pg.useLine = usage[0]
	case len(usage) == 2 && usage[1] == subLine:
		pg.useLine, pg.hasSub = usage[0], true
	default:
		return nil, layoutErrorf("its usage block has %d lines %q; cobra prints the command's usage line and, for a command with subcommands, %q", len(usage), usage, subLine)
	}
	usageEnd := i

	// Aliases, right after the usage block.
	if usageEnd+2 < len(lines) && lines[usageEnd+1] == "Aliases:" {
		names := strings.Split(strings.TrimPrefix(lines[usageEnd+2], "  "), ", ")
		last := cmdPath[strings.LastIndexByte(cmdPath, ' ')+1:]
		if names[0] != last {
			return nil, layoutErrorf("its Aliases line %q does not start with the command's name %q", lines[usageEnd+2], last)
		}
		pg.aliases = names[1:]
	}

	// The tail, from the last "Flags:" line: every help page has one,
	// since cobra gives every command its own --help flag.
	flagsAt := -1
	for j := len(lines) - 1; j > usageEnd; j-- {
		if lines[j] == "Flags:" {
			flagsAt = j
			break
		}
	}
	if flagsAt < 0 {
		return nil, layoutErrorf("its help has no \"Flags:\" block, which cobra prints for every command (it has at least --help)")
	}
	j := flagsAt
	var err error
	if pg.local, j, err = parseFlagBlock(lines, j); err != nil {
		return nil, err
	}
	footer := fmt.Sprintf("Use %q for more information about a command.", cmdPath+" [command] --help")
	sawFooter := false
	for j < len(lines) {
		if lines[j] != "" || j+1 >= len(lines) {
			return nil, layoutErrorf("line %d %q: after the Flags block cobra prints only Global Flags, Additional help topics and its closing line", j+1, lines[j])
		}
		j++
		switch {
		case lines[j] == "Global Flags:" && pg.inherited == nil && !pg.helpTopics && !sawFooter:
			if pg.inherited, j, err = parseFlagBlock(lines, j); err != nil {
				return nil, err
			}
		case lines[j] == "Additional help topics:" && !pg.helpTopics && !sawFooter:
			pg.helpTopics = true
			for j++; j < len(lines) && strings.HasPrefix(lines[j], "  "+cmdPath+" "); j++ {
			}
		case lines[j] == footer && !sawFooter:
			sawFooter = true
			j++
		default:
			return nil, layoutErrorf("line %d %q: after the Flags block cobra prints only Global Flags, Additional help topics and its closing line", j+1, lines[j])
		}
	}
	if sawFooter != pg.hasSub {
		return nil, layoutErrorf("its usage block and its closing line disagree on whether %q has subcommands", cmdPath)
	}

	// The command listing: between the usage block and the Flags block,
	// lines "  NAME  SHORT". Examples may hold such lines too; the reader
	// only takes names the completion protocol also offers.
	for _, l := range lines[usageEnd:flagsAt] {
		if m := listedCommand.FindStringSubmatch(l); m != nil {
			pg.listed[m[1]] = true
		}
	}
	return pg, nil
}

var listedCommand = regexp.MustCompile(`^  ([^\s]+)(?:\s|$)`)

// followedBySection reports whether the non-empty lines from lines[i] on
// end with an empty line followed by a section cobra prints after its
// usage block — Aliases, Examples, a command listing (a title, then an
// entry), Flags, Global Flags, Additional help topics, the closing line —
// or with the end of the page.
func followedBySection(lines []string, i int) bool {
	for i < len(lines) && lines[i] != "" {
		i++
	}
	if i >= len(lines)-1 {
		return i >= len(lines) || strings.TrimSpace(lines[i]) == ""
	}
	next := lines[i+1]
	switch next {
	case "Aliases:", "Examples:", "Flags:", "Global Flags:", "Additional help topics:":
		return true
	}
	if strings.HasPrefix(next, "Use \"") && strings.HasSuffix(next, " [command] --help\" for more information about a command.") {
		return true
	}
	return strings.HasSuffix(next, ":") && !strings.HasPrefix(next, " ") && i+2 < len(lines) && listedCommand.MatchString(lines[i+2])
}

// startsWithPath reports whether l is path or starts with path and a space.
func startsWithPath(l, path string) bool {
	return l == path || strings.HasPrefix(l, path+" ")
}

// flagStart matches the start of a pflag usage entry: "  -s, --name" or
// "      --name" (no shorthand, or a deprecated one).
var flagStart = regexp.MustCompile(`^(?:  -([^\s]), |      )--([^\s=\[]+)`)

// parseFlagBlock reads the block whose header is lines[at] and returns its
// flags and the index of the line after it (an empty line, or the end).
//
// pflag prints each flag's column ("  -s, --name WORD[=NOOPT]"), pads it
// to the width of the widest plus three spaces, and puts the usage there;
// a usage's own line breaks continue at that column. So the column is
// found from the widest entry, and every line is either the start of an
// entry whose column ends before it, or a continuation indented to it.
func parseFlagBlock(lines []string, at int) ([]*flagLine, int, error) {
	header := lines[at]
	end := at + 1
	for end < len(lines) && lines[end] != "" {
		end++
	}
	body := lines[at+1 : end]
	if len(body) == 0 {
		return nil, end, layoutErrorf("its %q block is empty", header)
	}
	// The width of each entry's column: up to the first run of three
	// spaces after the name (the padding), or the line's end.
	widths := make([]int, len(body))
	widest := 0
	for k, l := range body {
		m := flagStart.FindStringIndex(l)
		if m == nil {
			widths[k] = -1
			continue
		}
		w := strings.Index(l[m[1]:], "   ")
		if w < 0 {
			w = len(strings.TrimRight(l, " "))
		} else {
			w += m[1]
		}
		widths[k] = w
		widest = max(widest, w)
	}
	if widths[0] < 0 {
		return nil, end, layoutErrorf("%q block: line %q is not a flag as pflag prints one", header, body[0])
	}
	col := widest + 3
	pad := strings.Repeat(" ", col)
	var out []*flagLine
	for k, l := range body {
		if widths[k] < 0 {
			if !strings.HasPrefix(l, pad) && strings.TrimSpace(l) != "" {
				return nil, end, layoutErrorf("%q block: line %q is neither a flag nor a continuation indented to column %d", header, l, col)
			}
			f := out[len(out)-1]
			f.usage += "\n" + strings.TrimPrefix(l, pad)
			f.text += "\n" + l
			continue
		}
		if len(l) > widths[k] && strings.TrimSpace(l[widths[k]:min(col, len(l))]) != "" {
			return nil, end, layoutErrorf("%q block: line %q does not put its usage at column %d", header, l, col)
		}
		f, err := parseFlagColumn(l[:widths[k]])
		if err != nil {
			return nil, end, layoutErrorf("%q block: line %q: %v", header, l, err)
		}
		if len(l) > col {
			f.usage = l[col:]
		}
		f.text = l
		out = append(out, f)
	}
	return out, end, nil
}

// parseFlagColumn reads "  -s, --name WORD[=NOOPT]".
func parseFlagColumn(c string) (*flagLine, error) {
	m := flagStart.FindStringSubmatchIndex(c)
	f := &flagLine{name: c[m[4]:m[5]]}
	if m[2] >= 0 {
		f.shorthand = c[m[2]:m[3]]
	}
	rest := c[m[1]:]
	// "[=…]" closes the column when the flag has a no-value default.
	if k := strings.Index(rest, "[="); k >= 0 && strings.HasSuffix(rest, "]") {
		f.hasNoOpt = true
		f.noOptDef = rest[k+2 : len(rest)-1]
		rest = rest[:k]
	}
	if rest != "" {
		w, ok := strings.CutPrefix(rest, " ")
		if !ok || w == "" {
			return nil, fmt.Errorf("%q after --%s is not pflag's \" WORD\"", rest, f.name)
		}
		f.word = w
	}
	return f, nil
}
