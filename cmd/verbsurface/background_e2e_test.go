//go:build unix

package main

import (
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
)

// bgConfig is the background fixture's configuration.
var bgConfig = filepath.Join("testdata", "background", "front.yaml")

// serveBG starts `verbsurface serve` on the fixture over stdio with its
// state in state, and returns the client and the server's command.
func serveBG(t *testing.T, state string, opts *mcp.ClientOptions) (*client, *exec.Cmd) {
	t.Helper()
	cmd := exec.Command(vsBin, "serve", "-c", bgConfig)
	cmd.Env = vsEnv(t, state)
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "e2e-bg", Version: "v0"}, opts).
		Connect(context.Background(), &mcp.CommandTransport{Command: cmd, TerminateDuration: 2 * time.Second}, nil)
	if err != nil {
		t.Fatalf("starting verbsurface serve: %v", err)
	}
	t.Cleanup(func() { cs.Close() })
	settleRuns(t, frontRunsDir(state, "bgsh"))
	return &client{t: t, cs: cs}, cmd
}

// start starts script in the background and returns the run id.
func (c *client) start(script string) string {
	c.t.Helper()
	_, fp := c.help("sh.run")
	r := c.op(`{"op":"sh.run","fingerprint":"` + fp + `","args":{"script":` + jsonString(script) + `}}`)
	res, _ := r["result"].(map[string]any)
	id, _ := res["run_id"].(string)
	if id == "" {
		c.t.Fatalf("start: %v", r)
	}
	return id
}

// waitEnded waits for ids and returns the wait's entries by id.
func (c *client) waitEnded(ids ...string) map[string]map[string]any {
	c.t.Helper()
	out := map[string]map[string]any{}
	for len(out) < len(ids) {
		var left []string
		for _, id := range ids {
			if out[id] == nil {
				left = append(left, id)
			}
		}
		r := c.op(`{"op":"job.wait","args":{"ids":` + jsonString(left) + `,"max_wait_seconds":25}}`)
		res, _ := r["result"].(map[string]any)
		if res == nil {
			c.t.Fatalf("wait: %v", r)
		}
		for _, e := range res["entries"].([]any) {
			e := e.(map[string]any)
			if e["terminal"] == true {
				out[e["id"].(string)] = e
			}
		}
	}
	return out
}

// result is job.output's result member for an ended run.
func (c *client) result(id string) map[string]any {
	c.t.Helper()
	r := c.op(`{"op":"job.output","args":{"id":"` + id + `"}}`)
	out, _ := r["result"].(map[string]any)
	res, _ := out["result"].(map[string]any)
	if res == nil {
		c.t.Fatalf("output of %s: %v", id, r)
	}
	return res
}

// Runs outlive their client and their server, over stdio: a run started
// by a client that then disconnects, and one whose server is killed with
// SIGKILL mid-run, are both found by a new server on the same state, run
// to their ends (recorded by their supervisors, not the dead server) and
// give their results.
func TestBackgroundSurvivesDisconnectAndServerKill(t *testing.T) {
	state := t.TempDir()
	script := `i=0; while [ $i -lt 20 ]; do echo "tick $i"; i=$((i+1)); sleep 0.1; done; echo done`

	a, _ := serveBG(t, state, nil)
	left := a.start(script)
	a.cs.Close() // the client goes away; its server with it

	b, cmd := serveBG(t, state, nil)
	killed := b.start(script)
	if st := b.op(`{"op":"job.status","args":{"id":"` + left + `"}}`); st["ok"] != true {
		t.Fatalf("the new server does not know the run of the old: %v", st)
	}
	if err := cmd.Process.Kill(); err != nil { // SIGKILL: no chance to record anything
		t.Fatal(err)
	}

	c, _ := serveBG(t, state, nil)
	ended := c.waitEnded(left, killed)
	for _, id := range []string{left, killed} {
		if e := ended[id]; e["status"] != "completed" || e["outcome"] != "succeeded" {
			t.Fatalf("run %s: %v", id, e)
		}
		res := c.result(id)
		out, _ := res["result"].(map[string]any)
		if res["ok"] != true || out == nil || !strings.HasSuffix(out["output"].(string), "tick 19\ndone\n") {
			t.Fatalf("run %s: result %v", id, res)
		}
	}
	list := c.op(`{"op":"job.list","args":{}}`)["result"].(map[string]any)
	if list["count"].(float64) != 2 {
		t.Fatalf("list: %v", list)
	}
}

// Over streamable HTTP: a client starts a run and disconnects; another
// session of the same server waits for it and reads its result.
func TestBackgroundOverHTTP(t *testing.T) {
	state := t.TempDir()
	srv := serveHTTPBin(t, vsEnv(t, state, tokenEnv+"="+httpToken), "-c", bgConfig, "--http", "127.0.0.1:0")
	settleRuns(t, frontRunsDir(state, "bgsh"))
	a := httpClient(t, srv.url, httpToken)
	id := a.start(`sleep 1; echo over http`)
	a.cs.Close()
	b := httpClient(t, srv.url, httpToken)
	if e := b.waitEnded(id)[id]; e["status"] != "completed" {
		t.Fatalf("wait: %v", e)
	}
	if res := b.result(id); res["ok"] != true || res["result"].(map[string]any)["output"] != "over http\n" {
		t.Fatalf("result: %v", res)
	}
}

// With a progress token, job.wait notifies progress while the run runs:
// increasing, at most about once a second, saying how much output the
// run has written so far.
func TestBackgroundWaitProgress(t *testing.T) {
	var mu sync.Mutex
	var got []*mcp.ProgressNotificationParams
	c, _ := serveBG(t, t.TempDir(), &mcp.ClientOptions{ProgressNotificationHandler: func(_ context.Context, r *mcp.ProgressNotificationClientRequest) {
		mu.Lock()
		got = append(got, r.Params)
		mu.Unlock()
	}})
	id := c.start(`echo hello; sleep 3`)
	params := &mcp.CallToolParams{Name: "request", Arguments: map[string]any{"ops": []any{map[string]any{
		"op": "job.wait", "args": map[string]any{"ids": []any{id}, "poll_interval_seconds": 0.25, "max_wait_seconds": 30}}}}}
	params.SetProgressToken("bg-wait")
	res, err := c.cs.CallTool(context.Background(), params)
	if err != nil || res.IsError {
		t.Fatalf("job.wait: %v %+v", err, res)
	}
	time.Sleep(200 * time.Millisecond) // a notification may trail the result
	mu.Lock()
	defer mu.Unlock()
	if len(got) < 2 {
		t.Fatalf("%d progress notifications during a 3 s wait, want at least 2", len(got))
	}
	// Polled every 250 ms for 3 s: without the rate bound about 12.
	if len(got) > 6 {
		t.Fatalf("%d progress notifications in about 3 s: not rate bounded", len(got))
	}
	prev := -1.0
	for _, p := range got {
		if p.Progress <= prev {
			t.Fatalf("progress did not increase: %v after %v", p.Progress, prev)
		}
		prev = p.Progress
	}
	if last := got[len(got)-1].Message; !strings.Contains(last, "6 bytes of output") {
		t.Fatalf("progress message %q does not count the run's output (6 bytes)", last)
	}
}

// The soak: many runs started and waited on concurrently, over one
// session, with nothing lost: every run ends completed, and each result
// is its own run's output.
func TestBackgroundSoak(t *testing.T) {
	n := 200
	if testing.Short() {
		n = 40
	}
	state := t.TempDir()
	// Enough spawns a minute for the soak (the default is 60).
	cfg := filepath.Join(t.TempDir(), "front.yaml")
	writeFile(t, cfg, readFile(t, bgConfig)+"policy: policy.yaml\n")
	writeFile(t, filepath.Join(filepath.Dir(cfg), "policy.yaml"), "version: 1\ndefault: allow\nlimits: {runs_per_minute: 1000}\n")
	cmd := exec.Command(vsBin, "serve", "-c", cfg)
	cmd.Env = vsEnv(t, state)
	c := serveCmd(t, cmd)
	settleRuns(t, frontRunsDir(state, "bgsh"))
	_, fp := c.help("sh.run")

	ids := make([]string, n)
	var wg sync.WaitGroup
	const batch = 16
	for lo := 0; lo < n; lo += batch {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var ops []string
			for i := lo; i < min(n, lo+batch); i++ {
				ops = append(ops, `{"op":"sh.run","fingerprint":"`+fp+`","args":{"script":"echo run-`+fmt.Sprint(i)+`"}}`)
			}
			r := c.call(`{"ops":[` + strings.Join(ops, ",") + `]}`)
			for j, res := range r["results"].([]any) {
				res := res.(map[string]any)
				data, _ := res["result"].(map[string]any)
				id, _ := data["run_id"].(string)
				if id == "" {
					t.Errorf("start %d: %v", lo+j, res)
					continue
				}
				ids[lo+j] = id
			}
		}()
	}
	wg.Wait()
	if t.Failed() {
		return
	}
	errs := make(chan error, n)
	for i, id := range ids {
		wg.Add(1)
		go func() {
			defer wg.Done()
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
			defer cancel()
			for {
				res, err := c.cs.CallTool(ctx, &mcp.CallToolParams{Name: "request", Arguments: json.RawMessage(
					`{"ops":[{"op":"job.wait","args":{"ids":["` + id + `"],"max_wait_seconds":25}},{"op":"job.output","args":{"id":"` + id + `"}}]}`)})
				if err != nil {
					errs <- fmt.Errorf("run %d: %v", i, err)
					return
				}
				var r struct {
					Results []struct {
						Result json.RawMessage `json:"result"`
					} `json:"results"`
				}
				json.Unmarshal([]byte(res.Content[0].(*mcp.TextContent).Text), &r)
				var w struct {
					AllTerminal bool `json:"all_terminal"`
					Entries     []struct{ Status string }
				}
				json.Unmarshal(r.Results[0].Result, &w)
				if !w.AllTerminal {
					continue
				}
				var out struct {
					Result struct {
						OK     bool
						Result struct{ Output string }
					}
				}
				json.Unmarshal(r.Results[1].Result, &out)
				if w.Entries[0].Status != "completed" || !out.Result.OK || out.Result.Result.Output != fmt.Sprintf("run-%d\n", i) {
					errs <- fmt.Errorf("run %d (%s): status %s, result %+v", i, id, w.Entries[0].Status, out.Result)
				}
				return
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	list := c.op(`{"op":"job.list","args":{"limit":500}}`)["result"].(map[string]any)
	if int(list["count"].(float64)) != n {
		t.Fatalf("job.list has %v runs, want %d", list["count"], n)
	}
}

func readFile(t *testing.T, p string) string {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func writeFile(t *testing.T, p, content string) {
	t.Helper()
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// A real program with a large input: yamllint over a tree of a thousand
// YAML files with findings, started in the background through a real
// go-sdk client, followed by offset while it runs, waited on; its result
// is exactly the foreground op's on the same tree.
func TestBackgroundRealProgramLargeInput(t *testing.T) {
	needProgram(t, "yamllint", "yamllint")
	dir := copyTestdata(t, "background", "yamllint.yaml")
	files := map[string]string{}
	for i := range 1000 {
		files[fmt.Sprintf("tree/d%02d/f%03d.yaml", i%20, i)] = fmt.Sprintf("---\nkey%d:  [1,2]\nlist: [a,b]\n", i)
	}
	writeFiles(t, dir, files)
	tree := filepath.Join(dir, "tree")
	state := t.TempDir()
	c := serve(t, filepath.Join(dir, "yamllint.yaml"), "XDG_STATE_HOME="+state)
	settleRuns(t, frontRunsDir(state, "yamllint-bg"))
	_, fp := c.help("lint.background")
	start := c.op(`{"op":"lint.background","fingerprint":"` + fp + `","args":{"files":[` + jsonString(tree) + `]}}`)
	id, _ := start["result"].(map[string]any)["run_id"].(string)
	if id == "" {
		t.Fatalf("start: %v", start)
	}
	// Follow the output while it runs: chunks continue one another.
	var followed strings.Builder
	offset := 0.0
	for deadline := time.Now().Add(3 * time.Minute); time.Now().Before(deadline); {
		out := c.op(`{"op":"job.output","args":{"id":"` + id + `","offset":` + jsonString(offset) + `,"length":65536}}`)["result"].(map[string]any)
		followed.WriteString(out["data"].(string))
		offset = out["next_offset"].(float64)
		if out["eof"] == true {
			break
		}
		if out["data"] == "" {
			time.Sleep(50 * time.Millisecond)
		}
	}
	e := c.waitEnded(id)[id]
	if e["status"] != "completed" {
		t.Fatalf("the lint ended %v", e)
	}
	bg := c.result(id)
	fg := c.op(`{"op":"lint","args":{"files":[` + jsonString(tree) + `]}}`)
	if bg["ok"] != true || jsonString(bg["result"]) != jsonString(fg["result"]) {
		t.Fatalf("background result differs from the foreground op's:\n%.400s\n%.400s", jsonString(bg), jsonString(fg))
	}
	output := fg["result"].(map[string]any)["output"].(string)
	if followed.String() != output || strings.Count(output, "\n") < 2000 {
		t.Fatalf("followed %d bytes, the result has %d (%d lines)", followed.Len(), len(output), strings.Count(output, "\n"))
	}
}
