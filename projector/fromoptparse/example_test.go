package fromoptparse_test

import (
	"context"
	"fmt"

	"github.com/verbsurface/verbsurface/projector"
	"github.com/verbsurface/verbsurface/projector/fromoptparse"
)

// Walking a command table: optfix.TABLE maps each name to a summary, and
// optfix.make builds that command's object, whose .parser is an optparse
// parser. (Needs python3 on PATH.)
func ExampleWalk() {
	tree, err := fromoptparse.Walk(context.Background(), "optfix:TABLE", &fromoptparse.Options{
		PythonPath: []string{"testdata/py"}, Command: "optfix:make", Program: "tool"})
	if err != nil {
		panic(err)
	}
	get := tree.Find("get")
	fmt.Println(tree.Dialect, get.Summary)
	argv, err := projector.RenderArgv(tree.Dialect, get, map[string]any{"key": "a", "force": true, "args": []any{"-x"}})
	if err != nil {
		panic(err)
	}
	fmt.Printf("tool get %q\n", argv)
	// Output:
	// optparse Get a thing.
	// tool get ["--force" "--key=a" "--" "-x"]
}
