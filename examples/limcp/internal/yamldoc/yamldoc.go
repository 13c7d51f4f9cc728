// Package yamldoc decodes the state home's YAML files (playbooks, flow
// specs, providers.yaml, config.yaml) by one rule: exactly one document,
// and no field the Go type does not declare. A misspelt field (depends_on)
// or a second document after "---" would otherwise be ignored in silence,
// and a file that says more than the program reads is a file that lies.
package yamldoc

import (
	"bytes"
	"errors"
	"io"
	"regexp"
	"strconv"
	"strings"
	"unicode/utf8"

	"go.yaml.in/yaml/v3"
)

// Errors of Decode other than YAML's own.
var (
	// ErrEmpty: the content holds no YAML document. For an optional
	// settings file this means "nothing set"; for a spec it is an error.
	ErrEmpty = errors.New("the file holds no YAML document")
	// ErrMultipleDocuments: a second document follows the first.
	ErrMultipleDocuments = errors.New("the file holds more than one YAML document")
)

// Decode decodes the one YAML document in b into v, refusing unknown
// fields. It returns ErrEmpty when b holds no document and
// ErrMultipleDocuments when it holds more than one; any other error is the
// YAML decoder's, which names the line, with every piece of the file it
// quotes clipped to an [Excerpt]: the decoder would quote a whole unknown
// key, and a file that is not YAML at all (a secret someone named as a
// spec) would otherwise come back line by line in the errors.
func Decode(b []byte, v any) error {
	dec := yaml.NewDecoder(bytes.NewReader(b))
	dec.KnownFields(true)
	if err := dec.Decode(v); err != nil {
		if errors.Is(err, io.EOF) {
			return ErrEmpty
		}
		return clipQuotes(err)
	}
	if err := dec.Decode(new(yaml.Node)); !errors.Is(err, io.EOF) {
		return ErrMultipleDocuments
	}
	return nil
}

// MaxExcerpt is the most of a file's own text an error quotes.
const MaxExcerpt = 40

// Excerpt quotes s clipped to MaxExcerpt bytes (on a rune boundary, with
// "…" when clipped): how an error shows a piece of a file.
func Excerpt(s string) string {
	if len(s) > MaxExcerpt {
		cut := MaxExcerpt
		for cut > 0 && !utf8.RuneStart(s[cut]) {
			cut--
		}
		s = s[:cut] + "…"
	}
	return strconv.Quote(s)
}

// quotingErrors are the YAML decoder's messages that quote the file in
// full: an unknown field's name and a repeated key.
var quotingErrors = []*regexp.Regexp{
	regexp.MustCompile(`^(line \d+: field )(.*)( not found in type \S+)$`),
	regexp.MustCompile(`^(line \d+: mapping key )(.*)( already defined at line \d+)$`),
	regexp.MustCompile(`^(yaml: line \d+: mapping key )(.*)( already defined at line \d+)$`),
}

// maxMessage bounds any one decoder message whose shape is not known to be
// free of the file's text.
const maxMessage = 160

func clipQuotes(err error) error {
	clip := func(msg string) string {
		for _, re := range quotingErrors {
			if m := re.FindStringSubmatch(msg); m != nil {
				return m[1] + Excerpt(strings.Trim(m[2], "\"")) + m[3]
			}
		}
		if len(msg) > maxMessage {
			return msg[:maxMessage] + "…"
		}
		return msg
	}
	var te *yaml.TypeError
	if errors.As(err, &te) {
		out := &yaml.TypeError{Errors: make([]string, len(te.Errors))}
		for i, m := range te.Errors {
			out.Errors[i] = clip(m)
		}
		return out
	}
	return errors.New(clip(err.Error()))
}
