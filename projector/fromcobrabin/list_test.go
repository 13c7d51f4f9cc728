package fromcobrabin

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/verbsurface/verbsurface/projector"
)

// readAll reads every Unread command of t through l, as a server's
// background fill does, and returns the tree read to the end.
func readAll(t testing.TB, tree *projector.Tree, l *Lister) *projector.Tree {
	t.Helper()
	for {
		unread := tree.Unread()
		if len(unread) == 0 {
			return tree
		}
		cmds, err := l.Read(context.Background(), unread[0])
		if err != nil {
			t.Fatalf("Read %q: %v", unread[0], err)
		}
		tree = projector.Spliced(tree, unread[0], cmds)
	}
}

// Listing the commands of some paths, then reading each, gives the tree
// Walk gives for the same paths, byte for byte: on the fixture (cobra's
// layout, flags made hard to read) and on the fixture whose help flag
// and layout are its own; a path below another path, a path two levels
// down, and the root's path included.
func TestListThenReadIsWalk(t *testing.T) {
	bin := buildProgram(t, "./internal/fixture/cmd/fixture")
	for _, tc := range []struct {
		name  string
		env   []string
		paths [][]string
	}{
		{"some", nil, [][]string{{"types"}, {"tristate"}, {"placeholders"}}},
		{"every top-level", nil, nil},
		{"own help", []string{"FIXTURE_OWN=1"}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			env := append(os.Environ(), tc.env...)
			paths := tc.paths
			if paths == nil {
				whole, err := Walk(context.Background(), []string{bin}, &Options{Env: env})
				if err != nil {
					t.Fatal(err)
				}
				for _, c := range whole.Commands {
					if len(c.Path) > 0 {
						paths = append(paths, c.Path)
					}
				}
			}
			opts := &Options{Env: env, Paths: paths}
			want, err := Walk(context.Background(), []string{bin}, opts)
			if err != nil {
				t.Fatal(err)
			}
			listed, l, err := List(context.Background(), []string{bin}, opts)
			if err != nil {
				t.Fatal(err)
			}
			if len(listed.Unread()) == 0 {
				t.Fatal("List read every command: none is Unread")
			}
			for _, c := range listed.Commands {
				if c.Unread && len(c.Params) != 0 {
					t.Errorf("Unread command %q has parameters", c.Path)
				}
			}
			if diff := cmp.Diff(want, readAll(t, listed, l)); diff != "" {
				t.Errorf("listed then read differs from walked (-walk +list):\n%s", diff)
			}
		})
	}
}

// Listing costs calls for the root and the groups, not for the commands
// listed: on bench/synthcli (205 command paths under four groups), every
// leaf listed takes a handful of calls, where Walk takes some four a
// command.
func TestListIsCheap(t *testing.T) {
	t.Setenv("SYNTH_COMMANDS", "40")
	bin := buildProgram(t, "../../bench/synthcli")
	whole, err := Walk(context.Background(), []string{bin}, nil)
	if err != nil {
		t.Fatal(err)
	}
	var paths [][]string
	for _, c := range whole.Commands {
		if len(c.Path) == 2 {
			paths = append(paths, c.Path)
		}
	}
	tr := &walkTrace{}
	if _, err := walk(context.Background(), []string{bin}, &Options{Paths: paths}, tr); err != nil {
		t.Fatal(err)
	}
	listed, l, err := List(context.Background(), []string{bin}, &Options{Paths: paths})
	if err != nil {
		t.Fatal(err)
	}
	if got := len(listed.Unread()); got != len(paths) {
		t.Errorf("%d commands Unread; want the %d listed", got, len(paths))
	}
	listCalls := l.prog.calls.Load()
	t.Logf("%d paths: walk %d calls, list %d", len(paths), tr.calls, listCalls)
	if groups := len(whole.Commands) - len(paths); listCalls > int64(5*groups) {
		t.Errorf("List made %d calls for %d commands above the paths; want at most five each", listCalls, groups)
	}
	if listCalls*4 > tr.calls {
		t.Errorf("List made %d calls, Walk %d: want a quarter or less", listCalls, tr.calls)
	}
}

// Read refuses a path List did not list, and a program that fails while
// a command is read leaves it Unread with an error, not a command of no
// parameters.
func TestReadRefuses(t *testing.T) {
	bin := buildProgram(t, "./internal/fixture/cmd/fixture")
	listed, l, err := List(context.Background(), []string{bin}, &Options{Paths: [][]string{{"types"}}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := l.Read(context.Background(), []string{"no-such"}); err == nil {
		t.Error("Read of a path never listed: no error")
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if cmds, err := l.Read(ctx, listed.Unread()[0]); err == nil || cmds != nil {
		t.Errorf("Read with a cancelled context = %v, %v; want an error and nothing", cmds, err)
	}
}

// CachedList lists a program not kept yet, keeps the tree once every
// command is read, and hands that tree back whole on the next start;
// it never keeps a tree with a command Unread, nor one of a program that
// changed while it was read.
func TestCachedList(t *testing.T) {
	bin := buildProgram(t, "./internal/fixture/cmd/fixture")
	file := filepath.Join(t.TempDir(), "state", "cobra-tree.json")
	opts := &Options{Paths: [][]string{{"types"}, {"tristate"}}}
	listed, l, store, err := CachedList(context.Background(), []string{bin}, opts, file)
	if err != nil || l == nil {
		t.Fatalf("first CachedList: lister %v, error %v; want a listing", l, err)
	}
	if err := store(listed); err == nil {
		t.Error("store kept a tree with commands Unread")
	}
	read := readAll(t, listed, l)
	if err := store(read); err != nil {
		t.Fatalf("store: %v", err)
	}
	again, l2, _, err := CachedList(context.Background(), []string{bin}, opts, file)
	if err != nil || l2 != nil {
		t.Fatalf("second CachedList: lister %v, error %v; want the kept tree", l2, err)
	}
	if diff := cmp.Diff(read, again); diff != "" {
		t.Errorf("kept tree differs (-read +kept):\n%s", diff)
	}

	// A program changed while it was read is not kept.
	os.Remove(file)
	listed, l, store, err = CachedList(context.Background(), []string{bin}, opts, file)
	if err != nil {
		t.Fatal(err)
	}
	read = readAll(t, listed, l)
	later := time.Now().Add(time.Minute)
	if err := os.Chtimes(bin, later, later); err != nil {
		t.Fatal(err)
	}
	if err := store(read); err == nil {
		t.Error("store kept the tree of a program changed while it was read")
	}
	if _, err := os.Stat(file); !os.IsNotExist(err) {
		t.Errorf("cache file after a refused store: %v; want none", err)
	}
}
