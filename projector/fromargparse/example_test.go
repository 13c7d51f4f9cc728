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

// Walking several targets costs one Python start-up: the trees come back in
// the order of the targets, and the inventory says how much of each can be
// offered.
func ExampleWalkAll() {
	targets := []string{"py_compile:main", "ast:main"}
	trees, err := fromargparse.WalkAll(context.Background(), targets, nil)
	if err != nil {
		panic(err)
	}
	for i, tree := range trees {
		r := projector.Inventory(tree, nil)
		fmt.Printf("%s (%s): %d of %d offerable commands project cleanly\n", targets[i], tree.Program, r.Clean, r.Offerable)
		for _, u := range r.Unavailable {
			for _, why := range u.Reasons {
				fmt.Printf("  %s: %s\n", why.Param, why.Reason)
			}
		}
	}
	// Output:
	// py_compile:main (py_compile): 1 of 1 offerable commands project cleanly
	// ast:main (python -m ast): 1 of 1 offerable commands project cleanly
}
