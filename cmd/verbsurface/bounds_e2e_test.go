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
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestFailuresBoundedLikeSuccesses reproduces issue 36, item 3, on the
// built binary: a text verb whose program prints 1 MiB of NULs (and 64 KiB
// on stderr) and exits 1, fifteen times in one request, then an op that
// succeeds. Each NUL is six bytes of JSON, so the failures quoted whole
// made a 100 MB answer (218 MB in the issue, sent twice) and 1.78 GB of
// server memory. Now the answer stays within the response cap (plus a
// small refusal per op), each failure keeps its code with its output cut
// to an excerpt (cut names it and its size) or becomes response_too_large
// naming its code, the last op's result arrives whole, and the server's
// peak resident set stays near where it started.
func TestFailuresBoundedLikeSuccesses(t *testing.T) {
	if _, err := exec.LookPath("sh"); err != nil {
		t.Skip("no sh on PATH")
	}
	dir := t.TempDir()
	write := func(name, body string) {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	write("nul.sh", "case \"$1\" in\nnul) head -c 1048576 /dev/zero; head -c 65536 /dev/zero >&2; exit 1;;\nok) echo fine;;\nesac\n")
	write("tree.json", `{"program": "nul", "dialect": "argparse", "commands": [
		{"path": ["nul"], "runnable": true, "params": []}, {"path": ["ok"], "runnable": true, "params": []}]}`)
	write("nul.yaml", "name: nul\ncommand: [sh, nul.sh]\noutput: text\nsource: {tree_file: tree.json}\n"+
		"verbs:\n  - {name: nul, path: [nul], class: observe}\n  - {name: ok, path: [ok], class: observe}\n")

	cmd := exec.Command(vsBin, "serve", "-c", filepath.Join(dir, "nul.yaml"))
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "bounds", Version: "v0"}, nil).
		Connect(context.Background(), &mcp.CommandTransport{Command: cmd, TerminateDuration: 2 * time.Second}, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	c := &client{t: t, cs: cs}
	c.op(`{"op": "ok"}`) // the server warm, its fresh size measured after
	fresh := vmHWMMB(t, cmd.Process.Pid)

	req := `{"ops": [` + strings.Repeat(`{"op": "nul"},`, 15) + `{"op": "ok"}]}`
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "request", Arguments: json.RawMessage(req)})
	if err != nil {
		t.Fatalf("tools/call: %v (peak resident set %.1f MB, %.1f MB fresh)", err, vmHWMMB(t, cmd.Process.Pid), fresh)
	}
	text := res.Content[0].(*mcp.TextContent).Text
	const limit = 4 << 20
	if len(text) > limit+16*1024 {
		t.Fatalf("the answer is %d bytes; the cap is %d plus a small refusal per op", len(text), limit)
	}
	var r struct {
		Status  string
		Results []struct {
			OK     bool
			Result map[string]any
			Error  *struct {
				Code    string
				Cut     map[string]int
				Details map[string]any
			}
		}
	}
	if err := json.Unmarshal([]byte(text), &r); err != nil {
		t.Fatal(err)
	}
	if r.Status != "partial" || len(r.Results) != 16 {
		t.Fatalf("status %s with %d results; want partial with 16", r.Status, len(r.Results))
	}
	cutSeen := false
	for i, res := range r.Results[:15] {
		e := res.Error
		switch {
		case e == nil:
			t.Fatalf("result %d succeeded; want a failure", i)
		case e.Code == "nonzero_exit":
			if e.Cut["details.output"] < 6<<20 || len(e.Details["output"].(string)) > 2048 {
				t.Fatalf("result %d: cut %v, output of %d bytes; want an excerpt of the 6 MiB output, cut saying so",
					i, e.Cut, len(e.Details["output"].(string)))
			}
			cutSeen = true
		case e.Code == "response_too_large":
			if e.Details["code"] != "nonzero_exit" {
				t.Fatalf("result %d: response_too_large with details %v; want its code, nonzero_exit", i, e.Details)
			}
		default:
			t.Fatalf("result %d: %s; want nonzero_exit or response_too_large", i, e.Code)
		}
	}
	if !cutSeen {
		t.Fatal("no failure kept its code with an excerpt")
	}
	if last := r.Results[15]; !last.OK || last.Result["output"] != "fine\n" {
		t.Fatalf("the last op: %+v; want its result whole", last)
	}
	peak := vmHWMMB(t, cmd.Process.Pid)
	t.Logf("verbsurface serve: %d-byte answer; peak resident set %.1f MB fresh, %.1f MB after the request", len(text), fresh, peak)
	// Before the bound the same request took the server past 1 GB; the
	// margin is for the runtime, not for the answer.
	if peak > fresh+200 {
		t.Fatalf("peak resident set %.1f MB, %.1f MB fresh; want within 200 MB of it", peak, fresh)
	}
}

// TestWrongChoiceOfManyIsSmall reproduces issue 36, item 3's third
// amplifier: one wrong value for an option with 4,000 choices answered
// with the verb's whole schema (481 KB). Now the schema is left to
// help_call past 16 KiB (cut names its size) and the reason quotes 32
// choices and their count.
func TestWrongChoiceOfManyIsSmall(t *testing.T) {
	dir := t.TempDir()
	choices := make([]string, 4000)
	for i := range choices {
		choices[i] = fmt.Sprintf("%q", fmt.Sprintf("colour-number-%04d-with-a-long-name", i))
	}
	tree := `{"program": "paint", "dialect": "argparse", "commands": [{"path": ["paint"], "runnable": true, "params": [
		{"name": "colour", "flags": ["--colour"], "kind": "string", "arity": "one", "required": true, "action": "store", "choices": [` +
		strings.Join(choices, ",") + `]}]}]}`
	for name, body := range map[string]string{
		"tree.json":  tree,
		"paint.yaml": "name: paint\ncommand: [true]\noutput: text\nsource: {tree_file: tree.json}\nverbs:\n  - {name: paint, path: [paint], class: observe}\n",
	} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	c := serve(t, filepath.Join(dir, "paint.yaml"))
	r := c.call(`{"ops": [{"op": "paint", "args": {"colour": "mauve"}}]}`)
	b, _ := json.Marshal(r)
	res := r["results"].([]any)[0].(map[string]any)
	e, _ := res["error"].(map[string]any)
	if code(res) != "invalid_args" {
		t.Fatalf("result %.400s; want invalid_args", b)
	}
	cut, _ := e["cut"].(map[string]any)
	if _, has := e["schema"]; has || cut["schema"] == nil || e["help_call"] == nil {
		t.Fatalf("error %.400s; want no schema, cut naming its size, help_call", b)
	}
	if len(b) > 8<<10 {
		t.Fatalf("the answer is %d bytes; want a few kilobytes", len(b))
	}
	if msg := e["message"].(string); !strings.Contains(msg, "(4000 in all") {
		t.Fatalf("message %q; want 32 choices and the count", msg)
	}
}

// TestOutputEveryClientCanRead reproduces issue 36, item 11, through a
// real go-sdk client: a json verb whose program prints a number beyond a
// double (1e400), an array nested 1,000 deep, or a lone surrogate escape
// made the whole tools/call fail on the client, and the other op's result
// with it. Now each is that op's invalid_result, saying why, and the op
// beside it answers.
func TestOutputEveryClientCanRead(t *testing.T) {
	dir := t.TempDir()
	files := map[string]string{
		"big.json":  `{"n": 1e400}`,
		"deep.json": strings.Repeat("[", 1000) + strings.Repeat("]", 1000),
		"lone.json": `{"s": "\ud800"}`,
		"ok.json":   `{"id": "run-1"}`,
		"out.sh":    "cat \"$1.json\"\n",
		"out.yaml": "name: out\ncommand: [sh, out.sh]\noutput: json\ncwd: .\nsource: {tree_file: tree.json}\nverbs:\n" +
			"  - {name: big, path: [big], class: observe}\n  - {name: deep, path: [deep], class: observe}\n" +
			"  - {name: lone, path: [lone], class: observe}\n  - {name: ok, path: [ok], class: observe}\n",
		"tree.json": `{"program": "out", "dialect": "argparse", "commands": [{"path": ["big"], "runnable": true, "params": []},
			{"path": ["deep"], "runnable": true, "params": []}, {"path": ["lone"], "runnable": true, "params": []},
			{"path": ["ok"], "runnable": true, "params": []}]}`,
	}
	for name, body := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	c := serve(t, filepath.Join(dir, "out.yaml"))
	for _, op := range []string{"big", "deep", "lone"} {
		r := c.call(`{"ops": [{"op": "` + op + `"}, {"op": "ok"}]}`)
		results := r["results"].([]any)
		first, second := results[0].(map[string]any), results[1].(map[string]any)
		msg, _ := first["error"].(map[string]any)["message"].(string)
		if code(first) != "invalid_result" || !strings.Contains(msg, "not every client can decode") {
			t.Errorf("%s: %v; want invalid_result saying no client could decode it", op, first)
		}
		if res, _ := second["result"].(map[string]any); second["ok"] != true || res["output"].(map[string]any)["id"] != "run-1" {
			t.Errorf("%s: the op beside it answered %v; want its result", op, second)
		}
	}
}
