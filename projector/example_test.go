package projector_test

import (
	"encoding/json"
	"fmt"
	"os"

	"github.com/verbsurface/verbsurface/projector"
)

// A command as an adapter would model it: `jobs list [--status=S] [--limit=N] [--tag=T]... [-- OWNER]`.
func exampleCommand() *projector.Command {
	return &projector.Command{
		Path: []string{"jobs", "list"}, Runnable: true, Summary: "list jobs",
		Params: []*projector.Param{
			{Name: "status", Options: []string{"--status"}, Kind: projector.KindString, Arity: projector.ArityOne, Choices: []any{"running", "done"}, Action: "pflag:string"},
			{Name: "limit", Options: []string{"--limit"}, Kind: projector.KindInteger, Arity: projector.ArityOne, Default: 20, Minimum: new(float64), Action: "pflag:int"},
			{Name: "tag", Options: []string{"--tag"}, Kind: projector.KindString, Arity: projector.ArityRepeated, Action: "pflag:stringArray"},
			{Name: "owner", Kind: projector.KindString, Arity: projector.ArityOptional, Action: "cobra:positional"},
		},
	}
}

func ExampleProject() {
	schema, err := projector.Project(exampleCommand())
	if err != nil {
		panic(err)
	}
	out, _ := json.MarshalIndent(schema, "", "  ")
	fmt.Println(string(out))
	// Output:
	// {
	//   "type": "object",
	//   "properties": {
	//     "status": {
	//       "type": "string",
	//       "enum": [
	//         "running",
	//         "done"
	//       ],
	//       "pattern": "^[^\\x00]*$"
	//     },
	//     "limit": {
	//       "type": "integer",
	//       "default": 20,
	//       "minimum": 0,
	//       "maximum": 9007199254740991
	//     },
	//     "tag": {
	//       "type": "array",
	//       "items": {
	//         "type": "string",
	//         "pattern": "^[^\\x00]*$"
	//       }
	//     },
	//     "owner": {
	//       "type": "string",
	//       "pattern": "^[^\\x00]*$"
	//     }
	//   },
	//   "description": "list jobs",
	//   "additionalProperties": false
	// }
}

// A caller's values never reach an option position: a value that looks like
// a flag stays glued to its option or follows "--".
func ExampleRenderArgv() {
	args := map[string]any{"status": "done", "tag": []any{"--all-stale", "a,b"}, "owner": "--help"}
	argv, err := projector.RenderArgv(projector.DialectPflag, exampleCommand(), args)
	if err != nil {
		panic(err)
	}
	fmt.Printf("%q\n", argv)

	_, err = projector.RenderArgv(projector.DialectPflag, exampleCommand(), map[string]any{"extra_args": []any{"--dry-run"}})
	fmt.Println(err)
	// Output:
	// ["--status=done" "--tag=--all-stale" "--tag=a,b" "--" "--help"]
	// projector: command "jobs list": parameter "extra_args": unknown parameter
}

func ExampleFingerprint() {
	schema, _ := projector.Project(exampleCommand())
	fp, _ := projector.Fingerprint("jobs.list", schema)
	fmt.Println(fp)

	changed := exampleCommand()
	changed.Params[1].Default = 50
	schema2, _ := projector.Project(changed)
	fp2, _ := projector.Fingerprint("jobs.list", schema2)
	fmt.Println(fp2 != fp)
	// Output:
	// sf1-7d36e9b5c9ccc9f5
	// true
}

func ExampleTree_Find() {
	tree := &projector.Tree{Commands: []*projector.Command{
		{Path: []string{}},
		{Path: []string{"schedule"}, Aliases: []string{"sched"}},
		{Path: []string{"schedule", "list"}, Aliases: []string{"ls"}},
	}}
	fmt.Println(tree.Find("sched", "ls").Path)
	fmt.Println(tree.Find("schedule", "nope") == nil)
	// Output:
	// [schedule list]
	// true
}

func ExampleInventory() {
	odd := exampleCommand()
	odd.Path = []string{"jobs", "watch"}
	odd.Params[0].Unrepresentable = &projector.Unrepresentable{Action: "pflag:ipNet", Type: "ipNet", Reason: "pflag value type ipNet is not supported"}
	tree := &projector.Tree{Program: "demo", Dialect: projector.DialectPflag, Commands: []*projector.Command{
		{Path: []string{}}, {Path: []string{"jobs"}}, exampleCommand(), odd,
		{Path: []string{"state", "migrate"}, Runnable: true},
	}}
	report := projector.Inventory(tree, &projector.InventoryOptions{Fenced: [][]string{{"state", "migrate"}}})
	_ = report.WriteText(os.Stdout)
	// Output:
	// demo (pflag): 5 command paths, 3 runnable, 2 groups
	// projects cleanly: 1 of 2 offerable commands (50%)
	// fenced (present, never offered): state migrate
	// unavailable: jobs watch
	//   - parameter status: pflag value type ipNet is not supported
	// parameters: 8
	//   by action: cobra:positional=2 pflag:int=2 pflag:string=2 pflag:stringArray=2
	//   by type: array of string=2 integer=2 string=3 unrepresentable=1
}

// A dynamic parameter's content (a playbook file's bytes) is fingerprinted
// on its own: equal bytes, equal fingerprint; any edit, a different one.
func ExampleContentFingerprint() {
	v1 := projector.ContentFingerprint([]byte("args:\n  scope: string\n"))
	v2 := projector.ContentFingerprint([]byte("args:\n  scope: string\n  depth: int\n"))
	fmt.Println(v1)
	fmt.Println(v1 == projector.ContentFingerprint([]byte("args:\n  scope: string\n")), v1 != v2)
	// Output:
	// pf1-2bab26e63167bf39
	// true true
}

// Two optional positionals, as calendar [year] [month] or copy [SRC] [DEST]:
// argv fills them left to right, so the later one is given only with the
// earlier one, and the schema says so.
func ExampleDependentRequired() {
	cmd := &projector.Command{Path: []string{"calendar"}, Runnable: true, Params: []*projector.Param{
		{Name: "year", Kind: projector.KindInteger, Arity: projector.ArityOptional},
		{Name: "month", Kind: projector.KindInteger, Arity: projector.ArityOptional},
	}}
	for _, d := range projector.DependentRequired(cmd) {
		fmt.Println(d.Name, "requires", d.Requires)
	}
	_, err := projector.RenderArgv(projector.DialectArgparse, cmd, map[string]any{"month": 3})
	fmt.Println(err)
	argv, _ := projector.RenderArgv(projector.DialectArgparse, cmd, map[string]any{"year": 2026, "month": 3})
	fmt.Println(argv)
	// Output:
	// month requires [year]
	// projector: command "calendar": parameter "month": can be given only together with "year": argv gives positionals left to right, so without "year" this value would be read as "year"
	// [-- 2026 3]
}

// Representable answers "can this command be offered?" as Project would,
// without building the schema: what a server checks every verb with at
// start.
func ExampleRepresentable() {
	fmt.Println(projector.Representable(exampleCommand()))
	net := exampleCommand()
	net.Params = append(net.Params, &projector.Param{Name: "net", Options: []string{"--net"}, Kind: projector.KindString, Arity: projector.ArityOne,
		Unrepresentable: &projector.Unrepresentable{Action: "pflag:ipNet", Type: "ipNet", Reason: "pflag value type ipNet is not supported"}})
	fmt.Println(projector.Representable(net))
	// Output:
	// <nil>
	// projector: command "jobs list": parameter "net" (action pflag:ipNet, type ipNet): pflag value type ipNet is not supported; command unavailable
}
