package verbsurface

import (
	"context"
	"slices"
	"strconv"
	"strings"
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

// signatureOfSchema is the catalog signature as the compiled validator
// has it: what signature, which reads the command, must agree with.
func signatureOfSchema(v *Validator, dyn *Dynamic) string {
	var parts []string
	inGroup := map[string]bool{}
	for _, name := range v.order {
		if slices.Contains(v.required, name) {
			parts = append(parts, name)
		}
	}
	for _, r := range v.rules {
		if !r.exclusive {
			parts = append(parts, strings.Join(r.params, "|"))
			for _, p := range r.params {
				inGroup[p] = true
			}
		}
	}
	optional := 0
	for _, name := range v.order {
		if !slices.Contains(v.required, name) && !inGroup[name] {
			optional++
		}
	}
	if optional > 0 {
		parts = append(parts, "+"+strconv.Itoa(optional))
	}
	if dyn != nil {
		parts = append(parts, "+"+dyn.Param+" args")
	}
	return "(" + strings.Join(parts, ", ") + ")"
}

// TestSignatureAgreesWithTheSchema: the catalog's signature, read from the
// command so that a catalog compiles no validator, says what the schema
// says, for every command of the fixture CLI and for commands with
// exclusive groups, required groups and at-least-one sets in every mix.
func TestSignatureAgreesWithTheSchema(t *testing.T) {
	fx := newFixture(t)
	tree, err := fx.env.tree()
	if err != nil {
		t.Fatal(err)
	}
	cmds := tree.Commands
	str := func(n string, required bool) *projector.Param {
		return &projector.Param{Name: n, Options: []string{"--" + n}, Kind: projector.KindString, Arity: projector.ArityOne, Required: required}
	}
	for _, groups := range [][]projector.Group{
		nil,
		{{Params: []string{"a", "b"}}},
		{{Params: []string{"a", "b"}, Required: true}},
		{{Params: []string{"b", "c"}, Required: true}, {Params: []string{"a", "d"}}},
		{{Params: []string{"c"}, Required: true}, {Params: []string{"b", "d"}, Required: true}},
	} {
		for _, any := range [][][]string{nil, {{"d", "c"}}, {{"a"}, {"b", "c", "d"}}} {
			for _, req := range []bool{false, true} {
				cmds = append(cmds, &projector.Command{Path: []string{"t"}, Runnable: true,
					Params: []*projector.Param{str("a", req), str("b", false), str("c", false), str("d", req)},
					Groups: groups, AnyRequired: any})
			}
		}
	}
	dyn := &Dynamic{Param: "playbook"}
	checked := 0
	for _, c := range cmds {
		s, err := projector.Project(c)
		if err != nil {
			continue // not offered: no signature
		}
		v, err := CompileValidator(s)
		if err != nil {
			t.Fatalf("%v: %v", c.Path, err)
		}
		for _, d := range []*Dynamic{nil, dyn} {
			if got, want := signature(c, d), signatureOfSchema(v, d); got != want {
				t.Errorf("%v (groups %v, at least one of %v): signature %s, the schema says %s", c.Path, c.Groups, c.AnyRequired, got, want)
			}
		}
		checked++
	}
	if checked < 40 {
		t.Fatalf("only %d commands compared", checked)
	}
}
