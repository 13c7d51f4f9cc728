package fromargparse_test

import (
	"context"
	"fmt"

	"github.com/verbsurface/verbsurface/projector"
	"github.com/verbsurface/verbsurface/projector/fromargparse"
)

// Projecting an argparse factory: zipfile's main() builds its parser and
// calls parse_args; the walker captures the parser at that call. (Needs
// python3 on PATH.)
func ExampleWalk() {
	tree, err := fromargparse.Walk(context.Background(), "zipfile:main", nil)
	if err != nil {
		panic(err)
	}
	root := tree.Find()
	schema, err := projector.Project(root)
	if err != nil {
		panic(err)
	}
	fmt.Println(schema.PropertyOrder)
	fmt.Println(len(schema.AllOf), "group constraints")

	argv, err := projector.RenderArgv(tree.Dialect, root, map[string]any{"create": []any{"out.zip", "a.txt", "b c.txt"}})
	if err != nil {
		panic(err)
	}
	fmt.Printf("python3 -m zipfile %q\n", argv)

	_, err = projector.RenderArgv(tree.Dialect, root, map[string]any{"create": []any{"out.zip", "--help"}})
	fmt.Println(err)
	// Output:
	// [list extract create test metadata_encoding]
	// 7 group constraints
	// python3 -m zipfile ["--create" "out.zip" "a.txt" "b c.txt"]
	// projector: the root command: parameter "create": item 1: value "--help" does not match pattern ^(?:[^\-\x00][^\x00]*)?$
}
