package verbsurface

import (
	"context"
	"strconv"
	"testing"

	"github.com/verbsurface/verbsurface/projector"
)

// TestDynamicCacheIsBounded: dynamic values are chosen by callers, so the
// projections cached for them must not grow without bound, and filling the
// dynamic slots never evicts a verb's base projection.
func TestDynamicCacheIsBounded(t *testing.T) {
	var c projectionCache
	cmd := &projector.Command{Path: []string{"play"}}
	base := &projection{cmd: cmd}
	id := commandID{cmd: cmd}
	c.put("play.submit", id, base)
	for i := range 3 * maxDynamicEntries {
		c.put("play.submit\x00book"+strconv.Itoa(i), commandID{cmd: &projector.Command{}}, &projection{})
		if n := len(c.dynamic); n > maxDynamicEntries {
			t.Fatalf("%d dynamic entries after %d puts, want at most %d", n, i+1, maxDynamicEntries)
		}
	}
	if c.byIdentity("play.submit", id) != base {
		t.Error("filling the dynamic slots evicted the base projection")
	}
	if p, _ := c.byContent("play.submit", commandID{}, &projector.Command{Path: []string{"play"}}); p != base {
		t.Error("the base projection is not found by its command's content")
	}
	if p, _ := c.byContent("play.submit", id, &projector.Command{Path: []string{"flow"}}); p != nil {
		t.Error("a projection was served for a different command")
	}
}

// TestProjectionCacheByIdentityThenContent: the same command (the same
// *projector.Command) is served from the cache without being encoded; a
// new command of the same content (a reloaded tree) is recognised by its
// content and becomes the identity served from then on; a command whose
// content changed gets a new projection. The fingerprint says which.
func TestProjectionCacheByIdentityThenContent(t *testing.T) {
	cmd := func(help string) *projector.Command {
		return &projector.Command{Path: []string{"note", "add"}, Runnable: true, Params: []*projector.Param{
			{Name: "text", Kind: projector.KindString, Arity: projector.ArityOne, Required: true, Help: help, Action: "cobra:positional"}}}
	}
	tree := func(c *projector.Command) *projector.Tree {
		return &projector.Tree{Program: "notes", Dialect: projector.DialectPflag, Commands: []*projector.Command{{Path: []string{}}, {Path: []string{"note"}}, c}}
	}
	current := tree(cmd("the note"))
	reg, _ := NewRegistry(nil)
	if err := reg.Register(Verb{Name: "note.add", Class: ClassControl, Path: []string{"note", "add"}}); err != nil {
		t.Fatal(err)
	}
	s, err := New(reg, &Options{Source: func(context.Context) (*projector.Tree, error) { return current, nil },
		Runner: RunnerFunc(nil)})
	if err != nil {
		t.Fatal(err)
	}
	v := reg.lookup("note.add")
	first := s.project(context.Background(), &requestState{}, v)
	if !first.ok() {
		t.Fatalf("not offered: %+v", first)
	}
	if again := s.project(context.Background(), &requestState{}, v); again != first {
		t.Fatal("the same command was projected again")
	}
	current = tree(cmd("the note")) // reloaded: new pointers, same content
	if same := s.project(context.Background(), &requestState{}, v); same != first {
		t.Fatal("a command with the same content got a new projection")
	}
	e := s.cache.verbs["note.add"]
	if e.from.cmd != current.Commands[2] {
		t.Fatal("the cache does not serve the reloaded command by identity from now on")
	}
	current = tree(cmd("the note's text")) // changed: the description is in the schema
	changed := s.project(context.Background(), &requestState{}, v)
	if changed == first || changed.fingerprintOrEmpty() == first.fingerprintOrEmpty() {
		t.Fatalf("a changed command was served the old projection (fingerprint %s)", changed.fingerprintOrEmpty())
	}
}
