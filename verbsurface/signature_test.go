//go:build unix

package verbsurface

import (
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/verbsurface/verbsurface/projector"
)

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
		for _, sets := range [][][]string{nil, {{"d", "c"}}, {{"a"}, {"b", "c", "d"}}} {
			for _, req := range []bool{false, true} {
				cmds = append(cmds, &projector.Command{Path: []string{"t"}, Runnable: true,
					Params: []*projector.Param{str("a", req), str("b", false), str("c", false), str("d", req)},
					Groups: groups, AnyRequired: sets})
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
