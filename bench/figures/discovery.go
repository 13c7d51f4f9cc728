//go:build unix

package main

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/verbsurface/verbsurface/bench/internal/synth"
	"github.com/verbsurface/verbsurface/verbsurface"
)

// discovery measures, for each size of the synthetic CLI, what an agent
// reads on the wire before its first correct op on one named task (run the
// last command, "synthetic command number N-1"), four ways:
//
//   - one tool per command (the shape of bridges that register a tool for
//     each command): the tools/list answer with every command's schema;
//   - the flat catalog (help before the budget): the whole catalog, then
//     the verb's help;
//   - by namespace: the catalog's pages until the verb's namespace shows,
//     that namespace's listing, then the verb's help;
//   - by search: one search, then the verb's help.
//
// A request's bytes are its JSON-RPC message; an answer's are the JSON-RPC
// result as the SDK writes it (the tool result carries the response twice,
// as text and as structured content). The op itself is the same every way
// and is not counted.
func discovery(ctx context.Context, sizes []int) (*table, error) {
	t := &table{title: "discovery: bytes on the wire before the first correct op, one named task (synthetic CLI, in process)"}
	t.add("commands", fmt.Sprintf("%-14s %-14s %-18s %s", "tool per cmd", "flat catalog", "by namespace", "by search"), "")
	for _, n := range sizes {
		tree, err := synth.Walk(n)
		if err != nil {
			return nil, err
		}
		reg, err := synth.Registry(tree)
		if err != nil {
			return nil, err
		}
		runner := verbsurface.RunnerFunc(func(context.Context, []string) (json.RawMessage, error) { return json.RawMessage(`{}`), nil })
		surface := func(budget int) (*verbsurface.Surface, error) {
			return verbsurface.New(reg, &verbsurface.Options{Source: verbsurface.StaticTree(tree), Runner: runner,
				Machine: verbsurface.Machine{Args: []string{"--json"}}, HelpBudget: budget})
		}
		flat, err := surface(-1)
		if err != nil {
			return nil, err
		}
		budgeted, err := surface(0)
		if err != nil {
			return nil, err
		}
		group := strconv.Itoa((n - 1) / synth.GroupSize)
		verb := "g" + group + ".c" + strconv.Itoa(n-1)
		phrase := "synthetic command number " + strconv.Itoa(n-1)

		perCommand, err := toolPerCommand(ctx, flat, reg)
		if err != nil {
			return nil, err
		}
		flatBytes := wireCall(ctx, flat, `{"help":true}`) + wireCall(ctx, flat, `{"help":"`+verb+`"}`)

		// By namespace: read the catalog page by page until the namespace
		// of the verb is named (or its line is), then list it, then help.
		nsBytes, asked := 0, 0
		req := `{"help":true}`
		for page := 2; ; page++ {
			nsBytes += wireCall(ctx, budgeted, req)
			asked++
			c := catalogOf(ctx, budgeted, req)
			if c == nil {
				return nil, fmt.Errorf("discovery: %s answered no catalog", req)
			}
			if containsPrefix(c.Namespaces, "g"+group+".*") || containsPrefix(c.Verbs, verb+"(") || c.Pages < page {
				break
			}
			req = fmt.Sprintf(`{"help":{"list":"*","page":"%d"}}`, page)
		}
		if c := catalogOf(ctx, budgeted, `{"help":true}`); c != nil && len(c.Namespaces) > 0 {
			nsBytes += wireCall(ctx, budgeted, `{"help":"g`+group+`.*"}`)
			asked++
		}
		nsBytes += wireCall(ctx, budgeted, `{"help":"`+verb+`"}`)
		asked++

		searchBytes := wireCall(ctx, budgeted, `{"help":{"search":"`+phrase+`"}}`) + wireCall(ctx, budgeted, `{"help":"`+verb+`"}`)
		if top := searchTop(ctx, budgeted, phrase); top != verb {
			return nil, fmt.Errorf("discovery: search %q found %q first, not %s", phrase, top, verb)
		}
		t.add(strconv.Itoa(n), fmt.Sprintf("%-14s %-14s %-18s %s", kb(perCommand), kb(flatBytes),
			fmt.Sprintf("%s (%d requests)", kb(nsBytes), asked), kb(searchBytes)+" (2 requests)"), "")
	}
	return t, nil
}

// wireCall is the bytes of one tools/call of the request tool: the
// JSON-RPC request and the JSON-RPC answer as the SDK writes them.
func wireCall(ctx context.Context, s *verbsurface.Surface, args string) int {
	req := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"request","arguments":` + args + `}}`
	res := verbsurface.ToolResult(s.Handle(ctx, json.RawMessage(args), nil))
	b, err := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 1, "result": res})
	if err != nil {
		return 0
	}
	return len(req) + len(b)
}

type catalogAnswer struct {
	Verbs      []string `json:"verbs"`
	Namespaces []string `json:"namespaces"`
	Pages      int      `json:"pages"`
}

func catalogOf(ctx context.Context, s *verbsurface.Surface, args string) *catalogAnswer {
	var c catalogAnswer
	resp := s.Handle(ctx, json.RawMessage(args), nil)
	b, _ := json.Marshal(resp.Help)
	if json.Unmarshal(b, &c) != nil {
		return nil
	}
	return &c
}

func searchTop(ctx context.Context, s *verbsurface.Surface, phrase string) string {
	c := catalogOf(ctx, s, `{"help":{"search":"`+phrase+`"}}`)
	if c == nil || len(c.Verbs) == 0 {
		return ""
	}
	name, _, _ := strings.Cut(c.Verbs[0], "(")
	return name
}

func containsPrefix(lines []string, prefix string) bool {
	for _, l := range lines {
		if strings.HasPrefix(l, prefix) {
			return true
		}
	}
	return false
}

// toolPerCommand is the tools/list request and answer of a server with
// one tool per command: each named for its verb, described by its
// summary, with its projected schema as the input schema.
func toolPerCommand(ctx context.Context, s *verbsurface.Surface, reg *verbsurface.Registry) (int, error) {
	var tools []*mcp.Tool
	for _, name := range reg.Verbs() {
		var h struct {
			Summary string          `json:"summary"`
			Schema  json.RawMessage `json:"schema"`
		}
		resp := s.Handle(ctx, json.RawMessage(`{"help":`+strconv.Quote(name)+`}`), nil)
		b, _ := json.Marshal(resp.Help)
		if err := json.Unmarshal(b, &h); err != nil || len(h.Schema) == 0 {
			return 0, fmt.Errorf("discovery: no schema for %s", name)
		}
		tools = append(tools, &mcp.Tool{Name: name, Description: h.Summary, InputSchema: h.Schema})
	}
	b, err := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 1, "result": &mcp.ListToolsResult{Tools: tools}})
	if err != nil {
		return 0, err
	}
	return len(`{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{}}`) + len(b), nil
}

func kb(n int) string {
	if n < 10<<10 {
		return fmt.Sprintf("%.1f KB", float64(n)/1024)
	}
	return fmt.Sprintf("%.0f KB", float64(n)/1024)
}
