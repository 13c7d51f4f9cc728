// Package docfigures reads the figures a documentation page states and
// marks as checked, so that a test can hold them to what the code
// produces and a stale number fails the build instead of misleading a
// reader.
//
// A checked figure is a number preceded, on the same line, by a marker:
//
//	the one tool's entry is <!-- figure: tool_bytes -->**947 B**
//
// The marker is an HTML comment (invisible when the page is rendered)
// naming the figure; the figure is the first number after it on the line:
// digits, optionally with thousands separators and a decimal part ("947",
// "8,683", "56.2"). The number is compared at the precision it is written
// with: 56.2 states a value that rounds to 56.2.
package docfigures

import (
	"fmt"
	"math"
	"os"
	"regexp"
	"strconv"
	"strings"
)

// Figure is one marked figure of a page.
type Figure struct {
	Name  string // the marker's name
	Text  string // the number as written ("8,683")
	Value float64
	Line  int // 1-based
}

var (
	marker = regexp.MustCompile(`<!--\s*figure:\s*([a-z0-9_]+)\s*-->`)
	number = regexp.MustCompile(`[0-9][0-9,]*(\.[0-9]+)?`)
)

// Parse returns the marked figures of a page, in order. A marker with no
// number after it on its line is an error naming the line.
func Parse(page string) ([]Figure, error) {
	var out []Figure
	for i, line := range strings.Split(page, "\n") {
		for _, m := range marker.FindAllStringSubmatchIndex(line, -1) {
			name := line[m[2]:m[3]]
			rest := line[m[1]:]
			if next := marker.FindStringIndex(rest); next != nil {
				rest = rest[:next[0]] // the number belongs to this marker only
			}
			n := number.FindString(rest)
			if n == "" {
				return nil, fmt.Errorf("line %d: figure %q has no number after its marker", i+1, name)
			}
			v, err := strconv.ParseFloat(strings.ReplaceAll(n, ",", ""), 64)
			if err != nil {
				return nil, fmt.Errorf("line %d: figure %q: %v", i+1, name, err)
			}
			out = append(out, Figure{Name: name, Text: n, Value: v, Line: i + 1})
		}
	}
	return out, nil
}

// ParseFile is Parse on a file's content; a missing file has no figures.
func ParseFile(path string) ([]Figure, error) {
	b, err := os.ReadFile(path)
	if os.IsNotExist(err) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	figs, err := Parse(string(b))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return figs, nil
}

// Matches reports whether got, rounded to the precision f is written
// with, is f's number.
func (f Figure) Matches(got float64) bool {
	decimals := 0
	if i := strings.IndexByte(f.Text, '.'); i >= 0 {
		decimals = len(f.Text) - i - 1
	}
	scale := math.Pow(10, float64(decimals))
	return math.Round(got*scale) == math.Round(f.Value*scale)
}

// Format writes got at f's precision, as the page should state it.
func (f Figure) Format(got float64) string {
	decimals := 0
	if i := strings.IndexByte(f.Text, '.'); i >= 0 {
		decimals = len(f.Text) - i - 1
	}
	return strconv.FormatFloat(got, 'f', decimals, 64)
}
