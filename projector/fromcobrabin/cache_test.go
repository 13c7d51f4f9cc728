//go:build unix

package fromcobrabin_test

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
	"github.com/verbsurface/verbsurface/projector/fromcobrabin"
)

// countedFixture is the fixture program behind a copy of its own and a
// wrapper that counts its calls, so that a test can change the program
// and see whether it was run.
type countedFixture struct {
	t             *testing.T
	bin, wrap     string
	calls, cache  string
	cacheDir      string
	wantFromWalks *projector.Tree
}

func newCountedFixture(t *testing.T) *countedFixture {
	t.Helper()
	dir := t.TempDir()
	f := &countedFixture{t: t, bin: filepath.Join(dir, "fixture"), wrap: filepath.Join(dir, "wrap"),
		calls: filepath.Join(dir, "calls"), cacheDir: filepath.Join(dir, "state")}
	f.cache = filepath.Join(f.cacheDir, "cobra-tree.json")
	b, err := os.ReadFile(fixtureBin)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(f.bin, b, 0o755); err != nil {
		t.Fatal(err)
	}
	script := "#!/bin/sh\necho x >> " + f.calls + "\nexec " + f.bin + " \"$@\"\n"
	if err := os.WriteFile(f.wrap, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	return f
}

// walk runs CachedWalk and returns the tree and how many calls it made.
func (f *countedFixture) walk() (*projector.Tree, int) {
	f.t.Helper()
	before := f.count()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	tree, err := fromcobrabin.CachedWalk(ctx, []string{f.wrap}, nil, f.cache)
	if err != nil {
		f.t.Fatal(err)
	}
	return tree, f.count() - before
}

func (f *countedFixture) count() int {
	b, err := os.ReadFile(f.calls)
	if err != nil && !os.IsNotExist(err) {
		f.t.Fatal(err)
	}
	return strings.Count(string(b), "\n")
}

// Issue 35, item 5: a cobra binary is read once, and then from the cache
// while it is unchanged; the cached tree is the walked tree; the file is
// private.
func TestCachedWalk(t *testing.T) {
	f := newCountedFixture(t)
	walked, calls := f.walk()
	if calls == 0 {
		t.Fatal("the first walk ran nothing")
	}
	ctx := context.Background()
	direct, err := fromcobrabin.Walk(ctx, []string{f.wrap}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(direct, walked, cmpopts.EquateEmpty()); d != "" {
		t.Fatalf("CachedWalk's first tree differs from Walk's (-walk +cached):\n%s", d)
	}
	cached, calls := f.walk()
	if calls != 0 {
		t.Errorf("an unchanged program was run %d times", calls)
	}
	if d := cmp.Diff(walked, cached, cmpopts.EquateEmpty()); d != "" {
		t.Errorf("the cached tree differs from the walked one (-walked +cached):\n%s", d)
	}
	for path, want := range map[string]os.FileMode{f.cache: 0o600, f.cacheDir: 0o700 | os.ModeDir} {
		fi, err := os.Lstat(path)
		if err != nil || fi.Mode() != want {
			t.Errorf("%s: mode %v (%v); want %v", path, fi.Mode(), err, want)
		}
	}
	if ents, _ := os.ReadDir(f.cacheDir); len(ents) != 1 {
		t.Errorf("the cache directory holds %d files; want the cache alone (no temporary file left)", len(ents))
	}
}

// The cache is never trusted across a change, nor when it cannot be: each
// row changes one thing, and the next walk runs the program.
func TestCachedWalkRereads(t *testing.T) {
	for _, c := range []struct {
		rule   string
		change func(f *countedFixture)
	}{
		{"the program's modification time", func(f *countedFixture) {
			later := time.Now().Add(time.Hour)
			must(f.t, os.Chtimes(f.wrap, later, later))
		}},
		{"the program rewritten in place, its size and modification time restored (the change time differs)", func(f *countedFixture) {
			fi, err := os.Stat(f.wrap)
			must(f.t, err)
			b, err := os.ReadFile(f.wrap)
			must(f.t, err)
			must(f.t, os.WriteFile(f.wrap, b, 0o755))
			must(f.t, os.Chtimes(f.wrap, fi.ModTime(), fi.ModTime()))
		}},
		{"the program replaced by rename, size and modification time kept (the inode differs)", func(f *countedFixture) {
			fi, err := os.Stat(f.wrap)
			must(f.t, err)
			b, err := os.ReadFile(f.wrap)
			must(f.t, err)
			must(f.t, os.WriteFile(f.wrap+".new", b, 0o755))
			must(f.t, os.Chtimes(f.wrap+".new", fi.ModTime(), fi.ModTime()))
			must(f.t, os.Rename(f.wrap+".new", f.wrap))
		}},
		{"a corrupt cache file", func(f *countedFixture) {
			must(f.t, os.WriteFile(f.cache, []byte(`{"format": "verbsurface/fromcobrabin/v1", "key": `), 0o600))
		}},
		{"a cache of another key", func(f *countedFixture) {
			b, err := os.ReadFile(f.cache)
			must(f.t, err)
			i := strings.Index(string(b), `"key":"`) + len(`"key":"`)
			b[i] ^= 1
			must(f.t, os.WriteFile(f.cache, b, 0o600))
		}},
		{"a cache file others can read", func(f *countedFixture) { must(f.t, os.Chmod(f.cache, 0o644)) }},
		{"a cache directory others can enter", func(f *countedFixture) { must(f.t, os.Chmod(f.cacheDir, 0o755)) }},
		{"a cache file that is a link", func(f *countedFixture) {
			must(f.t, os.Rename(f.cache, f.cache+".real"))
			must(f.t, os.Symlink(f.cache+".real", f.cache))
		}},
	} {
		t.Run(c.rule, func(t *testing.T) {
			f := newCountedFixture(t)
			first, _ := f.walk()
			c.change(f)
			again, calls := f.walk()
			if calls == 0 {
				t.Fatal("the cache was trusted")
			}
			if d := cmp.Diff(first, again, cmpopts.EquateEmpty()); d != "" {
				t.Errorf("the tree read again differs (-first +again):\n%s", d)
			}
		})
	}
}

// A walk that fails writes no cache, and a cache is not written into a
// directory others can enter (the tree is still returned).
func TestCachedWalkWritesOnlyWhatIsPrivate(t *testing.T) {
	f := newCountedFixture(t)
	must(t, os.WriteFile(f.wrap, []byte("#!/bin/sh\nexit 3\n"), 0o755))
	if _, err := fromcobrabin.CachedWalk(context.Background(), []string{f.wrap}, nil, f.cache); err == nil {
		t.Fatal("a program that answers nothing was read")
	}
	if _, err := os.Stat(f.cache); !os.IsNotExist(err) {
		t.Errorf("a failed walk left a cache: %v", err)
	}
	g := newCountedFixture(t)
	must(t, os.MkdirAll(g.cacheDir, 0o755))
	must(t, os.Chmod(g.cacheDir, 0o755))
	if _, calls := g.walk(); calls == 0 {
		t.Fatal("nothing ran")
	}
	if _, err := os.Stat(g.cache); !os.IsNotExist(err) {
		t.Errorf("a cache was written into a directory others can enter: %v", err)
	}
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// A front that names other commands (Options.Paths) reads the program
// again: a tree walked for some verbs lacks the commands of others.
func TestCachedWalkKeysOnPaths(t *testing.T) {
	f := newCountedFixture(t)
	walk := func(paths ...[]string) int {
		before := f.count()
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		if _, err := fromcobrabin.CachedWalk(ctx, []string{f.wrap}, &fromcobrabin.Options{Paths: paths}, f.cache); err != nil {
			t.Fatal(err)
		}
		return f.count() - before
	}
	walk([]string{"job", "list"})
	if calls := walk([]string{"job", "list"}); calls != 0 {
		t.Fatalf("the same paths read the program again (%d calls)", calls)
	}
	if calls := walk([]string{"job", "list"}, []string{"job", "status"}); calls == 0 {
		t.Fatal("a cache walked for other paths was trusted")
	}
}
