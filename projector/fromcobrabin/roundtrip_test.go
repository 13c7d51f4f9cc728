package fromcobrabin_test

import (
	"math/rand"
	"strings"
	"testing"

	"github.com/spf13/cobra"

	"github.com/verbsurface/verbsurface/projector"
	"github.com/verbsurface/verbsurface/projector/fromcobra"
	"github.com/verbsurface/verbsurface/projector/fromcobrabin/internal/fixture"
	"github.com/verbsurface/verbsurface/projector/internal/argsgen"
	"github.com/verbsurface/verbsurface/projector/internal/cobrart"
)

// TestRoundTripFixture is the round-trip property over every fixture
// command read from help that projects: validation (jsonschema-go)
// accepts exactly what RenderArgv renders from the help-derived model,
// and the fixture's own cobra tree parses each rendered argv back to the
// given values (value flags as --name=value, booleans as --name=true or
// false, positionals after "--", whatever the values hold).
//
// What help cannot show and the parser still enforces — required flags,
// flag groups, a positional's ValidArgs — is borrowed from the in-process
// walk so that the generator stays within what the parser accepts; what
// is proven is the rendering of every value the help-derived schema
// admits.
func TestRoundTripFixture(t *testing.T) {
	iterations := 60
	if testing.Short() {
		iterations = 15
	}
	if commands := roundTrip(t, walkFixture(t, nil), fixture.New, iterations); commands < 7 {
		t.Errorf("only %d commands round-tripped", commands)
	}
}

// roundTrip runs the round-trip property over every runnable command of
// tree (read from help) that projects, against the in-process tree
// newRoot builds, and returns how many commands it ran over.
func roundTrip(t *testing.T, tree *projector.Tree, newRoot func() *cobra.Command, iterations int) int {
	t.Helper()
	truth, err := fromcobra.Walk(newRoot(), nil)
	if err != nil {
		t.Fatal(err)
	}
	commands := 0
	for _, cmd := range tree.Commands {
		if _, err := projector.Project(cmd); err != nil {
			continue
		}
		want := truth.Find(cmd.Path...)
		cmd = borrow(cmd, want)
		s, err := projector.Project(cmd)
		if err != nil {
			t.Fatal(err)
		}
		rs, err := s.Resolve(nil)
		if err != nil {
			t.Fatal(err)
		}
		commands++
		g := &argsgen.Gen{R: rand.New(rand.NewSource(int64(len(cmd.Path)*104729 + 7))), Invalid: 0.1}
		valid := 0
		for i := 0; i < iterations; i++ {
			args := g.Args(cmd)
			verr := rs.Validate(args)
			argv, rerr := projector.RenderArgv(projector.DialectPflag, cmd, args)
			if (verr == nil) != (rerr == nil) {
				t.Fatalf("%v: validation error %v but render error %v\nargs: %s", cmd.Path, verr, rerr, argsgen.Short(args))
			}
			if verr != nil {
				continue
			}
			valid++
			if err := cobrart.Check(newRoot, cmd, args, argv); err != nil {
				t.Errorf("%v: %s\nargv: %s", cmd.Path, argsgen.Short(err.Error()), argsgen.Short(argv))
			}
		}
		if valid < iterations/5 {
			t.Errorf("%v: only %d of %d generated objects were valid", cmd.Path, valid, iterations)
		}
	}
	return commands
}

// borrow returns a copy of have with want's required flags, flag groups
// and choices.
func borrow(have, want *projector.Command) *projector.Command {
	cp := *have
	byName := map[string]*projector.Param{}
	for _, p := range want.Params {
		byName[p.Name] = p
	}
	cp.Params = make([]*projector.Param, len(have.Params))
	for i, p := range have.Params {
		q := *p
		if w, ok := byName[p.Name]; ok {
			q.Required, q.Choices = w.Required, w.Choices
		}
		cp.Params[i] = &q
	}
	cp.Groups, cp.AnyRequired = want.Groups, want.AnyRequired
	if strings.Contains(strings.Join(have.Path, " "), "exclusive") && len(cp.Groups) == 0 {
		panic("the fixture's exclusive group is gone")
	}
	return &cp
}
