//go:build unix

package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// verbsurface inventory --optparse walks an optparse command table named
// with its factory; --clap reads a clap program's help; each refuses a
// second source.
func TestInventoryMoreSources(t *testing.T) {
	fixtures, _ := filepath.Abs(filepath.Join("..", "..", "projector", "fromoptparse", "testdata", "py"))
	out, errOut, status := runVS(t, "inventory", "--optparse", "optfix:TABLE", "--optparse-command", "optfix:make", "--pythonpath", fixtures)
	if status != 0 {
		t.Fatalf("status %d: %s", status, errOut)
	}
	for _, want := range []string{`"dialect": "optparse"`, `"commands": 3`, `"clean": 2`} {
		if !strings.Contains(out, want) {
			t.Errorf("optparse inventory lacks %s:\n%s", want, out)
		}
	}
	for _, args := range [][]string{
		{"inventory", "--optparse", "optfix:rich", "--clap", "fdfind"},
		{"inventory", "--clap", "fdfind", "--argparse", "m:f"},
		{"inventory", "--optparse-command", "m:f"},
	} {
		if _, errOut, status := runVS(t, args...); status == 0 || !strings.Contains(errOut, "give one") && !strings.Contains(errOut, "apply to --optparse only") {
			t.Errorf("%q: status %d, %s", args, status, errOut)
		}
	}
	if _, err := exec.LookPath("fdfind"); err != nil {
		t.Skip("fdfind is not installed (apt-get install fd-find)")
	}
	out, errOut, status = runVS(t, "inventory", "--clap", "fdfind")
	if status != 0 || !strings.Contains(out, `"dialect": "clap"`) || !strings.Contains(out, `"program": "fdfind"`) {
		t.Errorf("clap inventory: status %d, %s\n%s", status, errOut, out)
	}
}

// The optparse: and clap: keys are checked like the others: exactly one
// source, a target that is MODULE:OBJECT, a clap program named.
func TestMoreSourcesConfig(t *testing.T) {
	for _, c := range []struct{ name, source, want string }{
		{"optparse without a module", "source: {optparse: {target: pip}}", `source.optparse.target: "pip" is not MODULE:OBJECT`},
		{"a factory without a module", "source: {optparse: {target: 'm:t', command: make}}", `source.optparse.command: "make" is not MODULE:FUNCTION`},
		{"clap without a program", "source: {clap: []}", "source.clap: required"},
		{"two sources", "source: {clap: [fdfind], cobra: [restic]}", "give exactly one of argparse, click, tree_command, tree_file, cobra, optparse, clap"},
		{"an unknown key", "source: {optparse: {target: 'm:t', commands: x}}", "commands"},
	} {
		t.Run(c.name, func(t *testing.T) {
			file := filepath.Join(t.TempDir(), "f.yaml")
			if err := os.WriteFile(file, []byte("name: f\ncommand: [f]\n"+c.source+"\nverbs: [{name: v, path: [], class: observe}]\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			_, err := LoadConfig(file)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("got %v, want %q", err, c.want)
			}
		})
	}
}
