//go:build unix

package main

import (
	"os"
	"path/filepath"
	"testing"
	"time"
)

// Issue 35, item 5, for a clap binary, against the built binary: a server
// started again on an unchanged clap program reads its tree from the
// state directory and runs the program not once; a changed one is read
// again. The program is a script that prints clap 4's help and counts its
// calls.
func TestClapTreeCachedAcrossStarts(t *testing.T) {
	dir := t.TempDir()
	calls, prog := filepath.Join(dir, "calls"), filepath.Join(dir, "grab")
	script := `#!/bin/sh
echo x >> ` + calls + `
cat <<'END'
Grab things

Usage: grab [OPTIONS] <URL>

Arguments:
  <URL>  what to fetch

Options:
  -q, --quiet  Say nothing
  -h, --help   Print help
END
`
	if err := os.WriteFile(prog, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	config := filepath.Join(dir, "grab.yaml")
	yaml := "name: grab\ncommand: [./grab]\nsource: {clap: [./grab]}\noutput: text\nverbs:\n  - {name: grab, path: [], class: observe}\n"
	if err := os.WriteFile(config, []byte(yaml), 0o644); err != nil {
		t.Fatal(err)
	}
	state := t.TempDir()
	start := func() int {
		before := countLines(t, calls)
		c := serve(t, config, "XDG_STATE_HOME="+state)
		c.help("grab")
		if err := c.cs.Close(); err != nil {
			t.Logf("closing: %v", err)
		}
		return countLines(t, calls) - before
	}
	if n := start(); n == 0 {
		t.Fatal("the first start ran nothing: the test proves nothing")
	}
	file := filepath.Join(state, "verbsurface", "grab", clapCacheFile)
	if fi, err := os.Stat(file); err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("the cache %s: %v, %v; want a 0600 file", file, fi, err)
	}
	if n := start(); n != 0 {
		t.Errorf("a second start on the unchanged program ran it %d times", n)
	}
	later := time.Now().Add(time.Hour)
	if err := os.Chtimes(prog, later, later); err != nil {
		t.Fatal(err)
	}
	if n := start(); n == 0 {
		t.Error("a start after the program changed trusted the cache")
	}
}
