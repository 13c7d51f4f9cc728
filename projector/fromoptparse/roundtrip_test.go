package fromoptparse

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand"
	"os"
	"reflect"
	"strings"
	"testing"

	"github.com/verbsurface/verbsurface/projector"
	"github.com/verbsurface/verbsurface/projector/internal/argsgen"
)

type parseRequest struct {
	Target  string   `json:"target"`
	Command string   `json:"command"`
	Path    []string `json:"path"`
	Argv    []string `json:"argv"`
}

type parseResult struct {
	OK     bool           `json:"ok"`
	Values map[string]any `json:"values"`
	Args   []any          `json:"args"`
	Error  string         `json:"error"`
}

// plain is v as encoding/json decodes it without UseNumber, so that a
// given value and a parsed one compare by value.
func plain(v any) any {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprintf("unmarshalable %v", v)
	}
	var out any
	_ = json.Unmarshal(b, &out)
	return out
}

// wantParsed is what optparse must store for p given the args object (or
// nothing to check).
func wantParsed(p *projector.Param, args map[string]any) (any, bool) {
	v, given := args[p.Name]
	switch {
	case p.Arity == projector.ArityNone:
		if !given || v != p.FlagValue {
			return nil, false // false is spelled by saying nothing: another flag of the dest, or the default, decides
		}
		switch {
		case p.Dest != "" && p.Action != "append_const":
			return p.Const, true
		}
		switch p.Action {
		case "store_true", "store_false":
			return p.FlagValue, true
		case "store_const":
			return p.Const, true
		case "append_const":
			return []any{p.Const}, true
		}
	case !given:
		return nil, false
	case p.Arity == projector.ArityCount && v == float64(0):
		return nil, false
	}
	return v, true
}

// roundTrip renders argsgen's valid objects for every command of trees
// that projects, parses each argv with the parser itself (one Python
// process) and requires exactly the given values back.
func roundTrip(t *testing.T, opts *Options, trees map[string]*projector.Tree, n int, invalid float64) int {
	t.Helper()
	cases, commands := argsgen.ValidCases(t, trees, projector.DialectOptparse, n, func(r *rand.Rand) *argsgen.Gen {
		return &argsgen.Gen{R: r, Invalid: invalid}
	})
	reqs := make([]parseRequest, len(cases))
	for i, c := range cases {
		reqs[i] = parseRequest{Target: c.Target, Command: opts.Command, Path: c.Cmd.Path, Argv: c.Argv}
	}
	var answer struct {
		Results []parseResult `json:"results"`
	}
	if err := runWalker(context.Background(), opts, "parse", map[string]any{"requests": reqs}, &answer); err != nil {
		t.Fatal(err)
	}
	if len(answer.Results) != len(cases) {
		t.Fatalf("%d results for %d cases", len(answer.Results), len(cases))
	}
	for i, c := range cases {
		r := answer.Results[i]
		if !r.OK {
			t.Errorf("%s %v: optparse rejected %s: %s\nargs: %s", c.Target, c.Cmd.Path, argsgen.Short(c.Argv), r.Error, argsgen.Short(c.Args))
			continue
		}
		for _, p := range c.Cmd.Params {
			want, check := wantParsed(p, c.Args)
			if !check {
				continue
			}
			var got any
			if p.Name == ArgsParam {
				got = r.Args
			} else {
				key := p.Name
				if p.Dest != "" {
					key = p.Dest
				}
				got = r.Values[key]
			}
			if s, ok := want.(string); ok && p.Type == "path" && strings.HasPrefix(s, "~") {
				// pip's vouched "path" type expands a leading ~ (as
				// os.path.expanduser does), as a shell would have.
				continue
			}
			if !reflect.DeepEqual(plain(got), plain(want)) {
				t.Errorf("%s %v: %s: rendered %s, optparse stored %s, want %s", c.Target, c.Cmd.Path, p.Name, argsgen.Short(c.Argv), argsgen.Short(plain(got)), argsgen.Short(plain(want)))
			}
		}
	}
	t.Logf("%d argument objects over %d commands round-tripped", len(cases), commands)
	return commands
}

// TestRoundTripFixtures: every object validation accepts, rendered in
// dialect optparse, parses back through optparse itself to exactly its
// values (short options as two words, long ones glued by "=", tuples as
// separate words, the positional arguments after "--").
func TestRoundTripFixtures(t *testing.T) {
	n := 150
	if testing.Short() {
		n = 30
	}
	opts := fixtureOptions(t)
	trees := map[string]*projector.Tree{}
	for _, target := range []string{"optfix:rich", "optfix:shared", "optfix:main"} {
		tree, err := Walk(context.Background(), target, opts)
		if err != nil {
			t.Fatal(err)
		}
		trees[target] = tree
	}
	if got := roundTrip(t, opts, trees, n, 0.1); got != 3 {
		t.Errorf("%d commands projected, want 3", got)
	}
	table := fixtureOptions(t)
	table.Command = "optfix:make"
	tree, err := Walk(context.Background(), "optfix:TABLE", table)
	if err != nil {
		t.Fatal(err)
	}
	if got := roundTrip(t, table, map[string]*projector.Tree{"optfix:TABLE": tree}, n, 0.1); got != 2 {
		t.Errorf("%d table commands projected, want 2", got)
	}
}

// TestRoundTripPip: the same property over Debian's pip, each command's
// own parser (general options included), with the callbacks and pip's
// own package_name type excluded as examples/fronts/pip.yaml excludes
// them.
func TestRoundTripPip(t *testing.T) {
	isolatePip(t)
	opts := pipOptions(t)
	opts.ExcludeFlags = pipExcluded
	tree, err := Walk(context.Background(), pipTarget, opts)
	if err != nil {
		t.Fatal(err)
	}
	n := 40 // fewer draws leave a command or two with too few valid objects
	// No objects broken on purpose: pip install's exclusive pairs
	// (--user/--no-user, --compile/--no-compile, …) already make most
	// random objects invalid.
	if got := roundTrip(t, opts, map[string]*projector.Tree{pipTarget: tree}, n, 0); got != 17 {
		t.Errorf("%d pip commands projected, want all 17", got)
	}
}

// pipExcluded are pip 23.0.1's options no reader can offer: callbacks, and
// the package_name type (a canonicalizing checker).
var pipExcluded = []string{"--no-cache-dir", "--python-version", "--src", "--config-settings", "--no-binary", "--only-binary", "--no-use-pep517", "--exclude"}

// isolatePip keeps the machine's pip configuration (its files and PIP_*
// variables, which pip merges into its parsers' defaults and so into
// every parsed list) out of the round trip, which checks argv.
func isolatePip(t *testing.T) {
	for _, kv := range os.Environ() {
		if k, v, _ := strings.Cut(kv, "="); strings.HasPrefix(k, "PIP_") {
			os.Unsetenv(k)
			t.Cleanup(func() { os.Setenv(k, v) })
		}
	}
	t.Setenv("PIP_CONFIG_FILE", os.DevNull)
}
