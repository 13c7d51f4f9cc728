//go:build unix

package server_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/spf13/cobra"
	"github.com/verbsurface/verbsurface/examples/limcp/internal/cli"
	"github.com/verbsurface/verbsurface/examples/limcp/internal/e2e"
	"github.com/verbsurface/verbsurface/examples/limcp/internal/server"
)

// These tests run a Server in the test process against the real limcp
// binary (built once by TestMain): every verb is a limcp subprocess on a
// real SQLite store in the test's own home. Processes started for a test
// carry LIMCP_E2E_TAG=<home> (workers inherit it), so cleanup can find and
// kill all of them.

var limcpBin string

func TestMain(m *testing.M) {
	bin, cleanup, err := e2e.Build()
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	limcpBin = bin
	code := m.Run()
	cleanup()
	os.Exit(code)
}

const tagVar = e2e.TagVar

type fixture struct {
	t    *testing.T
	home string
	root string // the one root, beside the home: no root may hold it
	srv  *server.Server
	cs   *mcp.ClientSession
}

func freshRoot() *cobra.Command { return cli.NewRoot(cli.Options{}) }

// environ is the environment of everything a fixture runs: tagged, with
// no LIMCP_HOME of the caller's.
func environ(home string) []string {
	env := []string{tagVar + "=" + home}
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "LIMCP_") && !strings.HasPrefix(kv, "XDG_STATE_HOME=") {
			env = append(env, kv)
		}
	}
	return env
}

// newFixture starts a server over a fresh home and an in-memory MCP
// session with it. edit adjusts the options.
func newFixture(t *testing.T, edit func(*server.Options)) *fixture {
	t.Helper()
	f := &fixture{t: t, home: t.TempDir(), root: t.TempDir()}
	t.Cleanup(f.reap)
	// Tests name files in the root.
	opts := server.Options{Home: f.home, Executable: limcpBin, Env: environ(f.home), NewRoot: freshRoot, Roots: []string{f.root}}
	if edit != nil {
		edit(&opts)
	}
	srv, err := server.New(opts)
	if err != nil {
		t.Fatal(err)
	}
	f.srv = srv
	t.Cleanup(func() { srv.Close() })
	f.cs = f.connect(nil)
	return f
}

// connect opens one more in-memory session with the fixture's server.
func (f *fixture) connect(copts *mcp.ClientOptions) *mcp.ClientSession {
	f.t.Helper()
	ctx := context.Background()
	st, ct := mcp.NewInMemoryTransports()
	ss, err := f.srv.MCPServer().Connect(ctx, st, nil)
	if err != nil {
		f.t.Fatal(err)
	}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "v0"}, copts).Connect(ctx, ct, nil)
	if err != nil {
		f.t.Fatal(err)
	}
	f.t.Cleanup(func() { cs.Close(); ss.Close() })
	return cs
}

type errObj struct {
	Code              string           `json:"code"`
	Message           string           `json:"message"`
	Use               string           `json:"use"`
	SchemaFingerprint string           `json:"schema_fingerprint"`
	Problems          []map[string]any `json:"problems"`
	Details           map[string]any   `json:"details"`
	Schema            map[string]any   `json:"schema"`
	HelpCall          map[string]any   `json:"help_call"`
}

type opResult struct {
	OK     bool            `json:"ok"`
	Op     string          `json:"op"`
	Class  string          `json:"class"`
	Result json.RawMessage `json:"result"`
	Error  *errObj         `json:"error"`
}

type response struct {
	Status  string          `json:"status"`
	Results []opResult      `json:"results"`
	Help    json.RawMessage `json:"help"`
	Error   *errObj         `json:"error"`
}

// request sends one request on cs and decodes the response.
func request(t *testing.T, ctx context.Context, cs *mcp.ClientSession, req any) response {
	t.Helper()
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "request", Arguments: req})
	if err != nil {
		t.Fatalf("tools/call %s: %v", mustJSON(t, req), err)
	}
	text := res.Content[0].(*mcp.TextContent).Text
	var r response
	if err := json.Unmarshal([]byte(text), &r); err != nil {
		t.Fatalf("response is not JSON: %v\n%s", err, text)
	}
	return r
}

func (f *fixture) request(req any) response {
	f.t.Helper()
	return request(f.t, context.Background(), f.cs, req)
}

// op runs one op that must succeed and decodes its result into v.
func (f *fixture) op(v any, verb string, args map[string]any, fingerprint string) opResult {
	f.t.Helper()
	o := map[string]any{"op": verb, "args": args}
	if fingerprint != "" {
		o["fingerprint"] = fingerprint
	}
	r := f.request(map[string]any{"ops": []any{o}})
	if len(r.Results) != 1 || !r.Results[0].OK {
		f.t.Fatalf("%s %s failed: %s", verb, mustJSON(f.t, args), mustJSON(f.t, r))
	}
	if v != nil {
		if err := json.Unmarshal(r.Results[0].Result, v); err != nil {
			f.t.Fatalf("%s: decoding result: %v", verb, err)
		}
	}
	return r.Results[0]
}

type verbHelp struct {
	Verb   string `json:"verb"`
	Class  string `json:"class"`
	Schema struct {
		Properties map[string]json.RawMessage `json:"properties"`
		Required   []string                   `json:"required"`
	} `json:"schema"`
	SchemaFingerprint   string `json:"schema_fingerprint"`
	PlaybookFingerprint string `json:"playbook_fingerprint"`
}

func (f *fixture) help(h any) verbHelp {
	f.t.Helper()
	r := f.request(map[string]any{"help": h})
	var vh verbHelp
	if r.Status != "success" || json.Unmarshal(r.Help, &vh) != nil || vh.SchemaFingerprint == "" {
		f.t.Fatalf("help %v: %s", h, mustJSON(f.t, r))
	}
	return vh
}

type submitted struct {
	ID      string `json:"id"`
	Kind    string `json:"kind"`
	Session string `json:"session"`
}

// submitEcho submits an echo agent through the server.
func (f *fixture) submitEcho(model, prompt string) submitted {
	f.t.Helper()
	fp := f.help("agent.submit").SchemaFingerprint
	var s submitted
	f.op(&s, "agent.submit", map[string]any{"model": model, "prompt": prompt}, fp)
	if s.ID == "" {
		f.t.Fatalf("agent.submit returned no id")
	}
	return s
}

type record struct {
	ID       string `json:"id"`
	Kind     string `json:"kind"`
	Status   string `json:"status"`
	Terminal bool   `json:"terminal"`
	Phase    string `json:"phase"`
	EndedAt  string `json:"ended_at"`
}

// cliStatus reads a record with the CLI directly, not through the server.
func (f *fixture) cliStatus(id string) record {
	f.t.Helper()
	cmd := exec.Command(limcpBin, "--home", f.home, "--json", "job", "status", id)
	cmd.Env = environ(f.home)
	out, err := cmd.Output()
	if err != nil {
		f.t.Fatalf("limcp job status %s: %v\n%s", id, err, out)
	}
	var res struct {
		Data struct {
			Records []record `json:"records"`
		} `json:"data"`
	}
	if err := json.Unmarshal(out, &res); err != nil || len(res.Data.Records) != 1 {
		f.t.Fatalf("limcp job status %s: %s", id, out)
	}
	return res.Data.Records[0]
}

// cli runs limcp with the fixture's home and environment.
func (f *fixture) cli(args ...string) []byte {
	f.t.Helper()
	cmd := exec.Command(limcpBin, append([]string{"--home", f.home, "--json"}, args...)...)
	cmd.Env = environ(f.home)
	out, err := cmd.Output()
	if err != nil {
		f.t.Fatalf("limcp %v: %v\n%s", args, err, out)
	}
	return out
}

func (f *fixture) waitTerminal(id string, within time.Duration) record {
	f.t.Helper()
	deadline := time.Now().Add(within)
	for {
		r := f.cliStatus(id)
		if r.Terminal {
			return r
		}
		if time.Now().After(deadline) {
			f.t.Fatalf("%s not terminal within %s: %+v", id, within, r)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// reap kills every process of this fixture (cleanup).
func (f *fixture) reap() {
	if left := e2e.Reap(f.home); len(left) > 0 {
		f.t.Errorf("processes of this test survive cleanup: %v", left)
	}
}

func mustJSON(t testing.TB, v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
