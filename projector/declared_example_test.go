package projector_test

import (
	"fmt"

	"github.com/verbsurface/verbsurface/projector"
)

// A program whose parser no reader can read (jq 1.6's is hand-written and
// refuses "--"), declared by hand: its values follow their options as
// words of their own, and its positionals follow no "--", so Declare makes
// each such value refuse a leading "-".
func ExampleDeclare() {
	tree, err := projector.Declare("jq", projector.Rendering{Values: projector.ValuesSeparate, NoSeparator: true},
		&projector.Command{Path: []string{}, Summary: "run a jq filter over JSON files", Params: []*projector.Param{
			{Name: "compact", Options: []string{"-c", "--compact-output"}, Kind: projector.KindBoolean},
			{Name: "indent", Options: []string{"--indent"}, Kind: projector.KindInteger},
			{Name: "filter"},
			{Name: "files", Arity: projector.ArityOneOrMore, Path: projector.PathUseRead},
		}})
	if err != nil {
		panic(err)
	}
	root := tree.Find()
	fmt.Println(root.Params[2].Pattern, *root.Params[1].Minimum)
	argv, err := projector.RenderArgv(tree.Dialect, root, map[string]any{"indent": 1, "filter": ".a", "files": []any{"in.json"}})
	fmt.Printf("%q %v\n", argv, err)
	_, err = projector.RenderArgv(tree.Dialect, root, map[string]any{"filter": "--help", "files": []any{"in.json"}})
	fmt.Println(err)
	// Output:
	// ^(?:[^-\x00][^\x00]*)?$ 0
	// ["--indent" "1" ".a" "in.json"] <nil>
	// projector: the root command: parameter "filter": value "--help" does not match pattern ^(?:[^-\x00][^\x00]*)?$
}
