//go:build unix

package main

import (
	"encoding/json"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestInventoryMoreSources: `limcp inventory --optparse` walks an optparse
// command table (its factory named by --optparse-command), `--clap` reads
// an installed clap program; a program that cannot be read is an
// inventory_failed error with its kind, and two sources are refused.
func TestInventoryMoreSources(t *testing.T) {
	e := newEnv(t)
	fixtures, _ := filepath.Abs(filepath.Join("..", "..", "projector", "fromoptparse", "testdata", "py"))
	var inv inventory
	e.ok(&inv, "inventory", "--optparse", "optfix:TABLE", "--optparse-command", "optfix:make", "--pythonpath", fixtures)
	if inv.Source != "optparse:optfix:TABLE" || inv.Commands != 3 {
		t.Fatalf("optparse inventory:\n%s", mustJSON(t, inv))
	}
	r := e.fail("inventory_failed", "inventory", "--clap", filepath.Join(t.TempDir(), "nothing"))
	var d struct{ Kind string }
	if err := json.Unmarshal(r.Error.Details, &d); err != nil || d.Kind != "launch" {
		t.Errorf("a missing clap program: %s", r.Error.Details)
	}
	r = e.fail("inventory_failed", "inventory", "--optparse", "optfix:not_a_parser", "--pythonpath", fixtures)
	if err := json.Unmarshal(r.Error.Details, &d); err != nil || d.Kind != "not_parser" {
		t.Errorf("not a parser: %s", r.Error.Details)
	}
	e.fail("invalid_argument", "inventory", "--clap", "fdfind", "--optparse", "optfix:rich")
	e.fail("invalid_argument", "inventory", "--optparse-command", "optfix:make")
	if _, err := exec.LookPath("fdfind"); err != nil {
		t.Skip("fdfind is not installed (apt-get install fd-find)")
	}
	e.ok(&inv, "inventory", "--clap", "fdfind")
	if inv.Source != "clap:fdfind" || inv.Commands != 1 || !strings.Contains(mustJSON(t, inv), "exec") {
		t.Errorf("clap inventory:\n%s", mustJSON(t, inv))
	}
}
