package fromclick_test

import (
	"context"
	"fmt"

	"github.com/verbsurface/verbsurface/projector"
	"github.com/verbsurface/verbsurface/projector/fromclick"
)

// Projecting a click group: the fixture's "more" command takes one or more
// files and a required choice. Its schema and argv come from click's own
// parameters. (Needs python3 with click on PATH.)
func ExampleWalk() {
	tree, err := fromclick.Walk(context.Background(), "vsclick:cli", &fromclick.Options{PythonPath: []string{"testdata/pyfixture"}})
	if err != nil {
		panic(err)
	}
	cmd := tree.Find("more")
	schema, err := projector.Project(cmd)
	if err != nil {
		panic(err)
	}
	fmt.Println(tree.Dialect, schema.PropertyOrder, schema.Required)

	argv, err := projector.RenderArgv(tree.Dialect, cmd, map[string]any{"files": []any{"a.txt", "--help"}, "mode": "b"})
	if err != nil {
		panic(err)
	}
	fmt.Printf("cli more %q\n", argv)

	_, err = projector.RenderArgv(tree.Dialect, tree.Find("custom"), nil)
	fmt.Println(err)
	// Output:
	// click [files mode] [files mode]
	// cli more ["--mode=b" "--" "a.txt" "--help"]
	// projector: command "custom": parameter "hexval" (action click.core.Option, type vsclick.Hex): custom ParamType vsclick.Hex ("hex"): the schema cannot state what its convert accepts or does with the string (list it in Options.StringTypes if it reads a plain string); command unavailable
}
