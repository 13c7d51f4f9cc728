//go:build unix

package server

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/verbsurface/verbsurface/examples/limcp/internal/provider"
	"github.com/verbsurface/verbsurface/projector"
)

// BenchmarkLiveModels measures what keeping the model description live
// adds to every request that needs a schema: reading providers.yaml,
// looking each preset's program up on PATH, wording the description, and
// (only when it changed) copying the tree. "cached" is what a request pays
// within liveModelsTTL of the last look; "unchanged" looks again and finds
// the same description; "changed" also copies the tree (what a request
// pays after a program appears on PATH).
func BenchmarkLiveModels(b *testing.B) {
	home := b.TempDir()
	if err := os.WriteFile(filepath.Join(home, provider.ConfigFile),
		[]byte("providers:\n  - name: local\n    argv: [\"/bin/cat\", \"{model}\"]\n"), 0o600); err != nil {
		b.Fatal(err)
	}
	base := &projector.Tree{Program: "limcp", Dialect: projector.DialectPflag}
	for i := range 40 {
		c := &projector.Command{Path: []string{"cmd", string(rune('a' + i%26))}, Runnable: true,
			Params: []*projector.Param{{Name: "x", Options: []string{"--x"}, Kind: projector.KindString, Arity: projector.ArityOne}}}
		if i < 3 {
			c.Params = append(c.Params, &projector.Param{Name: "model", Kind: projector.KindString, Arity: projector.ArityOne,
				Required: true, Help: "MODEL", Pattern: provider.ModelPattern})
		}
		base.Commands = append(base.Commands, c)
	}
	env := []string{"PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"}
	b.Run("cached", func(b *testing.B) {
		l := newLiveModels(home, env)
		for b.Loop() {
			if l.treeOf(base) == nil {
				b.Fatal("no tree")
			}
		}
	})
	b.Run("unchanged", func(b *testing.B) {
		l := newLiveModels(home, env)
		for b.Loop() {
			l.at = time.Time{} // as if the TTL had passed
			if l.treeOf(base) == nil {
				b.Fatal("no tree")
			}
		}
	})
	b.Run("changed", func(b *testing.B) {
		l := newLiveModels(home, env)
		for b.Loop() {
			l.at, l.help = time.Time{}, "" // as if the TTL had passed and the description changed
			if l.treeOf(base) == nil {
				b.Fatal("no tree")
			}
		}
	})
}

// TestWithModelHelpLeavesTheBaseTree: the live description is set on a
// copy; the tree walked at start, shared by every request, is unchanged.
func TestWithModelHelpLeavesTheBaseTree(t *testing.T) {
	p := &projector.Param{Name: "model", Help: "MODEL", Pattern: provider.ModelPattern}
	other := &projector.Command{Path: []string{"job", "list"}}
	base := &projector.Tree{Commands: []*projector.Command{{Path: []string{"agent"}, Params: []*projector.Param{p}}, other}}
	got := withModelHelp(base, "NAME or NAME:MODEL. Usable now: echo")
	if p.Help != "MODEL" || base.Commands[0].Params[0] != p {
		t.Fatalf("the base tree changed: %+v", base.Commands[0].Params[0])
	}
	if h := got.Commands[0].Params[0].Help; h != "the model: NAME or NAME:MODEL. Usable now: echo" {
		t.Fatalf("live help %q", h)
	}
	if got.Commands[1] != other {
		t.Fatal("a command without a model parameter was copied")
	}
}
