package projector

import (
	"regexp"
	"slices"
	"strings"
)

// listsValues matches a help text that lists the values a parameter
// takes, as cobra programs and click's choices print them.
var listsValues = regexp.MustCompile(`(?i)\b(?:allowed|possible|valid|supported) values\b|\bone of\s*[:{\[(]`)

// pathNouns are the words that, ending a parameter's name, option or
// metavar, say its value names a file or directory.
var pathNouns = []string{
	"file", "files", "filename", "filenames", "filepath", "path", "paths", "pathname",
	"dir", "dirs", "directory", "directories", "folder", "output", "out", "outfile",
	"infile", "config", "conf", "cfg", "dest", "destination", "src",
}

// LooksLikePath reports whether p is a string parameter whose value
// probably names a file or directory although nothing marks it so (its
// Path is unset): its metavar, when the CLI's author chose one, else its
// schema name or one of its long options, ends in a word such as file,
// path, dir, output, config or FILE ("config_file", "--write-output",
// "FILE_OR_DIR"). A parameter with choices never does, nor one whose
// metavar names something else (helm's "--output format"). It is a hint for a
// person (a front warns about such parameters, and refuses one as the
// carrier of machine mode), never a confinement rule: only a marked
// parameter is confined. "--output-format" does not look like a path;
// "--output" does, unless its help lists the values it takes ("Allowed
// values: table, json, yaml", "one of: json, text"): a list of words is
// not a file. A numbered copy looks like what it copies: a usage line
// that names one word twice gives "file" and "file_2", and "file_2" and
// "file1" end in the word "file" as much as "file" does.
func LooksLikePath(p *Param) bool {
	if p.Path != PathUseNone || p.Kind != KindString || p.Arity == ArityNone || len(p.Choices) > 0 || listsValues.MatchString(p.Help) {
		return false
	}
	words := []string{p.Metavar}
	if p.Metavar == "" {
		words = []string{p.Name}
		for _, o := range p.Options {
			if strings.HasPrefix(o, "--") {
				words = append(words, o)
			}
		}
	}
	for _, w := range words {
		toks := strings.FieldsFunc(strings.ToLower(w), func(r rune) bool { return r == '_' || r == '-' || r == '.' || r == ' ' })
		if len(toks) > 1 && strings.Trim(toks[len(toks)-1], "0123456789") == "" {
			toks = toks[:len(toks)-1] // "file_2": the copy's number
		}
		if len(toks) > 0 && slices.Contains(pathNouns, strings.TrimRight(toks[len(toks)-1], "0123456789")) {
			return true
		}
	}
	return false
}
