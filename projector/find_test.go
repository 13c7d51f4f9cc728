package projector

import (
	"math/rand/v2"
	"runtime"
	"slices"
	"sync"
	"testing"
	"time"
)

// scanFind is Find as it was before the index: for each element, the first
// command in order one level deeper under the path resolved so far whose
// last element or one of whose aliases is the word. The index must give
// exactly its answers.
func scanFind(t *Tree, path ...string) *Command {
	var cur *Command
	for _, c := range t.Commands {
		if len(c.Path) == 0 {
			cur = c
			break
		}
	}
	var canon []string
	for depth, elem := range path {
		var next *Command
		for _, c := range t.Commands {
			if len(c.Path) != depth+1 || !slices.Equal(c.Path[:depth], canon) {
				continue
			}
			if c.Path[depth] == elem || slices.Contains(c.Aliases, elem) {
				next = c
				break
			}
		}
		if next == nil {
			return nil
		}
		cur, canon = next, next.Path
	}
	return cur
}

// TestFindAgreesWithTheScan: on random trees with every awkward shape —
// no root, two roots, duplicate paths, an alias that is a sibling's name,
// one alias on two siblings, children listed before their parents,
// commands whose parent is missing — the indexed Find returns the very
// command the scan returns, for every path made of the trees' words.
func TestFindAgreesWithTheScan(t *testing.T) {
	words := []string{"a", "b", "c", "ls", "x"}
	r := rand.New(rand.NewPCG(1, 29))
	for trial := range 400 {
		tree := &Tree{}
		if r.IntN(4) != 0 {
			tree.Commands = append(tree.Commands, &Command{Path: []string{}})
		}
		for range 3 + r.IntN(14) {
			path := make([]string, 1+r.IntN(3))
			for i := range path {
				path[i] = words[r.IntN(len(words))]
			}
			c := &Command{Path: path}
			for range r.IntN(3) {
				c.Aliases = append(c.Aliases, words[r.IntN(len(words))])
			}
			tree.Commands = append(tree.Commands, c)
		}
		if r.IntN(5) == 0 {
			tree.Commands = append(tree.Commands, &Command{Path: []string{}})
		}
		r.Shuffle(len(tree.Commands), func(i, j int) {
			if r.IntN(3) == 0 { // mostly parents first, as adapters list them
				tree.Commands[i], tree.Commands[j] = tree.Commands[j], tree.Commands[i]
			}
		})
		var paths [][]string
		paths = append(paths, nil)
		for _, a := range words {
			paths = append(paths, []string{a})
			for _, b := range words {
				paths = append(paths, []string{a, b})
				for _, c := range words {
					paths = append(paths, []string{a, b, c}, []string{a, b, c, "a"})
				}
			}
		}
		for _, p := range paths {
			if got, want := tree.Find(p...), scanFind(tree, p...); got != want {
				t.Fatalf("trial %d: Find(%q) = %v, the scan finds %v; tree %s", trial, p, got, want, treePaths(tree))
			}
		}
	}
}

func treePaths(t *Tree) [][]string {
	var out [][]string
	for _, c := range t.Commands {
		out = append(out, append(slices.Clone(c.Path), "~", joinAliases(c.Aliases)))
	}
	return out
}

func joinAliases(a []string) string {
	s := ""
	for _, x := range a {
		s += x + ","
	}
	return s
}

// The index follows the Commands slice: a new slice (a copy of the tree,
// or an assignment) and an append are seen on the next Find.
func TestFindFollowsTheCommandsSlice(t *testing.T) {
	tree := &Tree{Commands: []*Command{{Path: []string{}}, {Path: []string{"job"}}}}
	if tree.Find("job") == nil || tree.Find("team") != nil {
		t.Fatal("the first lookups")
	}
	tree.Commands = append(tree.Commands, &Command{Path: []string{"team"}})
	if tree.Find("team") == nil {
		t.Fatal("a command appended after the first Find is not found")
	}
	copied := *tree
	copied.Commands = []*Command{{Path: []string{}}, {Path: []string{"job"}, Aliases: []string{"j"}}}
	if copied.Find("j") == nil || copied.Find("team") != nil {
		t.Fatal("a copy with a new slice answers from the original's index")
	}
	if tree.Find("j") != nil || tree.Find("team") == nil {
		t.Fatal("the copy's index leaked into the original")
	}
}

// Find from many goroutines on one tree, while copies of it are made and
// looked up too (what a live source and concurrent requests do): run with
// -race.
func TestFindConcurrentUse(t *testing.T) {
	tree := &Tree{Commands: []*Command{{Path: []string{}}}}
	for _, g := range []string{"a", "b", "c"} {
		tree.Commands = append(tree.Commands, &Command{Path: []string{g}})
		for _, c := range []string{"x", "y"} {
			tree.Commands = append(tree.Commands, &Command{Path: []string{g, c}})
		}
	}
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			for range 200 {
				if c := tree.Find("b", "y"); c == nil || c.Path[1] != "y" {
					t.Error("Find(b, y) failed")
					return
				}
				cp := *tree
				cp.Commands = slices.Clone(tree.Commands)
				if cp.Find("c", "x") == nil {
					t.Error("Find on a copy failed")
					return
				}
			}
		})
	}
	wg.Wait()
}

// A tree's index goes when the tree does: the weak entry is removed by the
// cleanup once the tree is collected, so looking up many short-lived trees
// (one per injection) holds no memory.
func TestFindIndexGoesWithTheTree(t *testing.T) {
	count := func() int {
		n := 0
		indexes.Range(func(any, any) bool { n++; return true })
		return n
	}
	before := count()
	for range 100 {
		tr := &Tree{Commands: []*Command{{Path: []string{}}, {Path: []string{"job"}}}}
		if tr.Find("job") == nil {
			t.Fatal("Find")
		}
	}
	// Cleanups run on their own goroutine after a collection: collect
	// until they have, bounded.
	for deadline := time.Now().Add(10 * time.Second); count() > before; {
		if time.Now().After(deadline) {
			t.Fatalf("%d index entries remain for %d trees that are gone", count()-before, 100)
		}
		runtime.GC()
		runtime.Gosched()
	}
}

// BenchmarkFind5000 looks up the last command of a 5,000-command tree (100
// groups of 50), what the catalog and Check do for every verb.
func BenchmarkFind5000(b *testing.B) {
	tree := &Tree{Commands: []*Command{{Path: []string{}}}}
	for g := range 100 {
		gname := "g" + string(rune('0'+g/10)) + string(rune('0'+g%10))
		tree.Commands = append(tree.Commands, &Command{Path: []string{gname}})
		for c := range 50 {
			tree.Commands = append(tree.Commands, &Command{Path: []string{gname, "c" + string(rune('0'+c/10)) + string(rune('0'+c%10))}})
		}
	}
	b.Run("index", func(b *testing.B) {
		for b.Loop() {
			if tree.Find("g99", "c49") == nil {
				b.Fatal("not found")
			}
		}
	})
	b.Run("scan", func(b *testing.B) {
		for b.Loop() {
			if scanFind(tree, "g99", "c49") == nil {
				b.Fatal("not found")
			}
		}
	})
}
