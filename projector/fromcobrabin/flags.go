package fromcobrabin

import (
	"encoding/csv"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/spf13/pflag"

	"github.com/verbsurface/verbsurface/projector"
	"github.com/verbsurface/verbsurface/projector/fromcobra"
)

// pflagTypes maps the word pflag prints after a flag (UnquoteUsage) to the
// flag's Value.Type(), where the two differ; every other word is the type
// itself. No word at all is a bool (or a boolfunc).
var pflagTypes = map[string]string{
	"":        "bool",
	"float":   "float64",
	"strings": "stringSlice",
	"ints":    "intSlice",
	"uints":   "uintSlice",
	"bools":   "boolSlice",
	"value":   "func",
}

// typedWords are the pflag types fromcobra maps to a schema of their own;
// a flag of any other type is a string the program's own Set validates.
var typedWords = map[string]bool{
	"string": true, "bool": true, "int": true, "int64": true, "int8": true, "int16": true, "int32": true,
	"uint": true, "uint64": true, "uint8": true, "uint16": true, "uint32": true, "float64": true, "float32": true,
	"count": true, "duration": true, "stringSlice": true, "stringArray": true, "intSlice": true, "stringToString": true,
}

// zeroDefaults is the DefValue of each typed pflag type's zero value: the
// default pflag does not print (defaultIsZeroValue).
var zeroDefaults = map[string]string{
	"string": "", "bool": "false", "duration": "0s",
	"stringSlice": "[]", "stringArray": "[]", "intSlice": "[]", "stringToString": "[]",
}

func zeroDefault(typ string) string {
	if d, ok := zeroDefaults[typ]; ok {
		return d
	}
	return "0" // the integer and float types, count
}

// typeOnly is a pflag.Value that only names its type: what the help says
// of a flag's value, handed to fromcobra.FlagParam so the two adapters map
// every type alike.
type typeOnly string

func (t typeOnly) String() string     { return "" }
func (t typeOnly) Set(s string) error { return errors.New("not settable") }
func (t typeOnly) Type() string       { return string(t) }

// pflagDefault separates pflag's default suffix from a flag's usage. pflag
// appends " (default X)" to the usage of a flag whose default is not its
// type's zero value: X quoted in Go syntax for a string flag (quoted set),
// as is for any other. Only a suffix that ends the usage can be pflag's.
// A Go-quoted X escapes every quote inside it, so at most one " (default "
// is followed by exactly one quoted literal and ")"; an unquoted X is
// taken from the last " (default ".
func pflagDefault(usage string, quoted bool) (text, def string, ok bool) {
	const marker = " (default "
	if !strings.HasSuffix(usage, ")") {
		return usage, "", false
	}
	if !quoted {
		i := strings.LastIndex(usage, marker)
		if i < 0 {
			return usage, "", false
		}
		return usage[:i], usage[i+len(marker) : len(usage)-1], true
	}
	for from := 0; ; {
		i := strings.Index(usage[from:], marker)
		if i < 0 {
			return usage, "", false
		}
		i += from
		raw := usage[i+len(marker) : len(usage)-1]
		if q, err := strconv.QuotedPrefix(raw); err == nil && q == raw {
			if s, err := strconv.Unquote(q); err == nil {
				return usage[:i], s, true
			}
		}
		from = i + 1
	}
}

// typedParam maps a flag whose word is its pflag type (or absent: a bool)
// through fromcobra.FlagParam. The default is the printed one when it is
// pflag's — quoted for a string, and for any other typed flag one that
// reads as its type (pflag prints DefValue, which a built-in type always
// reads back; a suffix that does not read is the program's own prose) —
// and otherwise the type's zero value, which pflag does not print.
func typedParam(f *flagLine, typ string) *projector.Param {
	text, def, hasDef := pflagDefault(f.usage, typ == "string")
	noOpt := ""
	if f.hasNoOpt && typ != "bool" && typ != "count" {
		noOpt = f.noOptDef
		if typ == "string" {
			noOpt = unquoteNoOpt(noOpt)
		}
	}
	if !typedWords[typ] {
		// A custom pflag.Value: string-in, its default unknown (fromcobra
		// offers none either).
		return fromcobra.FlagParam(fakeFlag(f, typ, text, "", noOpt))
	}
	if hasDef {
		p := fromcobra.FlagParam(fakeFlag(f, typ, text, def, noOpt))
		if p.Unrepresentable == nil {
			return p
		}
		text = f.usage // the suffix does not read as the type: it is prose
	}
	return fromcobra.FlagParam(fakeFlag(f, typ, text, zeroDefault(typ), noOpt))
}

// stringParam maps a value flag whose help names its value by a
// placeholder rather than its type: a string, the only thing every pflag
// value takes (Set(string)), which the program itself validates. A
// quoted default says the type is string (pflag quotes no other), so the
// default is kept; any other printed default is of an unknown type and
// dropped.
func stringParam(f *flagLine) *projector.Param {
	text, def, hasDef := pflagDefault(f.usage, true)
	noOpt := ""
	if f.hasNoOpt {
		noOpt = unquoteNoOpt(f.noOptDef)
	}
	var p *projector.Param
	if hasDef {
		p = fromcobra.FlagParam(fakeFlag(f, "string", text, def, noOpt))
	} else {
		p = fromcobra.FlagParam(fakeFlag(f, "string", f.usage, "", noOpt))
		p.Default = nil
	}
	p.Type, p.Action = "", placeholderAction(f.word)
	return p
}

// repeatedString is the resolution of a placeholder flag that is given
// once per value and reads any text: a pflag stringSlice, stringArray or
// a custom slice, which one help does not tell.
const repeatedString = "repeated string"

// RepeatedItemPattern constrains each item of a repeated flag whose help
// names its value by a placeholder: not empty, and no comma, quote,
// carriage return, newline or NUL. A stringSlice reads each occurrence as
// a CSV record and a stringArray as is; an item without those characters
// reads back as itself either way, so it renders as --flag=item, unquoted,
// once per item, without knowing which the flag is.
const RepeatedItemPattern = `^[^\x00\r\n",]+$`

// repeatedParam maps such a flag: an array of strings. A printed default
// ("[a,b]", CSV in brackets, as pflag prints every slice) is kept, and
// then the array has at least one item: the first occurrence replaces the
// default, and no spelling of a stringArray gives the empty list.
func repeatedParam(f *flagLine) *projector.Param {
	text, def, hasDef := pflagDefault(f.usage, false)
	if !hasDef {
		text = f.usage
	}
	p := &projector.Param{Name: flagName(f.name), Options: options(f), Kind: projector.KindString, Arity: projector.ArityRepeated,
		Help: text, Action: placeholderAction(f.word), Pattern: RepeatedItemPattern, Default: []string{}}
	if hasDef && strings.HasPrefix(def, "[") && strings.HasSuffix(def, "]") {
		items, err := csv.NewReader(strings.NewReader(def[1 : len(def)-1])).Read()
		switch {
		case def == "[]":
		case err != nil:
			p.Default = nil // not pflag's spelling: the usage's own words
			p.Help = f.usage
		default:
			p.Default, p.MinItems = items, 1
		}
	}
	return p
}

// typeWords is the resolution of a flag printed with no word that is not
// a bool: a value of the program's own that takes words (on, off, auto).
const typeWords = "words"

// untypedAction names a flag printed with no type word that is not a
// bool, in the inventory and in messages.
const untypedAction = "pflag:(no type word)"

// wordsParam maps such a flag: string-in, the program's own Set its
// validator, with no default, as fromcobra offers a pflag.Value of a type
// it does not know; its help keeps the printed default as prose ("(default
// auto)").
func wordsParam(f *flagLine) *projector.Param {
	p := fromcobra.FlagParam(fakeFlag(f, "string", f.usage, "", ""))
	p.Type, p.Action, p.Default = "", untypedAction, nil
	return p
}

// placeholderAction names a flag read through its placeholder, in the
// inventory and in messages.
func placeholderAction(word string) string { return "pflag:`" + word + "`" }

// unquoteNoOpt reads pflag's `[="x"]` (a string's no-value default, quoted
// with plain quotes, not Go syntax).
func unquoteNoOpt(s string) string {
	if len(s) >= 2 && s[0] == '"' && s[len(s)-1] == '"' {
		return s[1 : len(s)-1]
	}
	return s
}

func fakeFlag(f *flagLine, typ, usage, def, noOpt string) *pflag.Flag {
	return &pflag.Flag{Name: f.name, Shorthand: f.shorthand, Usage: usage, DefValue: def, NoOptDefVal: noOpt, Value: typeOnly(typ)}
}

// unknownParam is a flag the help does not settle.
func unknownParam(f *flagLine, action, format string, a ...any) *projector.Param {
	p := &projector.Param{Name: flagName(f.name), Options: options(f), Kind: projector.KindString, Arity: projector.ArityOne, Action: action}
	p.Unrepresentable = &projector.Unrepresentable{Action: action, Reason: fmt.Sprintf(format, a...)}
	return p
}

func flagName(name string) string {
	return fromcobra.FlagParam(&pflag.Flag{Name: name, Value: typeOnly("string")}).Name
}

func options(f *flagLine) []string {
	out := []string{"--" + f.name}
	if f.shorthand != "" {
		out = append(out, "-"+f.shorthand)
	}
	return out
}

// wordKind is what the help and the flag's raw usage settle about the
// word after a flag's name.
type wordKind int

const (
	wordType        wordKind = iota // the flag's pflag type (or no word: a bool)
	wordPlaceholder                 // the program's own name for the value, back-quoted in its usage
	wordUnknown                     // cannot be told: see the reason
)

// classifyWord tells whether f's word is its type or a placeholder.
// pflag prints, after a flag's name, the first back-quoted word of its
// usage if there is one (and then the usage with those quotes removed),
// and otherwise its type. The help shows only the unquoted usage; the
// completion protocol shows the raw first line of it (raw, known: known
// false when cobra did not offer the flag's name). So: a word that does
// not occur in the printed usage is the type; otherwise the raw line must
// say whether it was back-quoted.
func classifyWord(f *flagLine, raw string, known bool) (wordKind, string) {
	if f.word == "" || !strings.Contains(f.usage, f.word) {
		return wordType, ""
	}
	if !known {
		return wordUnknown, fmt.Sprintf("its help names the value %q, a word its usage also holds, and the completion protocol did not offer the flag's raw usage to tell whether that word is its type or a back-quoted placeholder", f.word)
	}
	_, _, multiLine := strings.Cut(f.usage, "\n")
	i := strings.IndexByte(raw, '`')
	if i < 0 {
		if !multiLine {
			return wordType, "" // no back quote anywhere: the word is the type
		}
		_, rest, _ := strings.Cut(f.usage, "\n")
		if !strings.Contains(rest, f.word) {
			return wordType, ""
		}
		return wordUnknown, fmt.Sprintf("its help names the value %q, a word its usage also holds past the first line, which is all the completion protocol shows of the raw usage", f.word)
	}
	j := strings.IndexByte(raw[i+1:], '`')
	if j < 0 {
		if !multiLine {
			return wordType, "" // one back quote only: pflag prints the type
		}
		return wordUnknown, "its raw usage opens a back quote on its first line, and whether it closes later cannot be seen"
	}
	if name := raw[i+1 : i+1+j]; name != f.word {
		return wordUnknown, fmt.Sprintf("its help names the value %q but its raw usage back-quotes %q", f.word, name)
	}
	return wordPlaceholder, ""
}
