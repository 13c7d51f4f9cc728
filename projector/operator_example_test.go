package projector_test

import (
	"encoding/json"
	"fmt"

	"github.com/verbsurface/verbsurface/projector"
)

// A linter that hands its --commit value to git log: the operator says a
// commit is a hexadecimal id that never begins with "-".
func ExampleConstrain() {
	cmd := &projector.Command{Path: []string{"lint"}, Runnable: true, Params: []*projector.Param{
		{Name: "commit", Options: []string{"--commit"}, Kind: projector.KindString, Arity: projector.ArityOne, Action: "store"},
	}}
	cmd, err := projector.Constrain(cmd, projector.Constraint{Param: "--commit", Pattern: `^[0-9a-f]{7,40}$`, NoDash: true})
	if err != nil {
		panic(err)
	}
	schema, _ := projector.Project(cmd)
	out, _ := json.Marshal(schema.Properties["commit"])
	fmt.Println(string(out))
	_, err = projector.RenderArgv(projector.DialectArgparse, cmd, map[string]any{"commit": "--output=/tmp/x"})
	fmt.Println(err)
	// Output:
	// {"type":"string","pattern":"^[^\\x00]*$","allOf":[{"pattern":"^[0-9a-f]{7,40}$"},{"pattern":"^(?:$|[^-])"}]}
	// projector: command "lint": parameter "commit": value "--output=/tmp/x" does not match pattern ^[0-9a-f]{7,40}$
}

// An optional method word before a URL: fixed by the operator, it leaves
// the schema and is rendered where the parser reads it.
func ExampleFixParams() {
	cmd := &projector.Command{Path: []string{"http"}, Runnable: true, Params: []*projector.Param{
		{Name: "method", Kind: projector.KindString, Arity: projector.ArityOptional, Choices: []any{"GET", "POST"}, Action: "store"},
		{Name: "url", Kind: projector.KindString, Arity: projector.ArityOne, Required: true, Action: "store"},
	}}
	fixed, err := projector.FixParams(cmd, map[string]any{"method": "POST"})
	if err != nil {
		panic(err)
	}
	schema, _ := projector.Project(fixed.Offered)
	fmt.Println(schema.PropertyOrder)
	argv, _ := fixed.RenderArgv(projector.DialectArgparse, map[string]any{"url": "https://example.org"})
	fmt.Println(argv)
	// Output:
	// [url]
	// [-- POST https://example.org]
}

// A cobra command whose Args validator reads the values cannot be read
// for its positionals; the operator states them.
func ExampleStatePositionals() {
	cmd := &projector.Command{Path: []string{"run"}, Runnable: true,
		Unrepresentable: &projector.Unrepresentable{ByPositionals: true, Reason: "positionals cannot be determined"}}
	cmd, err := projector.StatePositionals(cmd, []*projector.Param{
		{Name: "image", Arity: projector.ArityOne},
		{Name: "command", Arity: projector.ArityZeroOrMore},
	})
	if err != nil {
		panic(err)
	}
	schema, _ := projector.Project(cmd)
	fmt.Println(schema.PropertyOrder, schema.Required)
	// Output:
	// [image command] [image]
}
