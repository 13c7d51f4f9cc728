package fromclap

import (
	"fmt"
	"regexp"
	"slices"
	"strings"
)

// help is one command's help as clap prints it (versions 2 to 4): the
// usage lines, and the entries of each section, split but not yet judged.
type help struct {
	about    string
	usage    []string // each usage line, without the "Usage:" heading
	args     []*entry // Arguments: / ARGS:
	options  []*entry // Options: / OPTIONS: / FLAGS: and custom headings of options
	commands []*entry // Commands: / SUBCOMMANDS:
}

// entry is one item of a section: its head (the option strings and value
// names, an argument's name, a command's name) and the text after it,
// joined into one line.
type entry struct {
	head, text string
}

// heading matches a section heading: a word or words at column 0 ending in
// ':' (clap 4's "Usage:" carries the first usage line after it).
var heading = regexp.MustCompile(`^([A-Za-z][A-Za-z0-9 _/-]*):(?:\s+(.*))?$`)

// parseHelp splits clap's help into sections. It does not judge entries;
// it fails only when the text has no usage section, the one mark of
// clap's layout every version prints.
func parseHelp(text string) (*help, error) {
	h := &help{}
	lines := strings.Split(strings.ReplaceAll(text, "\r\n", "\n"), "\n")
	var section string
	var body []string
	var about []string
	flush := func() {
		switch kind := sectionKind(section, body); kind {
		case "usage":
			for _, l := range body {
				if l = strings.TrimSpace(l); l != "" {
					h.usage = append(h.usage, l)
				}
			}
		case "args":
			h.args = append(h.args, entries(body, false)...)
		case "options":
			h.options = append(h.options, entries(body, true)...)
		case "commands":
			h.commands = append(h.commands, entries(body, false)...)
		}
		body = nil
	}
	started := false
	for _, l := range lines {
		l = strings.TrimRight(l, " \t")
		if m := heading.FindStringSubmatch(l); m != nil && !strings.HasPrefix(l, " ") {
			if started {
				flush()
			}
			started = true
			section = m[1]
			if m[2] != "" {
				body = append(body, "  "+m[2])
			}
			continue
		}
		if !started {
			about = append(about, l)
			continue
		}
		if l != "" && !strings.HasPrefix(l, " ") {
			// Text at column 0 that is not a heading ends the sections
			// (an after_help paragraph).
			flush()
			section = ""
			continue
		}
		body = append(body, l)
	}
	flush()
	if len(h.usage) == 0 {
		return nil, fmt.Errorf("no usage section: not clap's help layout")
	}
	h.about = strings.TrimSpace(strings.Join(about, "\n"))
	return h, nil
}

// sectionKind names a section by its heading, or by its entries for a
// heading of the program's own (clap's help_heading): one whose entries
// all start with "-" holds options.
func sectionKind(name string, body []string) string {
	switch strings.ToLower(name) {
	case "usage":
		return "usage"
	case "arguments", "args":
		return "args"
	case "options", "flags":
		return "options"
	case "commands", "subcommands":
		return "commands"
	}
	es := entries(body, true)
	if len(es) == 0 {
		return ""
	}
	for _, e := range es {
		if !strings.HasPrefix(e.head, "-") {
			return ""
		}
	}
	return "options"
}

// entries splits a section body into entries: a line at the section's
// least indentation starts one; a more indented line continues it. In an
// options section, a line that starts with "-" up to four columns deeper
// starts one too: clap aligns a long-only option with the long names of
// the others ("-x, --long" against "    --only-long"), and indents text
// further. In short help the head and the text share a line, apart by two
// or more spaces.
func entries(body []string, options bool) []*entry {
	indent := -1
	for _, l := range body {
		if strings.TrimSpace(l) == "" {
			continue
		}
		if n := len(l) - len(strings.TrimLeft(l, " ")); indent < 0 || n < indent {
			indent = n
		}
	}
	var out []*entry
	var text []string
	flush := func() {
		if len(out) > 0 {
			out[len(out)-1].text = strings.Join(strings.Fields(strings.Join(text, " ")), " ")
		}
		text = nil
	}
	for _, l := range body {
		if strings.TrimSpace(l) == "" {
			text = append(text, "\n")
			continue
		}
		depth := len(l) - len(strings.TrimLeft(l, " "))
		if depth == indent || options && depth <= indent+4 && strings.HasPrefix(strings.TrimSpace(l), "-") {
			flush()
			head, rest := splitHead(strings.TrimSpace(l))
			out = append(out, &entry{head: head})
			text = append(text, rest)
			continue
		}
		text = append(text, strings.TrimSpace(l))
	}
	flush()
	return out
}

// splitHead separates an entry's head from text on the same line: the
// first run of two or more spaces.
func splitHead(l string) (head, rest string) {
	if i := strings.Index(l, "  "); i >= 0 {
		return l[:i], strings.TrimSpace(l[i:])
	}
	return l, ""
}

// summary is the first sentence-line of an entry's text: up to the first
// blank-line break or bracketed note.
func (e *entry) summary() string {
	s := e.text
	for _, cut := range []string{"\n", " [default:", " [possible values:", " [env:", " [aliases:", "Possible values:"} {
		if i := strings.Index(s, cut); i >= 0 {
			s = s[:i]
		}
	}
	return strings.TrimSpace(s)
}

var (
	defaultNote = regexp.MustCompile(`\[default: ([^\]]*)\]`)
	valuesNote  = regexp.MustCompile(`\[possible values: ([^\]]*)\]`)
	aliasesNote = regexp.MustCompile(`\[aliases: ([^\]]*)\]`)
	// A "Possible values:" list item (clap 4 long help, values with help).
	valueItem = regexp.MustCompile(`(?:^|\s)- ([^\s:]+)(?::|\s|$)`)
)

// notes reads the bracketed notes clap appends to an entry's text.
func (e *entry) notes() (def *string, values []string, aliases []string) {
	if m := defaultNote.FindStringSubmatch(e.text); m != nil {
		def = &m[1]
	}
	if m := valuesNote.FindStringSubmatch(e.text); m != nil {
		for _, v := range strings.Split(m[1], ",") {
			values = append(values, strings.TrimSpace(v))
		}
	} else if _, list, ok := strings.Cut(e.text, "Possible values:"); ok {
		if i := strings.Index(list, "["); i >= 0 {
			list = list[:i]
		}
		for _, m := range valueItem.FindAllStringSubmatch(list, -1) {
			values = append(values, m[1])
		}
	}
	if m := aliasesNote.FindStringSubmatch(e.text); m != nil {
		for _, a := range strings.Split(m[1], ",") {
			aliases = append(aliases, strings.TrimSpace(a))
		}
	}
	return def, values, aliases
}

// optionHead is an option entry's head, read: "-x, --long <VALUE>".
type optionHead struct {
	short, long string
	values      []string // value names, without brackets
	optional    bool     // [<VALUE>] or [=<VALUE>]: the value may be left out
	multiple    bool     // "..." after the head
}

var (
	shortName = regexp.MustCompile(`^-[^-\s,<\[=]$`)
	longName  = regexp.MustCompile(`^--[A-Za-z0-9][A-Za-z0-9_.-]*$`)
)

// readOptionHead reads an option head, or says why it cannot.
func readOptionHead(s string) (*optionHead, error) {
	h := &optionHead{}
	if rest, ok := strings.CutSuffix(s, "..."); ok {
		h.multiple, s = true, rest
	} else if rest, ok := strings.CutSuffix(s, "…"); ok {
		h.multiple, s = true, rest
	}
	// Names: "-x", "--long", "-x, --long", then the values.
	names, values := s, ""
	if i := strings.IndexAny(s, " =[<"); i >= 0 {
		// A comma-space inside the names ("-x, --long") is not the end.
		for i >= 0 && strings.HasPrefix(s[i:], " ") && i > 0 && s[i-1] == ',' {
			j := strings.IndexAny(s[i+1:], " =[<")
			if j < 0 {
				i = -1
				break
			}
			i += 1 + j
		}
		if i >= 0 {
			names, values = s[:i], s[i:]
		}
	}
	for _, n := range strings.Split(names, ",") {
		n = strings.TrimSpace(n)
		switch {
		case shortName.MatchString(n) && h.short == "":
			h.short = n
		case longName.MatchString(n) && h.long == "":
			h.long = n
		default:
			return nil, fmt.Errorf("option head %q: %q is not an option name", s, n)
		}
	}
	values = strings.TrimSpace(values)
	for values != "" {
		switch {
		case strings.HasPrefix(values, "[=<") || strings.HasPrefix(values, "[<"):
			end := strings.Index(values, ">]")
			if end < 0 {
				return nil, fmt.Errorf("option head %q: unclosed value name", s)
			}
			h.optional = true
			h.values = append(h.values, strings.TrimLeft(values[:end], "[=<"))
			values = strings.TrimSpace(values[end+2:])
		case strings.HasPrefix(values, "=<") || strings.HasPrefix(values, "<"):
			end := strings.Index(values, ">")
			if end < 0 {
				return nil, fmt.Errorf("option head %q: unclosed value name", s)
			}
			h.values = append(h.values, strings.TrimLeft(values[:end], "=<"))
			values = strings.TrimSpace(values[end+1:])
		default:
			return nil, fmt.Errorf("option head %q: %q is not a value name", s, values)
		}
		if rest, ok := strings.CutPrefix(values, "..."); ok {
			h.multiple, values = true, strings.TrimSpace(rest)
		}
	}
	if h.short == "" && h.long == "" {
		return nil, fmt.Errorf("option head %q names no option", s)
	}
	return h, nil
}

// names is the head's option strings, short first.
func (h *optionHead) names() []string {
	var out []string
	for _, n := range []string{h.short, h.long} {
		if n != "" {
			out = append(out, n)
		}
	}
	return out
}

// usageWord is one word of a usage line, read.
type usageWord struct {
	name     string // an argument's or option's name, or a command placeholder
	kind     string // "positional", "option", "group", "options" ([OPTIONS]), "command", "word"
	required bool
	multiple bool
	members  []string // a group's option strings
}

var (
	usagePositional = regexp.MustCompile(`^(\[|<)([^\[\]<>|\s]+)(\]|>)(\.\.\.|…)?$`)
	usageGroup      = regexp.MustCompile(`^<(-[^>]+)>$`)
)

// readUsage reads one usage line after its command words (the program
// and command path, which are plain words before anything bracketed).
// A word it cannot read is kind "word": the line is the program's own,
// not clap's.
func readUsage(line string) []usageWord {
	fields := strings.Fields(line)
	i := 0
	for i < len(fields) && !strings.ContainsAny(fields[i][:1], "[<-") {
		i++
	}
	var out []usageWord
	for ; i < len(fields); i++ {
		f := fields[i]
		switch {
		case f == "[OPTIONS]" || f == "[FLAGS]" || f == "[options]" || f == "[flags]":
			out = append(out, usageWord{kind: "options"})
		case f == "<COMMAND>" || f == "<SUBCOMMAND>":
			out = append(out, usageWord{kind: "command", required: true})
		case f == "[COMMAND]" || f == "[SUBCOMMAND]":
			out = append(out, usageWord{kind: "command"})
		case usageGroup.MatchString(f):
			members := strings.Split(strings.Trim(f, "<>"), "|")
			ok := true
			for _, m := range members {
				ok = ok && (longName.MatchString(m) || shortName.MatchString(m))
			}
			if !ok {
				out = append(out, usageWord{kind: "word", name: f})
				continue
			}
			out = append(out, usageWord{kind: "group", required: true, members: members})
		case longName.MatchString(f) || shortName.MatchString(f):
			w := usageWord{kind: "option", name: f, required: true}
			out = append(out, w)
		case usagePositional.MatchString(f):
			m := usagePositional.FindStringSubmatch(f)
			if (m[1] == "[") != (m[3] == "]") {
				out = append(out, usageWord{kind: "word", name: f})
				continue
			}
			out = append(out, usageWord{kind: "positional", name: m[2], required: m[1] == "<", multiple: m[4] != ""})
		default:
			out = append(out, usageWord{kind: "word", name: f})
		}
	}
	return out
}

// commandPlaceholder reports whether a usage line is the line clap prints
// for running a subcommand ("prog <COMMAND>").
func commandPlaceholder(words []usageWord) bool {
	return slices.ContainsFunc(words, func(w usageWord) bool { return w.kind == "command" && w.required })
}
