package fromcobrabin_test

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/verbsurface/verbsurface/projector"
	"github.com/verbsurface/verbsurface/projector/fromcobrabin"
)

// Reading an installed cobra program's parser model from its own help,
// then projecting and rendering one command. fixtureBin is this package's
// test fixture, built by TestMain; in use it is {"helm"} or
// {"/usr/bin/restic"}.
func ExampleWalk() {
	tree, err := fromcobrabin.Walk(context.Background(), []string{fixtureBin}, nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	cmd := tree.Find("g", "i") // aliases, as the program's Aliases lines say
	schema, err := projector.Project(cmd)
	if err != nil {
		fmt.Println(err)
		return
	}
	name, _ := json.Marshal(schema.Properties["name"])
	fmt.Println(tree.Program, cmd.Path, string(name))

	// A value that looks like an option stays a value: after "--".
	argv, _ := projector.RenderArgv(tree.Dialect, cmd, map[string]any{"name": "--help", "profile": "ci"})
	fmt.Printf("%q\n", argv)

	// What the help does not settle is unavailable, with the reason.
	_, err = projector.Project(tree.Find("raw"))
	fmt.Println(err != nil)
	// Output:
	// fixture [get item] {"type":"string","description":"the positional argument NAME of `fixture get item NAME [flags]`","pattern":"^[^\\x00]*$"}
	// ["--profile=ci" "--" "--help"]
	// true
}

// Listing the commands a front names, then reading one when it is first
// needed: a server answers before it has read every command of a large
// program. The tree read to the end is the tree Walk gives.
func ExampleList() {
	ctx := context.Background()
	opts := &fromcobrabin.Options{Paths: [][]string{{"get", "item"}, {"types"}}}
	tree, lister, err := fromcobrabin.List(ctx, []string{fixtureBin}, opts)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(tree.Unread())

	path := tree.Unread()[0]
	cmds, err := lister.Read(ctx, path)
	if err != nil {
		fmt.Println(err)
		return
	}
	tree = projector.Spliced(tree, path, cmds)
	fmt.Println(tree.Unread(), len(tree.Find("get", "item").Params) > 0)
	// Output:
	// [[get item] [types]]
	// [[types]] true
}
