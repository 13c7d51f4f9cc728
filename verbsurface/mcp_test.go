//go:build unix

package verbsurface

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/verbsurface/verbsurface/projector"
)

// session connects a real go-sdk client to a server carrying s's tool over
// in-memory transports. wire, when set, receives every message the server
// writes, one "write: {...}" line each.
func session(t testing.TB, s *Surface, wire *syncBuffer, copts *mcp.ClientOptions) *mcp.ClientSession {
	t.Helper()
	server := mcp.NewServer(&mcp.Implementation{Name: "fixture", Version: "v0.0.1"}, nil)
	AddRequestTool(server, s)
	client := mcp.NewClient(&mcp.Implementation{Name: "test-client", Version: "v0.0.1"}, copts)
	st, ct := mcp.NewInMemoryTransports()
	var serverTransport mcp.Transport = st
	if wire != nil {
		serverTransport = &mcp.LoggingTransport{Transport: st, Writer: wire}
	}
	ctx := context.Background()
	ss, err := server.Connect(ctx, serverTransport, nil)
	if err != nil {
		t.Fatal(err)
	}
	cs, err := client.Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cs.Close()
		ss.Wait()
	})
	return cs
}

type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// call sends one request through the client and returns the decoded
// structured content, checking that the text content carries the very
// same object as compact JSON.
func call(t testing.TB, cs *mcp.ClientSession, args any) (map[string]any, *mcp.CallToolResult) {
	t.Helper()
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: ToolName, Arguments: args})
	if err != nil {
		t.Fatalf("CallTool: %v (a protocol error; the surface must answer with a tool result)", err)
	}
	if len(res.Content) != 1 {
		t.Fatalf("want one content item, got %d", len(res.Content))
	}
	text, ok := res.Content[0].(*mcp.TextContent)
	if !ok {
		t.Fatalf("content is %T, want text", res.Content[0])
	}
	var compact bytes.Buffer
	if err := json.Compact(&compact, []byte(text.Text)); err != nil || compact.String() != text.Text {
		t.Errorf("text content is not compact JSON: %q", text.Text)
	}
	var fromText map[string]any
	if err := json.Unmarshal([]byte(text.Text), &fromText); err != nil {
		t.Fatal(err)
	}
	if mustJSON(t, res.StructuredContent) != mustJSON(t, fromText) {
		t.Errorf("structured and text content differ:\n%s\n%s", mustJSON(t, res.StructuredContent), text.Text)
	}
	return fromText, res
}

// syntheticSurface registers n verbs over a synthetic tree.
func syntheticSurface(t testing.TB, n int) *Surface {
	t.Helper()
	tree := &projector.Tree{Program: "synth", Dialect: projector.DialectPflag}
	tree.Commands = append(tree.Commands, &projector.Command{Path: []string{}, Params: []*projector.Param{}})
	reg, err := NewRegistry(nil)
	if err != nil {
		t.Fatal(err)
	}
	for i := range n {
		name := fmt.Sprintf("cmd%03d", i)
		tree.Commands = append(tree.Commands, &projector.Command{Path: []string{name}, Runnable: true, Summary: "synthetic command " + name,
			Params: []*projector.Param{
				{Name: "id", Kind: projector.KindString, Arity: projector.ArityOne, Required: true, Action: "cobra:positional"},
				{Name: "limit", Options: []string{"--limit"}, Kind: projector.KindInteger, Arity: projector.ArityOne, Action: "pflag:int", Type: "int"},
			}})
		if err := reg.Register(Verb{Name: "synth." + name, Class: ClassObserve, Path: []string{name}, Summary: "synthetic command " + name}); err != nil {
			t.Fatal(err)
		}
	}
	s, err := New(reg, &Options{Source: StaticTree(tree), Runner: RunnerFunc(func(context.Context, []string) (json.RawMessage, error) {
		return json.RawMessage(`{}`), nil
	})})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// listedToolBytes lists tools through a real client session and returns
// the tools/list entry exactly as the server wrote it on the wire.
func listedToolBytes(t *testing.T, s *Surface) []byte {
	t.Helper()
	wire := &syncBuffer{}
	cs := session(t, s, wire, nil)
	res, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Tools) != 1 || res.Tools[0].Name != ToolName {
		t.Fatalf("tools/list advertises %d tools", len(res.Tools))
	}
	// The logging transport writes its line after the message is sent, so
	// the client may see the response first: wait for the line.
	for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); time.Sleep(5 * time.Millisecond) {
		sc := bufio.NewScanner(strings.NewReader(wire.String()))
		sc.Buffer(nil, 1<<20)
		for sc.Scan() {
			line, ok := strings.CutPrefix(sc.Text(), "write: ")
			if !ok || !strings.Contains(line, `"tools"`) {
				continue
			}
			var msg struct {
				Result struct {
					Tools []json.RawMessage `json:"tools"`
				} `json:"result"`
			}
			if err := json.Unmarshal([]byte(line), &msg); err != nil || len(msg.Result.Tools) != 1 {
				continue
			}
			return msg.Result.Tools[0]
		}
	}
	t.Fatalf("no tools/list response on the wire:\n%s", wire.String())
	return nil
}

func TestToolsListBudget(t *testing.T) {
	ten := listedToolBytes(t, syntheticSurface(t, 10))
	six := listedToolBytes(t, syntheticSurface(t, 600))
	t.Logf("tools/list entry: %d bytes: %s", len(ten), ten)
	if len(ten) >= 1024 {
		t.Errorf("the tools/list entry is %d bytes, over the 1,024-byte budget", len(ten))
	}
	if !bytes.Equal(ten, six) {
		t.Errorf("the entry differs between 10 and 600 verbs:\n%s\n%s", ten, six)
	}
	if bytes.Contains(ten, []byte("synth.")) {
		t.Error("the entry names a verb")
	}
}

// repair fixes args from nothing but a rejection: it drops unknown
// parameters, supplies missing required ones (or one member of a required
// group) with a value of the schema's type, replaces wrongly typed or
// out-of-choice values, and returns the fingerprint to use.
func repair(t testing.TB, args map[string]any, e map[string]any) (map[string]any, string) {
	t.Helper()
	schema := e["schema"].(map[string]any)
	props := schema["properties"].(map[string]any)
	valueFor := func(name string) any {
		p := props[name].(map[string]any)
		if enum, ok := p["enum"].([]any); ok {
			return enum[0]
		}
		switch p["type"] {
		case "integer", "number":
			if lo, ok := p["minimum"].(float64); ok && lo > 0 {
				return lo
			}
			return 1
		case "boolean":
			return true
		case "array":
			return []any{"x"}
		}
		return "repaired"
	}
	fixed := map[string]any{}
	for k, v := range args {
		fixed[k] = v
	}
	for _, p := range e["problems"].([]any) {
		pm := p.(map[string]any)
		name := pm["param"].(string)
		switch pm["rule"] {
		case RuleUnknownParameter:
			delete(fixed, name)
		case RuleMutuallyExclusive:
			delete(fixed, toStrings(pm["params"])[1])
		default:
			fixed[name] = valueFor(name)
		}
	}
	fp, _ := e["schema_fingerprint"].(string)
	return fixed, fp
}

// TestSessionCatalogHelpRejectRepair drives a real client session the way
// an agent does: the catalog, then help, then an op that is rejected, then
// the repaired op, which must succeed on the very next round trip using
// only what the rejection carried.
func TestSessionCatalogHelpRejectRepair(t *testing.T) {
	fx := newFixture(t)
	cs := session(t, fx.surface, nil, nil)
	trips := 0
	send := func(args any) (map[string]any, *mcp.CallToolResult) { trips++; return call(t, cs, args) }

	catalog, _ := send(map[string]any{"help": true})
	lines := toStrings(catalog["help"].(map[string]any)["verbs"])
	if len(lines) == 0 || !strings.HasPrefix(lines[0], "agent.submit(") {
		t.Fatalf("catalog %v", lines)
	}
	help, _ := send(map[string]any{"help": "agent.submit"})
	if help["help"].(map[string]any)["schema_fingerprint"] == nil {
		t.Fatalf("help %v", help)
	}

	// A careless op: wrong names and types, and no fingerprint.
	args := map[string]any{"modle": "m1", "max_turns": "ten", "prompt": "p", "prompt_file": "/tmp/p", "dry_run": true}
	rejected, res := send(map[string]any{"ops": []any{map[string]any{"op": "agent.submit", "args": args}}})
	if !res.IsError || rejected["status"] != StatusError {
		t.Errorf("a request whose only op was rejected: isError %v, status %v; want true, error", res.IsError, rejected["status"])
	}
	r := result(t, rejected, 0)
	e := r["error"].(map[string]any)
	if e["code"] != CodeInvalidArgs || len(e["problems"].([]any)) != 4 {
		t.Fatalf("rejection %v", r)
	}

	fixed, fp := repair(t, args, e)
	before := trips
	repaired, _ := send(map[string]any{"ops": []any{map[string]any{"op": "agent.submit", "args": fixed, "fingerprint": fp}}})
	if got := result(t, repaired, 0); got["ok"] != true {
		t.Fatalf("the repaired op failed: %v", got)
	}
	if trips-before != 1 || trips != 4 {
		t.Errorf("repair took %d round trips (%d in all)", trips-before, trips)
	}
}

func TestSessionMalformedEnvelopeIsAToolError(t *testing.T) {
	fx := newFixture(t)
	cs := session(t, fx.surface, nil, nil)
	for _, args := range []any{
		map[string]any{"op": "job.list"},
		map[string]any{},
		"job.list",
		[]any{map[string]any{"op": "job.list"}},
		nil,
	} {
		out, res := call(t, cs, args)
		if !res.IsError || out["status"] != StatusError {
			t.Errorf("arguments %v: isError %v, response %v", args, res.IsError, out)
		}
		if e := out["error"].(map[string]any); e["code"] != CodeMalformedEnvelope || e["schema"] == nil {
			t.Errorf("arguments %v: error %v", args, e)
		}
	}
	// isError follows the status exactly: set when nothing succeeded,
	// clear when something did.
	for _, tc := range []struct {
		args    map[string]any
		isError bool
	}{
		{map[string]any{"ops": []any{map[string]any{"op": "nope"}}}, true},
		{map[string]any{"help": "nope"}, true},
		{map[string]any{"ops": []any{map[string]any{"op": "nope"}, map[string]any{"op": "job.list"}}}, false},
		{map[string]any{"ops": []any{map[string]any{"op": "job.list"}}}, false},
	} {
		out, res := call(t, cs, tc.args)
		if res.IsError != tc.isError || (out["status"] == StatusError) != tc.isError {
			t.Errorf("arguments %v: isError %v, status %v; want isError %v", tc.args, res.IsError, out["status"], tc.isError)
		}
	}
}

func TestSessionProgress(t *testing.T) {
	fx := newFixture(t)
	var mu sync.Mutex
	var got []string
	cs := session(t, fx.surface, nil, &mcp.ClientOptions{
		ProgressNotificationHandler: func(_ context.Context, req *mcp.ProgressNotificationClientRequest) {
			mu.Lock()
			defer mu.Unlock()
			got = append(got, fmt.Sprintf("%v %.0f/%.0f %s", req.Params.ProgressToken, req.Params.Progress, req.Params.Total, req.Params.Message))
		},
	})
	params := &mcp.CallToolParams{Name: ToolName, Arguments: map[string]any{"ops": []any{map[string]any{"op": "job.wait", "args": map[string]any{"id": "p1"}}}}}
	params.SetProgressToken("tok-1")
	if _, err := cs.CallTool(context.Background(), params); err != nil {
		t.Fatal(err)
	}
	want := []string{"tok-1 1/3 polling p1", "tok-1 2/3 polling p1", "tok-1 3/3 polling p1"}
	deadline := time.Now().Add(5 * time.Second)
	for {
		mu.Lock()
		n := len(got)
		mu.Unlock()
		if n >= len(want) || time.Now().After(deadline) {
			break
		}
		time.Sleep(10 * time.Millisecond)
	}
	mu.Lock()
	defer mu.Unlock()
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("progress %q, want %q", got, want)
	}

	// Without a token the handler's Progress is a no-op and nothing is sent.
	got = nil
	mu.Unlock()
	call(t, cs, map[string]any{"ops": []any{map[string]any{"op": "job.wait", "args": map[string]any{"id": "p2"}}}})
	time.Sleep(50 * time.Millisecond)
	mu.Lock()
	if len(got) != 0 {
		t.Errorf("progress sent without a token: %q", got)
	}
}

// TestSessionCancelStopsAnObservation: a client that cancels its request
// stops an observe op's dispatch — the fixture's watch command is killed
// before it writes its marker.
func TestSessionCancelStopsAnObservation(t *testing.T) {
	rec, wrap := recordCalls(nil)
	fx := newFixture(t, wrap)
	cs := session(t, fx.surface, nil, nil)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		_, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: ToolName, Arguments: map[string]any{
			"ops": []any{map[string]any{"op": "job.watch", "args": map[string]any{"id": "w1", "ms": 8000}}}}})
		done <- err
	}()
	time.Sleep(300 * time.Millisecond)
	cancel()
	if err := <-done; err == nil {
		t.Error("the cancelled call returned a result")
	}
	c := rec.next(t, 5*time.Second)
	if c.ctxErr == nil || codeOf(c.err) != CodeCancelled {
		t.Errorf("dispatch was not cancelled: err %v, ctx %v", c.err, c.ctxErr)
	}
	// Bounds with room for a loaded machine: the watch would end at 8 s.
	if c.elapsed > 6*time.Second {
		t.Errorf("the observation ran %v after a cancel at 300ms; uncancelled it ends at 8s", c.elapsed)
	}
	if fileExists(filepath.Join(fx.env.State, "w1.watched"), 8500*time.Millisecond) {
		t.Error("the watch command ran to completion after the cancel")
	}
}

func codeOf(err error) string {
	if c, ok := err.(interface{ ErrorCode() string }); ok {
		return c.ErrorCode()
	}
	return ""
}

// TestSessionCancelNeverHalfSubmitsOrHalfKills: a client that cancels while
// a spawn or a control op runs gets no result, yet the op completes: the
// job is recorded and the kill lands.
func TestSessionCancelNeverHalfSubmitsOrHalfKills(t *testing.T) {
	rec, wrap := recordCalls(func(argv []string) time.Duration {
		if argv[0] == "kill" {
			return 600 * time.Millisecond // a slow kill, in flight when the cancel arrives
		}
		return 0
	})
	fx := newFixture(t, wrap, func(c *fixtureConfig) { c.env = []string{"TESTCLI_SUBMIT_DELAY_MS=700"} })
	fp := fx.fingerprint(t, "agent.submit")
	cs := session(t, fx.surface, nil, nil)
	for _, tt := range []struct {
		rule string
		op   map[string]any
	}{
		{"spawn", map[string]any{"op": "agent.submit", "fingerprint": fp, "args": map[string]any{"model": "m", "prompt": "p"}}},
		{"control", map[string]any{"op": "job.kill", "args": map[string]any{"id": "k1"}}},
	} {
		t.Run(tt.rule, func(t *testing.T) {
			ctx, cancel := context.WithCancel(context.Background())
			done := make(chan error, 1)
			go func() {
				_, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: ToolName, Arguments: map[string]any{"ops": []any{tt.op}}})
				done <- err
			}()
			time.Sleep(200 * time.Millisecond)
			cancel()
			<-done
			c := rec.next(t, 10*time.Second)
			if c.err != nil || c.ctxErr != nil {
				t.Fatalf("the %s op was cut short: err %v, ctx %v", tt.rule, c.err, c.ctxErr)
			}
			if c.elapsed < 500*time.Millisecond {
				t.Errorf("the op finished in %v: it was not in flight when the cancel arrived", c.elapsed)
			}
		})
	}
	if jobs, _ := filepath.Glob(filepath.Join(fx.env.State, "*.job")); len(jobs) != 1 {
		t.Errorf("jobs recorded: %v", jobs)
	}
	if !fileExists(filepath.Join(fx.env.State, "k1.killed"), time.Second) {
		t.Error("the kill did not land")
	}
}

// TestCancelledRequestStartsNoMoreOps: an observe op in flight when the
// request is cancelled reports cancelled, and ops not yet started do not
// start.
func TestCancelledRequestStartsNoMoreOps(t *testing.T) {
	fx := newFixture(t)
	t.Run("in flight, then not started", func(t *testing.T) {
		ctx, cancel := context.WithCancel(context.Background())
		time.AfterFunc(200*time.Millisecond, cancel)
		start := time.Now()
		resp := fx.surface.Handle(ctx, json.RawMessage(`{"ops":[{"op":"job.watch","args":{"id":"w2","ms":10000}},{"op":"job.kill","args":{"id":"c0"}}]}`), nil)
		// Room for a loaded machine: uncancelled, the watch ends at 10 s.
		if time.Since(start) > 7*time.Second {
			t.Errorf("Handle took %v after a cancel at 200ms; uncancelled the watch ends at 10s", time.Since(start))
		}
		for i, r := range resp.Results {
			if r.OK || r.Error.Code != CodeCancelled {
				t.Errorf("op %d: %+v", i, r)
			}
		}
		if fileExists(filepath.Join(fx.env.State, "c0.killed"), 0) {
			t.Error("an op started after the request was cancelled")
		}
	})
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	resp := fx.surface.Handle(ctx, json.RawMessage(`{"ops":[{"op":"job.kill","args":{"id":"c1"}},{"op":"mode.set","args":{"mode":"fast"}}]}`), nil)
	for i, r := range resp.Results {
		if r.OK || r.Error.Code != CodeCancelled {
			t.Errorf("op %d: %+v", i, r)
		}
	}
	if fileExists(filepath.Join(fx.env.State, "c1.killed"), 0) {
		t.Error("an op started after the request was cancelled")
	}
}

// TestStdioSession runs the embedding program (internal/testcli/cmd/testserver)
// as a real process and talks to it over the stdio transport: tools/list,
// then a spawn op through help, then a dynamic op, each dispatched to the
// fixture CLI as a further subprocess.
func TestStdioSession(t *testing.T) {
	fx := newFixture(t) // directories and playbooks
	cmd := exec.Command(serverBin)
	cmd.Env = append(os.Environ(), "TESTCLI_BIN="+fixtureBin, "TESTCLI_STATE="+fx.env.State, "TESTCLI_PLAYBOOKS="+fx.env.Playbooks)
	cmd.Stderr = os.Stderr
	client := mcp.NewClient(&mcp.Implementation{Name: "stdio-client", Version: "v0.0.1"}, nil)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cs, err := client.Connect(ctx, &mcp.CommandTransport{Command: cmd, TerminateDuration: time.Second}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer func() {
		if err := cs.Close(); err != nil {
			t.Logf("close: %v", err)
		}
		if cmd.ProcessState == nil {
			t.Error("the server process was not reaped")
		}
	}()
	tools, err := cs.ListTools(ctx, nil)
	if err != nil || len(tools.Tools) != 1 || tools.Tools[0].Name != ToolName {
		t.Fatalf("tools %v, %v", tools, err)
	}
	help, _ := call(t, cs, map[string]any{"help": "agent.submit"})
	fp := help["help"].(map[string]any)["schema_fingerprint"].(string)
	out, _ := call(t, cs, map[string]any{"ops": []any{map[string]any{"op": "agent.submit", "fingerprint": fp, "args": map[string]any{"model": "m", "prompt": "over stdio"}}}})
	r := result(t, out, 0)
	if r["ok"] != true || r["prompt_source"] != "prompt" {
		t.Fatalf("result %v", r)
	}
	id := r["result"].(map[string]any)["job_id"].(string)
	status, _ := call(t, cs, map[string]any{"ops": []any{map[string]any{"op": "job.status", "args": map[string]any{"id": id}}}})
	if got := result(t, status, 0)["result"].(map[string]any)["status"]; got != "running" {
		t.Errorf("job.status %v", result(t, status, 0))
	}
	dyn, _ := call(t, cs, map[string]any{"help": map[string]any{"verb": "play.submit", "playbook": "deploy"}})
	dh := dyn["help"].(map[string]any)
	played, _ := call(t, cs, map[string]any{"ops": []any{map[string]any{"op": "play.submit", "fingerprint": dh["schema_fingerprint"],
		"playbook_fingerprint": dh["playbook_fingerprint"], "args": map[string]any{"playbook": "deploy", "region": "eu"}}}})
	if pr := result(t, played, 0); pr["ok"] != true || pr["result"].(map[string]any)["echo"].(map[string]any)["region"] != "eu" {
		t.Errorf("play.submit %v", pr)
	}
}

// TestToolAnnotations: the one tool carries a title and says whether it
// can change anything: readOnlyHint on a read-only surface (and on one
// whose verbs all observe), destructiveHint otherwise; and a read-only
// surface refuses every verb that is not an observe verb.
func TestToolAnnotations(t *testing.T) {
	full := newFixture(t)
	ro := newFixture(t, func(c *fixtureConfig) { c.opts.ReadOnly = true; c.opts.Title = "fixture (read-only)" })
	for _, tc := range []struct {
		name              string
		s                 *Surface
		title             string
		readOnly, destroy bool
	}{
		{"a full surface", full.surface, DefaultTitle, false, true},
		{"a read-only surface", ro.surface, "fixture (read-only)", true, false},
		{"a surface whose verbs all observe", syntheticSurface(t, 10), DefaultTitle, true, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var tool struct {
				Title       string `json:"title"`
				Annotations struct {
					ReadOnlyHint    bool  `json:"readOnlyHint"`
					DestructiveHint *bool `json:"destructiveHint"`
				} `json:"annotations"`
			}
			raw := listedToolBytes(t, tc.s)
			if err := json.Unmarshal(raw, &tool); err != nil {
				t.Fatal(err)
			}
			destroy := tool.Annotations.DestructiveHint != nil && *tool.Annotations.DestructiveHint
			if tool.Title != tc.title || tool.Annotations.ReadOnlyHint != tc.readOnly || destroy != tc.destroy {
				t.Errorf("tool %s", raw)
			}
			if len(raw) >= 1024 {
				t.Errorf("the tools/list entry is %d bytes, over the 1,024-byte budget", len(raw))
			}
		})
	}
	resp := ro.do(t, `{"ops":[{"op":"job.list"},{"op":"agent.submit","fingerprint":"x","args":{"model":"m","prompt":"p"}}]}`)
	if r := result(t, resp, 0); r["ok"] != true {
		t.Errorf("an observe verb on a read-only surface: %v", r)
	}
	if r := result(t, resp, 1); errCode(r) != CodePolicyRefused {
		t.Errorf("a spawn verb on a read-only surface: %v", r)
	}
}
