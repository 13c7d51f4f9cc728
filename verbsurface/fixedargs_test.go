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
