package verbsurface_test

import (
	"context"
	"encoding/json"
	"fmt"
	"log"
	"os"
	"path/filepath"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/verbsurface/verbsurface/projector"
	"github.com/verbsurface/verbsurface/verbsurface"
)

// exampleTree is a two-command CLI's parser model, as a walker would
// produce it with the machine-mode flag --json excluded.
func exampleTree() *projector.Tree {
	return &projector.Tree{Program: "jobs", Dialect: projector.DialectPflag, Commands: []*projector.Command{
		{Path: []string{}, Params: []*projector.Param{}},
		{Path: []string{"job"}, Summary: "jobs", Params: []*projector.Param{}},
		{Path: []string{"job", "status"}, Summary: "show one job's status", Runnable: true, Excluded: []string{"--json"}, Params: []*projector.Param{
			{Name: "id", Kind: projector.KindString, Arity: projector.ArityOne, Required: true, Action: "cobra:positional"},
			{Name: "verbose", Options: []string{"--verbose"}, Kind: projector.KindBoolean, Arity: projector.ArityNone, FlagValue: true, Action: "pflag:bool", Type: "bool"},
		}},
		{Path: []string{"job", "start"}, Summary: "start a job", Runnable: true, Excluded: []string{"--json"}, Params: []*projector.Param{
			{Name: "name", Options: []string{"--name"}, Kind: projector.KindString, Arity: projector.ArityOne, Required: true, Action: "pflag:string", Type: "string"},
		}},
	}}
}

// echoExec stands in for dispatch.Runner: it prints the argv it was asked
// to run and returns it as the command's data.
var echoExec = verbsurface.RunnerFunc(func(_ context.Context, argv []string) (json.RawMessage, error) {
	fmt.Println("run:", strings.Join(argv, " "))
	return json.Marshal(map[string]any{"argv": argv})
})

func exampleSurface(opts verbsurface.Options) *verbsurface.Surface {
	reg, err := verbsurface.NewRegistry(nil)
	if err != nil {
		log.Fatal(err)
	}
	for _, v := range []verbsurface.Verb{
		{Name: "job.status", Class: verbsurface.ClassObserve, Path: []string{"job", "status"}, Summary: "show one job's status", Synonyms: []string{"job_status"}},
		{Name: "job.start", Class: verbsurface.ClassSpawn, Path: []string{"job", "start"}, Summary: "start a job"},
	} {
		if err := reg.Register(v); err != nil {
			log.Fatal(err)
		}
	}
	if opts.Source == nil {
		opts.Source = verbsurface.StaticTree(exampleTree())
	}
	if opts.Runner == nil {
		opts.Runner = echoExec
	}
	s, err := verbsurface.New(reg, &opts)
	if err != nil {
		log.Fatal(err)
	}
	return s
}

// The whole embedding: a registry, a surface, the one tool on a server, and
// a client calling it.
func Example() {
	surface := exampleSurface(verbsurface.Options{Machine: verbsurface.Machine{Args: []string{"--json"}}})
	server := mcp.NewServer(&mcp.Implementation{Name: "jobs", Version: "v1"}, nil)
	verbsurface.AddRequestTool(server, surface)

	ctx := context.Background()
	st, ct := mcp.NewInMemoryTransports()
	if _, err := server.Connect(ctx, st, nil); err != nil {
		log.Fatal(err)
	}
	client := mcp.NewClient(&mcp.Implementation{Name: "agent", Version: "v1"}, nil)
	cs, err := client.Connect(ctx, ct, nil)
	if err != nil {
		log.Fatal(err)
	}
	defer cs.Close()
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "request", Arguments: map[string]any{
		"ops": []any{map[string]any{"op": "job.status", "args": map[string]any{"id": "--all"}}}}})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(res.Content[0].(*mcp.TextContent).Text)
	// Output:
	// run: job status --json -- --all
	// {"status":"success","results":[{"ok":true,"op":"job.status","class":"observe","result":{"argv":["job","status","--json","--","--all"]}}]}
}

func ExampleNewRegistry() {
	// A CLI whose only privileged command is "db drop".
	reg, err := verbsurface.NewRegistry(&verbsurface.RegistryOptions{Fence: [][]string{{"db", "drop"}}})
	if err != nil {
		log.Fatal(err)
	}
	err = reg.Register(verbsurface.Verb{Name: "db.reset", Class: verbsurface.ClassControl, Path: []string{"DB", "Drop"}})
	fmt.Println(err)
	// Output:
	// verbsurface: register "db.reset": command path "DB Drop" is fenced (db drop): a human-at-a-terminal operation is never a verb
}

func ExampleRegistry_Register() {
	reg, _ := verbsurface.NewRegistry(nil)
	fmt.Println(reg.Register(verbsurface.Verb{Name: "job.status", Class: verbsurface.ClassObserve,
		Path: []string{"job", "status"}, Summary: "show one job's status", Synonyms: []string{"job_status"}}))
	fmt.Println(reg.Register(verbsurface.Verb{Name: "store.migrate", Class: verbsurface.ClassControl, Path: []string{"state", "migrate"}}))
	fmt.Println(reg.Verbs())
	// Output:
	// <nil>
	// verbsurface: register "store.migrate": command path "state migrate" is fenced (state migrate): a human-at-a-terminal operation is never a verb
	// [job.status]
}

func ExampleNew() {
	surface := exampleSurface(verbsurface.Options{Machine: verbsurface.Machine{Args: []string{"--json"}}, MaxOps: 2})
	fmt.Println(strings.Contains(string(surface.EnvelopeSchema()), `"maxItems":2`))
	resp := surface.Handle(context.Background(), json.RawMessage(`{"ops":[{"op":"a"},{"op":"b"},{"op":"c"}]}`), nil)
	fmt.Println(string(resp.JSON()))
	// Output:
	// true
	// {"status":"error","error":{"code":"batch_too_large","message":"3 ops given; a request holds at most 2: split them across requests","limit":2}}
}

func ExampleSurface_Handle() {
	surface := exampleSurface(verbsurface.Options{})
	resp := surface.Handle(context.Background(), json.RawMessage(`{"help":true}`), nil)
	fmt.Println(string(resp.JSON()))

	// A spawn op without its fingerprint teaches the fix: the schema, the
	// fingerprint and the request that fetches them.
	resp = surface.Handle(context.Background(), json.RawMessage(`{"ops":[{"op":"job.start","args":{"nmae":"x"}}]}`), nil)
	e := resp.Results[0].Error
	fmt.Println(resp.Status, e.Code, e.Problems[0].Param, e.Problems[1].Param, e.SchemaFingerprint != "", mustMarshal(e.HelpCall))
	// Output:
	// {"status":"success","help":{"verbs":["job.status(id, +1) — show one job's status","job.start(name) — start a job"],"next":"{\"help\":\"VERB\"} gives a verb's schema and fingerprint"}}
	// error invalid_args nmae name true {"help":"job.start"}
}

func mustMarshal(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		log.Fatal(err)
	}
	return string(b)
}

func ExampleAddRequestTool() {
	server := mcp.NewServer(&mcp.Implementation{Name: "jobs", Version: "v1"}, nil)
	verbsurface.AddRequestTool(server, exampleSurface(verbsurface.Options{}))
	ctx := context.Background()
	st, ct := mcp.NewInMemoryTransports()
	if _, err := server.Connect(ctx, st, nil); err != nil {
		log.Fatal(err)
	}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "agent", Version: "v1"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		log.Fatal(err)
	}
	defer cs.Close()
	tools, err := cs.ListTools(ctx, nil)
	if err != nil {
		log.Fatal(err)
	}
	for _, tool := range tools.Tools {
		fmt.Println(tool.Name, len(mustMarshal(tool)) < 1024)
	}
	// Output:
	// request true
}

func ExampleSurface_Tool() {
	// The tool is the same whatever the registry holds: a name, a short
	// description and the envelope's schema, never a verb.
	tool := exampleSurface(verbsurface.Options{}).Tool()
	fmt.Println(tool.Name)
	fmt.Println(tool.Description)
	// Output:
	// request
	// Run this CLI's verbs. {"help":true} lists verbs; {"help":{"search":WORDS}} finds them; {"help":"VERB"}: its schema and fingerprint. {"ops":[{"op":VERB,"args":{...},"fingerprint":FP}]} runs ops in order ("dry_run":true: only judged); spawn verbs need the fingerprint. Errors say how to fix.
}

func ExampleToolResult() {
	resp := exampleSurface(verbsurface.Options{}).Handle(context.Background(), json.RawMessage(`{"opz":[]}`), nil)
	res := verbsurface.ToolResult(resp)
	fmt.Println(res.IsError, resp.Error.Code, resp.Error.Problems[0].Param)
	// Output:
	// true malformed_envelope opz
}

func ExampleStaticTree() {
	src := verbsurface.StaticTree(exampleTree())
	t, _ := src(context.Background())
	fmt.Println(t.Program, len(t.Commands))
	// Output:
	// jobs 4
}

func ExampleCacheByFile() {
	dir, err := os.MkdirTemp("", "example")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	exe := filepath.Join(dir, "jobs")
	if err := os.WriteFile(exe, []byte("#!/bin/sh\n"), 0o755); err != nil {
		log.Fatal(err)
	}
	walks := 0
	src := verbsurface.CacheByFile(exe, func(context.Context) (*projector.Tree, error) {
		walks++ // in real use: run the CLI's walker
		return exampleTree(), nil
	})
	for range 3 {
		if _, err := src(context.Background()); err != nil {
			log.Fatal(err)
		}
	}
	fmt.Println("walks:", walks)
	// Output:
	// walks: 1
}

func ExampleCompileValidator() {
	var schema jsonschema.Schema
	if err := json.Unmarshal([]byte(`{"type":"object","properties":{
		"count":{"type":"integer","minimum":1},
		"mode":{"type":"string","enum":["fast","safe"]}},
		"required":["count"],"additionalProperties":false}`), &schema); err != nil {
		log.Fatal(err)
	}
	v, err := verbsurface.CompileValidator(&schema)
	if err != nil {
		log.Fatal(err)
	}
	for _, p := range v.Validate(map[string]any{"count": 0.0, "mode": "FAST", "--all": true}) {
		fmt.Printf("%s %s: %s\n", p.Param, p.Rule, p.Reason)
	}
	fmt.Println(len(v.Validate(map[string]any{"count": 3.0})))
	// Output:
	// --all unknown_parameter: unknown parameter "--all": this verb has no such parameter (names are exact; see the schema)
	// count below_minimum: "count" is 0, below the minimum 1
	// mode not_in_choices: "mode" is "FAST", not one of the choices ["fast","safe"]
	// 0
}

func ExampleReadOnly() {
	surface := exampleSurface(verbsurface.Options{Policy: verbsurface.ReadOnly})
	resp := surface.Handle(context.Background(), json.RawMessage(`{"ops":[{"op":"job.start","args":{"name":"x"}},{"op":"job.status","args":{"id":"7"}}]}`), nil)
	for _, r := range resp.Results {
		if r.OK {
			fmt.Println(r.Op, r.Class, "ran")
		} else {
			fmt.Println(r.Op, r.Class, r.Error.Code+":", r.Error.Message)
		}
	}
	// Output:
	// run: job status -- 7
	// job.start spawn policy_refused: the surface's policy refused job.start: this surface is read-only: job.start is a spawn verb and only observe verbs may run
	// job.status observe ran
}

func ExampleCodes() {
	fmt.Println(len(verbsurface.Codes()), verbsurface.Codes()[:3])
	// Output:
	// 25 [malformed_envelope batch_too_large response_too_large]
}
