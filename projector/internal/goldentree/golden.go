// Package goldentree renders a parser tree's projection — per command: its
// schema and schema fingerprint, or why it is unavailable — as stable JSON,
// and compares it with a golden file, so that a change in an upstream parser
// library fails a test instead of silently changing a schema.
package goldentree

import (
	"errors"
	"strings"
	"testing"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/verbsurface/verbsurface/internal/golden"
	"github.com/verbsurface/verbsurface/projector"
	"github.com/verbsurface/verbsurface/projector/internal/c1check"
)

// Entry is one command's golden record. The verb used for the fingerprint is
// the command path joined by dots ("schedule.list"; the root is "root").
type Entry struct {
	Path        []string           `json:"path"`
	Verb        string             `json:"verb"`
	Fingerprint string             `json:"fingerprint,omitempty"`
	Schema      *jsonschema.Schema `json:"schema,omitempty"`
	Unavailable string             `json:"unavailable,omitempty"`
}

// Verb names a command path as the goldens do.
func Verb(path []string) string {
	if len(path) == 0 {
		return "root"
	}
	return strings.Join(path, ".")
}

// Entries projects every command of t. Every available schema is checked
// against the C1 keyword subset.
func Entries(t testing.TB, tree *projector.Tree) []Entry {
	t.Helper()
	var out []Entry
	for _, c := range tree.Commands {
		e := Entry{Path: c.Path, Verb: Verb(c.Path)}
		s, err := projector.Project(c)
		var ue *projector.UnavailableError
		switch {
		case errors.As(err, &ue):
			e.Unavailable = ue.Error()
		case err != nil:
			t.Fatalf("%v: %v", c.Path, err)
		default:
			if err := c1check.Check(s); err != nil {
				t.Fatalf("%v: schema outside C1: %v", c.Path, err)
			}
			fp, err := projector.Fingerprint(e.Verb, s)
			if err != nil {
				t.Fatal(err)
			}
			e.Schema, e.Fingerprint = s, fp
		}
		out = append(out, e)
	}
	return out
}

// Check compares the entries of tree with testdata/NAME.golden.json, or
// rewrites the file under -update (the module's one golden helper,
// internal/golden).
func Check(t *testing.T, tree *projector.Tree, name string) {
	t.Helper()
	golden.JSON(t, name, Entries(t, tree))
}
