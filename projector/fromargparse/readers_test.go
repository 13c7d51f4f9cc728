package fromargparse

import (
	"testing"

	"github.com/verbsurface/verbsurface/projector"
	"github.com/verbsurface/verbsurface/projector/internal/argsgen"
)

// TestReaderBugs holds what the reader once got wrong (issue 34), one
// command of vsfixture:readers each; the round-trip test parses every
// command back with argparse itself.
func TestReaderBugs(t *testing.T) {
	tree := trees(t)["vsfixture:readers"]
	cmd := func(name string) *projector.Command {
		c := tree.Find(name)
		if c == nil {
			t.Fatalf("no command %q", name)
		}
		return c
	}
	for _, c := range []struct {
		name, cmd, param string
		arity            projector.Arity
		required         bool
	}{
		{"a '*' positional under argument_default=SUPPRESS is never required", "star-suppressed", "files", projector.ArityZeroOrMore, false},
		{"a '*' extend positional is an array, never required", "extend-pos", "items", projector.ArityZeroOrMore, false},
		{"a '+' extend positional is a required array", "extend-plus", "items", projector.ArityOneOrMore, true},
		{"an append positional is a list of its one word", "append-pos", "item", projector.ArityExactly, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			cm := cmd(c.cmd)
			if _, err := projector.Project(cm); err != nil {
				t.Fatalf("does not project: %v", err)
			}
			p := param(cm, c.param)
			if p.Arity != c.arity || p.Required != c.required {
				t.Errorf("%s: arity %s required %v, want %s %v", c.param, p.Arity, p.Required, c.arity, c.required)
			}
		})
	}
	t.Run("help, metavar and description that are not str are read as str", func(t *testing.T) {
		lazy := cmd("lazy")
		if got := param(lazy, "name").Help; got != "the name to greet" {
			t.Errorf("help %q", got)
		}
		if got := param(lazy, "name").Metavar; got != "NAME" {
			t.Errorf("metavar %q", got)
		}
		if got := param(lazy, "word").Help; got != "a word" {
			t.Errorf("help %q", got)
		}
		if got := cmd("star-suppressed").Summary; got != "a '*' positional under argument_default=SUPPRESS" {
			t.Errorf("summary %q", got)
		}
	})
}

// TestFixedValuesRoundTrip fixes an optional method word (a positional
// that precedes a required one: excluding it is refused) and an option,
// and has argparse parse what a run renders: the fixed values and the
// caller's, each where the parser reads it.
func TestFixedValuesRoundTrip(t *testing.T) {
	full := trees(t)["vsfixture:readers"].Find("method")
	if _, err := projector.Project(full); err == nil {
		t.Fatal("an optional method word before a URL and a list projects; this test wants the command only fixing it makes available")
	}
	fx, err := projector.FixParams(full, map[string]any{"method": "POST", "--verbose": true})
	if err != nil {
		t.Fatal(err)
	}
	s, err := projector.Project(fx.Offered)
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := s.Properties["method"]; ok || s.Properties["verbose"] != nil {
		t.Fatalf("a fixed parameter is in the schema: %v", s.PropertyOrder)
	}
	var cases []argsgen.Case
	for _, caller := range []map[string]any{
		{"url": "https://example.org"},
		{"url": "-x", "items": []any{"a=b", "GET", "--verbose"}},
	} {
		args := map[string]any{"method": "POST", "verbose": true}
		for k, v := range caller {
			args[k] = v
		}
		argv, err := fx.RenderArgv(projector.DialectArgparse, caller)
		if err != nil {
			t.Fatal(err)
		}
		cases = append(cases, argsgen.Case{Target: "vsfixture:readers", Cmd: full, Args: args, Argv: argv})
	}
	checkBatch(t, cases)
	if _, err := fx.RenderArgv(projector.DialectArgparse, map[string]any{"url": "u", "method": "GET"}); err == nil {
		t.Error("a caller overrode a fixed value")
	}
	if _, err := projector.FixParams(full, map[string]any{"method": "PATCH"}); err == nil {
		t.Error("a fixed value outside the choices was accepted")
	}
}
