//go:build unix

package fromclap_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/verbsurface/verbsurface/projector"
	"github.com/verbsurface/verbsurface/projector/fromclap"
)

// grabHelp is clap 4's help for a program of two commands.
const grabHelp = `#!/bin/sh
echo x >> "$CALLS"
case "$1" in
fetch) cat <<'END'
Fetch one thing

Usage: grab fetch [OPTIONS] <URL>

Arguments:
  <URL>  what to fetch

Options:
  -q, --quiet  Say nothing
  -h, --help   Print help
END
;;
*) cat <<'END'
Grab things

Usage: grab [OPTIONS] <COMMAND>

Commands:
  fetch  Fetch one thing
  help   Print this message or the help of the given subcommand(s)

Options:
  -f, --format <FMT>  Output format [default: json] [possible values: json, text]
  -h, --help          Print help
END
;;
esac
`

// countedGrab is a clap program (a script printing clap's help) that
// counts its calls, and where its tree is cached.
type countedGrab struct {
	t                  *testing.T
	prog, calls, cache string
}

func newCountedGrab(t *testing.T) *countedGrab {
	dir := t.TempDir()
	g := &countedGrab{t: t, prog: filepath.Join(dir, "grab"), calls: filepath.Join(dir, "calls"), cache: filepath.Join(dir, "state", "clap-tree.json")}
	if err := os.WriteFile(g.prog, []byte(grabHelp), 0o755); err != nil {
		t.Fatal(err)
	}
	return g
}

// walk runs CachedWalk and returns the tree and how many calls it made.
func (g *countedGrab) walk(opts *fromclap.Options) (*projector.Tree, int) {
	g.t.Helper()
	if opts == nil {
		opts = &fromclap.Options{}
	}
	opts.Env = append(os.Environ(), "CALLS="+g.calls)
	before := g.count()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	tree, err := fromclap.CachedWalk(ctx, []string{g.prog}, opts, g.cache)
	if err != nil {
		g.t.Fatal(err)
	}
	return tree, g.count() - before
}

func (g *countedGrab) count() int {
	b, err := os.ReadFile(g.calls)
	if err != nil && !os.IsNotExist(err) {
		g.t.Fatal(err)
	}
	return strings.Count(string(b), "\n")
}

// Issue 35, item 5, for clap: the program is read once, then from the
// private cache while it and what the reader is asked are unchanged, and
// read again when either changes.
func TestCachedWalk(t *testing.T) {
	g := newCountedGrab(t)
	first, calls := g.walk(nil)
	if calls == 0 {
		t.Fatal("the first walk ran nothing")
	}
	if first.Find("fetch") == nil {
		t.Fatalf("the tree lacks fetch: %+v", first.Commands)
	}
	fi, err := os.Stat(g.cache)
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode().Perm() != 0o600 {
		t.Errorf("cache file mode %v; want 0600", fi.Mode().Perm())
	}
	again, calls := g.walk(nil)
	if calls != 0 {
		t.Errorf("the second walk ran the program %d times; want the cache", calls)
	}
	if d := cmp.Diff(first, again, cmpopts.EquateEmpty()); d != "" {
		t.Errorf("the cached tree differs (-walked +cached):\n%s", d)
	}
	if _, calls := g.walk(&fromclap.Options{ExcludeFlags: []string{"--quiet"}}); calls == 0 {
		t.Error("a walk with other exclusions read the cache")
	}
	later := time.Now().Add(time.Hour)
	if err := os.Chtimes(g.prog, later, later); err != nil {
		t.Fatal(err)
	}
	if _, calls := g.walk(nil); calls == 0 {
		t.Error("a walk of a changed program read the cache")
	}
}
