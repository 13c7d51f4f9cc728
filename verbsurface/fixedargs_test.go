package verbsurface

import (
	"strings"
	"testing"

	"github.com/verbsurface/verbsurface/projector"
)

// TestFixedArgsOfVariableCount: an option whose values may be none is
// fixed alone (argparse nargs='*': `args: [-L]`), or with the words up to
// the next option; one that needs a value is refused without one.
func TestFixedArgsOfVariableCount(t *testing.T) {
	cmd := &projector.Command{Path: []string{"ls"}, Runnable: true, Params: []*projector.Param{
		{Name: "links", Options: []string{"-L"}, Kind: projector.KindString, Arity: projector.ArityZeroOrMore},
		{Name: "only", Options: []string{"--only"}, Kind: projector.KindString, Arity: projector.ArityOneOrMore, Choices: []any{"a", "b"}},
		{Name: "fmt", Options: []string{"-f"}, Kind: projector.KindString, Arity: projector.ArityOne},
	}}
	for _, c := range []struct {
		args []string
		want string // "" accepted
	}{
		{[]string{"-L"}, ""},
		{[]string{"-L", "-f", "json"}, ""},
		{[]string{"-L", "x", "y", "-f", "json"}, ""},
		{[]string{"--only", "a", "b"}, ""},
		{[]string{"--only"}, "takes one or more values"},
		{[]string{"--only", "-L"}, "takes one or more values"},
		{[]string{"--only", "c"}, "not one of the choices"},
	} {
		err := CheckFixedArgs(cmd, c.args)
		switch {
		case c.want == "" && err != nil:
			t.Errorf("%q refused: %v", c.args, err)
		case c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)):
			t.Errorf("%q: got %v, want an error containing %q", c.args, err, c.want)
		}
	}
}

// TestMachineSeamOnAnOutputOption: an option named like a file (-o,
// --output) carries machine mode when its help lists the values it takes,
// or when the verb says it is not a path (files: [output:none]); otherwise
// it is refused, since it may write a file named json.
func TestMachineSeamOnAnOutputOption(t *testing.T) {
	cmd := func(help string) *projector.Command {
		return &projector.Command{Path: []string{"list"}, Runnable: true, Params: []*projector.Param{
			{Name: "output", Options: []string{"-o", "--output"}, Kind: projector.KindString, Arity: projector.ArityOne, Help: help}}}
	}
	tree := &projector.Tree{Program: "kubectl-like", Dialect: projector.DialectPflag}
	m := Machine{Args: []string{"-o", "json"}}
	for _, c := range []struct {
		name string
		help string
		uses map[string]projector.PathUse
		want string // "" passes
	}{
		{"named like a file, nothing else said", "where to write", nil, "takes a path (parameter output)"},
		{"help lists the values", "Output format. Allowed values: table, json, yaml", nil, ""},
		{"help says one of", "output format, one of: table, json", nil, ""},
		{"the operator says it is no path", "where to write", map[string]projector.PathUse{"output": projector.PathUseNone}, ""},
		{"the operator says it is a path", "Allowed values: table, json", map[string]projector.PathUse{"output": projector.PathUseWrite}, "takes a path"},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, bad := m.seam(tree, cmd(c.help), c.uses)
			switch {
			case c.want == "" && bad != nil:
				t.Fatalf("refused: %s", bad.Reason)
			case c.want != "" && (bad == nil || !strings.Contains(bad.Reason, c.want)):
				t.Fatalf("got %v, want a refusal saying %q", bad, c.want)
			}
		})
	}
}
