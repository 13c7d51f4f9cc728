//go:build unix

package verbsurface

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/verbsurface/verbsurface/projector"
)

// nestedSurface is a surface of n verbs named like a large CLI's: groups
// of 50 in families of ten groups ("f1.g12.c600"), each group and family
// a command with its own summary, so the catalog has namespaces two deep.
func nestedSurface(t testing.TB, n int, opts Options) (*Surface, *int) {
	t.Helper()
	tree := &projector.Tree{Program: "big", Dialect: projector.DialectPflag}
	tree.Commands = append(tree.Commands, &projector.Command{Path: []string{}, Params: []*projector.Param{}})
	reg, err := NewRegistry(nil)
	if err != nil {
		t.Fatal(err)
	}
	made := map[string]bool{}
	for i := range n {
		f, g, c := fmt.Sprintf("f%d", i/500), fmt.Sprintf("g%d", i/50), fmt.Sprintf("c%d", i)
		if !made[f] {
			made[f] = true
			tree.Commands = append(tree.Commands, &projector.Command{Path: []string{f}, Summary: "family " + f + " of commands"})
		}
		if !made[f+" "+g] {
			made[f+" "+g] = true
			tree.Commands = append(tree.Commands, &projector.Command{Path: []string{f, g}, Summary: "group " + g + " of family " + f})
		}
		tree.Commands = append(tree.Commands, &projector.Command{Path: []string{f, g, c}, Runnable: true,
			Summary: fmt.Sprintf("synthetic command number %d, one of many alike", i),
			Params: []*projector.Param{
				{Name: "name", Options: []string{"--name"}, Kind: projector.KindString, Arity: projector.ArityOne, Required: true, Action: "pflag:string", Type: "string", Help: "the thing's name"},
				{Name: "count", Options: []string{"--count"}, Kind: projector.KindInteger, Arity: projector.ArityOne, Action: "pflag:int", Type: "int", Help: "how many times"},
			}})
		if err := reg.Register(Verb{Name: f + "." + g + "." + c, Class: ClassObserve, Path: []string{f, g, c}}); err != nil {
			t.Fatal(err)
		}
	}
	runs := new(int)
	opts.Source = StaticTree(tree)
	opts.Runner = RunnerFunc(func(context.Context, []string) (json.RawMessage, error) {
		*runs++
		return json.RawMessage(`{}`), nil
	})
	s, err := New(reg, &opts)
	if err != nil {
		t.Fatal(err)
	}
	return s, runs
}

func helpOf(t testing.TB, s *Surface, help string) (raw []byte, answer map[string]any) {
	t.Helper()
	resp := s.Handle(context.Background(), json.RawMessage(`{"help":`+help+`}`), nil)
	var m map[string]any
	if err := json.Unmarshal(resp.JSON(), &m); err != nil {
		t.Fatal(err)
	}
	h, _ := m["help"].(map[string]any)
	raw, err := json.Marshal(resp.Help)
	if err != nil {
		t.Fatal(err)
	}
	return raw, h
}

func strs(x any) []string {
	var out []string
	for _, e := range anySlice(x) {
		s, _ := e.(string)
		out = append(out, s)
	}
	return out
}

func anySlice(x any) []any {
	a, _ := x.([]any)
	return a
}

// verbOfLine is the verb a catalog line starts with.
func verbOfLine(line string) string {
	name, _, _ := strings.Cut(line, "(")
	name, _, _ = strings.Cut(name, " ")
	return name
}

// TestCatalogByNamespaceReachesEveryVerbWithinBudget walks the catalog of
// 5,000 verbs as an agent would, following only what each answer says
// (namespace lines and the next page), and finds every verb exactly once,
// with no answer over the budget.
func TestCatalogByNamespaceReachesEveryVerbWithinBudget(t *testing.T) {
	for _, budget := range []int{0, 2048} {
		t.Run(fmt.Sprintf("budget %d", budget), func(t *testing.T) {
			s, _ := nestedSurface(t, 5000, Options{HelpBudget: budget})
			want := s.helpBudget()
			seen := map[string]int{}
			queue := []string{`true`}
			asked := 0
			for len(queue) > 0 {
				q := queue[0]
				queue = queue[1:]
				asked++
				raw, h := helpOf(t, s, q)
				if len(raw) > want {
					t.Fatalf("help %s: %d bytes, over the %d-byte budget", q, len(raw), want)
				}
				if h["error"] != nil {
					t.Fatalf("help %s: %s", q, raw)
				}
				for _, line := range strs(h["verbs"]) {
					seen[verbOfLine(line)]++
				}
				for _, line := range strs(h["namespaces"]) {
					ns, _, _ := strings.Cut(line, " ")
					queue = append(queue, quote(ns))
				}
				if page, _ := h["page"].(float64); page > 0 && page < h["pages"].(float64) {
					list := h["namespace"]
					if list == nil {
						list = "*"
					}
					queue = append(queue, fmt.Sprintf(`{"list":%q,"page":"%d"}`, list, int(page)+1))
					if !strings.Contains(h["next"].(string), fmt.Sprintf(`"page":"%d"`, int(page)+1)) {
						t.Errorf("help %s: next does not say how to reach page %d: %s", q, int(page)+1, h["next"])
					}
				}
			}
			if len(seen) != 5000 {
				t.Fatalf("reached %d of 5000 verbs in %d answers", len(seen), asked)
			}
			for v, n := range seen {
				if n != 1 {
					t.Errorf("%s listed %d times", v, n)
				}
			}
			t.Logf("budget %d: every verb reached in %d help answers", want, asked)
		})
	}
}

func TestCatalogFlatWhileItFits(t *testing.T) {
	s, _ := nestedSurface(t, 40, Options{})
	raw, h := helpOf(t, s, `true`)
	if len(strs(h["verbs"])) != 40 || h["namespaces"] != nil || h["total"] != nil {
		t.Fatalf("40 verbs fit the budget but the catalog is not flat: %s", raw)
	}
	s, _ = nestedSurface(t, 1200, Options{})
	raw, h = helpOf(t, s, `true`)
	if len(strs(h["verbs"])) != 0 || len(strs(h["namespaces"])) != 3 || h["total"] != float64(1200) {
		t.Fatalf("1,200 verbs do not fit: want 3 family namespaces and a total: %s", raw)
	}
	first := strs(h["namespaces"])[0]
	if want := "f0.* — 500 verbs: g0.c0, g0.c1, g0.c2, … — family f0 of commands"; first != want {
		t.Errorf("namespace line %q, want %q", first, want)
	}
	if !strings.Contains(h["next"].(string), `{"help":"NS.*"}`) || !strings.Contains(h["next"].(string), `"search"`) {
		t.Errorf("next does not say how to list a namespace and search: %s", h["next"])
	}
	// Unbudgeted: the flat catalog of old, however large.
	s, _ = nestedSurface(t, 1200, Options{HelpBudget: -1})
	if _, h := helpOf(t, s, `true`); len(strs(h["verbs"])) != 1200 {
		t.Errorf("HelpBudget -1 must answer the whole catalog, got %d lines", len(strs(h["verbs"])))
	}
}

func TestNamespaceListing(t *testing.T) {
	s, _ := nestedSurface(t, 5000, Options{})
	_, h := helpOf(t, s, `"f3.*"`)
	lines := strs(h["namespaces"])
	if h["namespace"] != "f3.*" || h["total"] != float64(500) || len(lines) != 10 {
		t.Fatalf("f3.*: %v", h)
	}
	if want := "f3.g30.* — 50 verbs: c1500, c1501, c1502, … — group g30 of family f3"; lines[0] != want {
		t.Errorf("sub-namespace line %q, want %q", lines[0], want)
	}
	_, bare := helpOf(t, s, `"f3"`)
	if bare["namespace"] != "f3.*" {
		t.Errorf(`help "f3" (no verb of that name) must list the namespace, got %v`, bare)
	}
	_, leaf := helpOf(t, s, `"f3.g30.*"`)
	if got := strs(leaf["verbs"]); len(got) != 50 || !strings.HasPrefix(got[0], "f3.g30.c1500(name, +1) — synthetic command number 1500") {
		t.Errorf("f3.g30.*: %v", leaf)
	}
	raw, bad := helpOf(t, s, `"f33.*"`)
	e, _ := bad["error"].(map[string]any)
	if e == nil || e["code"] != CodeUnknownVerb || !strings.Contains(e["message"].(string), `"f3.*"`) {
		t.Errorf("an unknown namespace must be unknown_verb naming close ones: %s", raw)
	}
	raw, bad = helpOf(t, s, `{"list":"f3.*","page":"2"}`)
	if e, _ := bad["error"].(map[string]any); e == nil || !strings.Contains(e["message"].(string), "page 2 does not exist") {
		t.Errorf("a page past the last must say so: %s", raw)
	}
}

func TestHelpObjectFormsAreJudgedByHelp(t *testing.T) {
	s, runs := nestedSurface(t, 10, Options{})
	for _, tt := range []struct{ help, param, rule string }{
		{`{"playbook":"audit"}`, "help.verb", RuleMissingRequired},
		{`{"search":"x","limit":"3"}`, "help.limit", RuleUnknownParameter},
		{`{"search":"  "}`, "help.search", RuleWrongType},
		{`{"search":"` + strings.Repeat("w ", 300) + `"}`, "help.search", RuleWrongType},
		{`{"list":"f1","page":"1"}`, "help.list", RuleWrongType},
		{`{"list":"f1.*","page":"0"}`, "help.page", RuleWrongType},
		{`{"list":"f1.*","x":"1"}`, "help.x", RuleUnknownParameter},
	} {
		raw, h := helpOf(t, s, tt.help)
		e, _ := h["error"].(map[string]any)
		if e == nil || e["code"] != CodeInvalidArgs {
			t.Errorf("help %s: want invalid_args, got %s", tt.help, raw)
			continue
		}
		p := anySlice(e["problems"])[0].(map[string]any)
		if p["param"] != tt.param || p["rule"] != tt.rule {
			t.Errorf("help %s: first problem %v, want %s %s", tt.help, p, tt.param, tt.rule)
		}
	}
	if *runs != 0 {
		t.Errorf("help ran %d commands", *runs)
	}
}

func TestSearchFindsByNameSummaryAndParams(t *testing.T) {
	s, _ := nestedSurface(t, 1000, Options{})
	raw, h := helpOf(t, s, `{"search":"synthetic command number 432"}`)
	got := strs(h["verbs"])
	if len(got) == 0 || verbOfLine(got[0]) != "f0.g8.c432" {
		t.Fatalf("search: want f0.g8.c432 first, got %s", raw)
	}
	if len(got) != DefaultSearchResults || len(raw) > DefaultHelpBudget {
		t.Errorf("search answered %d lines in %d bytes", len(got), len(raw))
	}
	_, h = helpOf(t, s, `{"search":"zzyzx quux"}`)
	if len(strs(h["verbs"])) != 0 || !strings.Contains(h["next"].(string), "no verb matched") {
		t.Errorf("a search matching nothing must say so: %v", h)
	}
	// The index follows the tree: a source that changes is searched as it
	// is now.
	small, _ := nestedSurface(t, 3, Options{SearchResults: 2})
	_, h = helpOf(t, small, `{"search":"command number 2"}`)
	if got := strs(h["verbs"]); len(got) != 2 || verbOfLine(got[0]) != "f0.g0.c2" {
		t.Errorf("SearchResults 2: %v", got)
	}
}

func TestSearchConcurrentWithRebuild(t *testing.T) {
	tree := func(summary string) *projector.Tree {
		return &projector.Tree{Program: "p", Dialect: projector.DialectPflag, Commands: []*projector.Command{
			{Path: []string{}, Params: []*projector.Param{}},
			{Path: []string{"a"}, Runnable: true, Summary: summary, Params: []*projector.Param{}},
			{Path: []string{"b"}, Runnable: true, Summary: "other", Params: []*projector.Param{}}}}
	}
	var n atomicCounter
	reg, _ := NewRegistry(nil)
	_ = reg.Register(Verb{Name: "x.a", Class: ClassObserve, Path: []string{"a"}})
	_ = reg.Register(Verb{Name: "x.b", Class: ClassObserve, Path: []string{"b"}})
	s, err := New(reg, &Options{Source: func(context.Context) (*projector.Tree, error) {
		if n.add()%2 == 0 {
			return tree("apples"), nil
		}
		return tree("pears"), nil
	}, Runner: RunnerFunc(func(context.Context, []string) (json.RawMessage, error) { return nil, nil })})
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	for range 8 {
		go func() {
			defer func() { done <- struct{}{} }()
			for range 20 {
				resp := s.Handle(context.Background(), json.RawMessage(`{"help":{"search":"apples pears"}}`), nil)
				if resp.Status != StatusSuccess {
					t.Errorf("search failed: %s", resp.JSON())
					return
				}
			}
		}()
	}
	for range 8 {
		<-done
	}
}

func TestVerbHelpSaysWhenOverBudget(t *testing.T) {
	tree := &projector.Tree{Program: "p", Dialect: projector.DialectPflag, Commands: []*projector.Command{
		{Path: []string{}, Params: []*projector.Param{}}}}
	var choices []any
	for i := range 400 {
		choices = append(choices, fmt.Sprintf("choice-number-%04d", i))
	}
	tree.Commands = append(tree.Commands, &projector.Command{Path: []string{"pick"}, Runnable: true, Params: []*projector.Param{
		{Name: "what", Options: []string{"--what"}, Kind: projector.KindString, Arity: projector.ArityOne, Choices: choices, Action: "pflag:string", Type: "string"}}})
	reg, _ := NewRegistry(nil)
	_ = reg.Register(Verb{Name: "pick", Class: ClassObserve, Path: []string{"pick"}})
	s, err := New(reg, &Options{Source: StaticTree(tree), Runner: RunnerFunc(func(context.Context, []string) (json.RawMessage, error) { return nil, nil })})
	if err != nil {
		t.Fatal(err)
	}
	raw, h := helpOf(t, s, `"pick"`)
	if len(raw) <= DefaultHelpBudget {
		t.Fatalf("the fixture's schema is only %d bytes", len(raw))
	}
	schema, _ := h["schema"].(map[string]any)
	props, _ := schema["properties"].(map[string]any)
	what, _ := props["what"].(map[string]any)
	if len(anySlice(what["enum"])) != 400 {
		t.Errorf("an oversize schema was cut: %d choices", len(anySlice(what["enum"])))
	}
	if o, _ := h["oversize"].(string); !strings.Contains(o, "over the 8192-byte help budget") {
		t.Errorf("an oversize schema must say so: oversize %q", o)
	}
	_, small := helpOf(t, s, `true`)
	if small["oversize"] != nil {
		t.Errorf("a catalog within budget says oversize")
	}
}

func TestNamespaceSummaryFromTheGroupCommand(t *testing.T) {
	s, _ := nestedSurface(t, 1000, Options{HelpBudget: 1024})
	raw, h := helpOf(t, s, `"f0.*"`)
	lines := strs(h["namespaces"])
	for _, line := range lines {
		if !strings.Contains(line, "— group g") {
			t.Errorf("namespace line without its group's summary: %q", line)
		}
	}
	if h["page"] != float64(1) || h["pages"].(float64) < 2 || len(raw) > 1024 {
		t.Fatalf("a 1 KiB budget must page f0.* within it: %d bytes, %s", len(raw), raw)
	}
	if slices.Contains(lines, "") {
		t.Errorf("empty namespace line")
	}
}

type atomicCounter struct{ n atomic.Int64 }

func (c *atomicCounter) add() int64 { return c.n.Add(1) }

// TestTaskPhraseToOpWithinThreeRequests: at 5,000 verbs, an agent that
// knows only a task phrase reaches a correct op in three requests (search,
// the verb's help, the op) and under 16 KB on the wire, counted from what
// a real go-sdk client session carried both ways.
func TestTaskPhraseToOpWithinThreeRequests(t *testing.T) {
	s, runs := nestedSurface(t, 5000, Options{})
	wire := &syncBuffer{}
	cs := session(t, s, wire, nil)
	ctx := context.Background()
	call := func(args string) map[string]any {
		t.Helper()
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: ToolName, Arguments: json.RawMessage(args)})
		if err != nil {
			t.Fatal(err)
		}
		var m map[string]any
		if err := json.Unmarshal([]byte(res.Content[0].(*mcp.TextContent).Text), &m); err != nil {
			t.Fatal(err)
		}
		return m
	}
	before := len(wire.String())
	found := strs(call(`{"help":{"search":"run synthetic command number 4321"}}`)["help"].(map[string]any)["verbs"])
	if len(found) == 0 || verbOfLine(found[0]) != "f8.g86.c4321" {
		t.Fatalf("search: %v", found)
	}
	verb := verbOfLine(found[0])
	h := call(`{"help":` + quote(verb) + `}`)["help"].(map[string]any)
	op := call(`{"ops":[{"op":` + quote(verb) + `,"args":{"name":"disk"}}]}`)
	if r := result(t, op, 0); r["ok"] != true || *runs != 1 {
		t.Fatalf("the op: %v (schema %v)", r, h["schema"])
	}
	bytes := len(wire.String()) - before
	t.Logf("task phrase to a correct op at 5,000 verbs: 3 requests, %d bytes on the wire", bytes)
	if bytes > 16<<10 {
		t.Errorf("%d bytes on the wire, over 16 KB", bytes)
	}
}
