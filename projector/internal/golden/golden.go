// Package golden renders a parser tree's projection — per command: its
// schema and schema fingerprint, or why it is unavailable — as stable JSON,
// and compares it with a golden file, so that a change in an upstream parser
// library fails a test instead of silently changing a schema.
package golden

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/jsonschema-go/jsonschema"

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

// Check compares the entries of tree with testdata/<name>.golden.json,
// rewriting the file instead when update is set.
func Check(t *testing.T, tree *projector.Tree, name string, update bool) {
	t.Helper()
	CheckJSON(t, filepath.Join("testdata", name+".golden.json"), Entries(t, tree), update)
}

// CheckJSON compares v, as indented JSON, with the golden file at path,
// rewriting the file (and creating its directory) instead when update is
// set.
func CheckJSON(t *testing.T, path string, v any, update bool) {
	t.Helper()
	got, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	got = append(got, '\n')
	if update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run the test with -update to create it)", err)
	}
	if !bytes.Equal(want, got) {
		t.Errorf("%s differs (-want +got); if the change is intended, rerun with -update:\n%s", path, cmp.Diff(string(want), string(got)))
	}
}
