//go:build unix

package main

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/verbsurface/verbsurface/internal/procid"
)

// TestMCPSubmitWaitOutput is the newcomer's path, over stdio and over
// streamable HTTP: the one tool is listed; the catalog; help for
// agent.submit; a submit with its fingerprint; job.wait until terminal;
// job.output.
func TestMCPSubmitWaitOutput(t *testing.T) {
	t.Parallel()
	for _, transport := range []string{"stdio", "http"} {
		t.Run(transport, func(t *testing.T) {
			t.Parallel()
			e := newEnv(t)
			var c *mcpClient
			if transport == "stdio" {
				c = e.dialStdio(nil, nil)
			} else {
				const token = "e2e-token-0123456789abcdef0123456789"
				c = e.dialHTTP(e.startHTTP(token), token)
			}
			tools, err := c.cs.ListTools(context.Background(), nil)
			if err != nil {
				t.Fatal(err)
			}
			if len(tools.Tools) != 1 || tools.Tools[0].Name != "request" {
				t.Fatalf("tools/list: %s", mustJSON(t, tools))
			}
			if n := len(mustJSON(t, tools.Tools[0])); n >= 1024 {
				t.Fatalf("the request tool's tools/list entry is %d bytes; budget 1,024", n)
			}

			cat := c.catalog()
			if len(cat.Verbs) < 20 || !strings.HasPrefix(cat.Verbs[0], "agent.submit(") || len(cat.Unavailable) != 0 {
				t.Fatalf("catalog: %s", mustJSON(t, cat))
			}
			h := c.help("agent.submit")
			if h.Class != "spawn" || !slices.Equal(h.Schema.Required, []string{"model"}) || h.Schema.Properties["prompt"] == nil {
				t.Fatalf("help agent.submit: %s", mustJSON(t, h))
			}
			var s submitted
			o := c.must(&s, "agent.submit", map[string]any{"model": "echo:delay=300ms", "prompt": "hello over " + transport}, h.SchemaFingerprint)
			if o.Class != "spawn" || s.Kind != "invocation" || s.PID <= 0 {
				t.Fatalf("agent.submit: %s", o.raw)
			}
			var w waitData
			for !w.AllTerminal {
				c.must(&w, "job.wait", map[string]any{"ids": []any{s.ID}, "max_wait_seconds": 10}, "")
			}
			if en := w.Entries[0]; en.Status != "completed" || en.Outcome != "succeeded" || en.ReasonCode != "run.completed.exit_0" {
				t.Fatalf("job.wait: %+v", w)
			}
			var out struct {
				Stdout string `json:"stdout"`
				Status string `json:"status"`
			}
			c.must(&out, "job.output", map[string]any{"id": s.ID}, "")
			if out.Stdout != "hello over "+transport || out.Status != "completed" {
				t.Fatalf("job.output: %+v", out)
			}
			if transport == "stdio" {
				c.cs.Close() // the server exits with its session; nothing is left
				e.assertNoProcesses(10 * time.Second)
			}
		})
	}
}

// TestMCPStaleFingerprintRepairedInOneRoundTrip: a spawn op with a stale
// (or no) fingerprint is refused with the current fingerprint and schema in
// the error, so the very next call succeeds.
func TestMCPStaleFingerprintRepairedInOneRoundTrip(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	c := e.dialStdio(nil, nil)
	args := map[string]any{"model": "echo", "prompt": "repair me"}
	stale := c.fail("stale_fingerprint", "agent.submit", args, "sf1-0000000000000000")
	missing := c.fail("missing_fingerprint", "agent.submit", args, "")
	for _, o := range []*mcpOp{stale, missing} {
		if !strings.HasPrefix(o.Error.SchemaFingerprint, "sf1-") || len(o.Error.Schema) == 0 || !jsonEqual(o.Error.HelpCall, []byte(`{"help":"agent.submit"}`)) {
			t.Fatalf("the refusal does not teach: %s", o.raw)
		}
	}
	if _, err := os.Stat(filepath.Join(e.home, "runs")); err == nil {
		t.Fatalf("a refused submit started something")
	}
	var s submitted
	c.must(&s, "agent.submit", args, stale.Error.SchemaFingerprint)
	e.waitTerminal(s.ID)
}

// TestMCPFencedVerbsAndRetiredSynonyms: the fenced commands are refused as
// ops and as help, never listed; the seven v1 names are rejected (their
// sunset is past) naming the verb to use.
func TestMCPFencedVerbsAndRetiredSynonyms(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	c := e.dialStdio(nil, nil)
	for _, verb := range []string{"state.migrate", "plugin.trust", "hooks.trust", "state migrate"} {
		o := c.fail("not_allowed", verb, map[string]any{}, "")
		if !strings.Contains(o.Error.Message, "terminal") {
			t.Errorf("%s: the refusal does not say why: %s", verb, o.raw)
		}
		r := c.request(map[string]any{"help": verb})
		var he struct {
			Error *mcpErr `json:"error"`
		}
		if json.Unmarshal(r.Help, &he) != nil || he.Error == nil || he.Error.Code != "not_allowed" {
			t.Errorf("help %q: %s", verb, r.raw)
		}
	}
	for syn, verb := range map[string]string{
		"submit_agent": "agent.submit", "submit_flow": "flow.submit", "submit_fanout": "fanout.submit",
		"job_status": "job.status", "job_output": "job.output", "job_kill": "job.kill", "jobs_list": "job.list",
	} {
		o := c.fail("retired_synonym", syn, map[string]any{}, "")
		if o.Error.Use != verb || !strings.Contains(o.Error.Message, verb) {
			t.Errorf("%s: %s; want the replacement %s named", syn, o.raw, verb)
		}
	}
	cat := mustJSON(t, c.catalog())
	for _, never := range []string{"migrate", "trust", "submit_agent", "jobs_list", "mcp", "call"} {
		if strings.Contains(cat, never) {
			t.Errorf("the catalog mentions %q: %s", never, cat)
		}
	}
}

// TestMCPDisconnectMidWaitLeavesRunRunning: a client that cancels a
// job.wait, or goes away while one observes, changes nothing: the run keeps
// running and completes normally, the server exits on the disconnect, and
// no process is left.
func TestMCPDisconnectMidWaitLeavesRunRunning(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	c, srv := e.dialRaw()
	s := c.submitEcho("echo:delay=4s", "still here")
	e.waitStarted(s.ID)
	waitArgs := map[string]any{"ops": []any{map[string]any{"op": "job.wait",
		"args": map[string]any{"ids": []any{s.ID}, "max_wait_seconds": 30, "poll_interval_seconds": 0.2}}}}

	// A cancel: the call ends at once (notifications/cancelled), the run does not.
	ctx, cancel := context.WithTimeout(context.Background(), 500*time.Millisecond)
	t0 := time.Now()
	_, err := c.cs.CallTool(ctx, &mcp.CallToolParams{Name: "request", Arguments: waitArgs})
	cancel()
	if err == nil || time.Since(t0) > 3*time.Second {
		t.Fatalf("a cancelled job.wait returned %v after %v", err, time.Since(t0))
	}
	if r := e.status(s.ID); r.Status != "running" {
		t.Fatalf("after the cancel the run is %s (%s); want running", r.Status, r.ReasonCode)
	}

	// A disconnect: stdin closes under a job.wait in flight.
	callDone := make(chan error, 1)
	go func() {
		_, err := c.cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "request", Arguments: waitArgs})
		callDone <- err
	}()
	time.Sleep(500 * time.Millisecond)
	srv.stdin.Close()
	select {
	case <-srv.exited:
	case <-time.After(5 * time.Second):
		t.Fatalf("the server did not exit when its client went away\n%s", srv.log)
	}
	if err := <-callDone; err == nil {
		t.Fatalf("the job.wait call succeeded although its server went away")
	}
	if r := e.status(s.ID); r.Terminal || r.Status != "running" {
		t.Fatalf("right after the disconnect the run is %s (%s); want still running", r.Status, r.ReasonCode)
	}
	r := e.waitTerminal(s.ID)
	if r.Status != "completed" || r.ReasonCode != "run.completed.exit_0" {
		t.Fatalf("the run ended %s (%s); want completed normally", r.Status, r.ReasonCode)
	}
	var out struct {
		Stdout string `json:"stdout"`
	}
	e.ok(&out, "job", "output", s.ID)
	if out.Stdout != "still here" {
		t.Fatalf("output %q", out.Stdout)
	}
	e.assertNoProcesses(10 * time.Second)
}

// groupMembers lists live processes whose process group is pgid.
func groupMembers(pgid int) []int {
	members, _ := procid.GroupMembers(pgid)
	return members
}

// TestMCPKillPlayLeavesNoProcess: a play (discovered through its
// playbook's help) with two slow steps is killed through job.kill, which
// delegates to `limcp kill`: every entity is recorded cancelled and no
// process of any of them is left. A show is refused.
func TestMCPKillPlayLeavesNoProcess(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.writeFile("providers.yaml", slowProviders)
	e.writeFile("playbooks/slow2.playbook.yaml", `description: two slow steps
args:
  - {name: tag, type: str, default: x}
flow:
  steps:
    - {id: a, model: slow, prompt: "a {{.prompt}}"}
    - {id: b, model: slow, prompt: "b {{.prompt}}"}
`)
	c := e.dialStdio(nil, nil)
	h := c.help(map[string]any{"verb": "play.submit", "playbook": "slow2"})
	if h.Schema.Properties["tag"] == nil || !strings.HasPrefix(h.PlaybookFingerprint, "pf1-") {
		t.Fatalf("playbook help: %s", mustJSON(t, h))
	}
	var s submitted
	r := c.request(map[string]any{"ops": []any{map[string]any{"op": "play.submit",
		"args":        map[string]any{"playbook": "slow2", "prompt": "go", "tag": "y", "show": "night"},
		"fingerprint": h.SchemaFingerprint, "playbook_fingerprint": h.PlaybookFingerprint}}})
	if !r.Results[0].OK || json.Unmarshal(r.Results[0].Result, &s) != nil || s.Kind != "play" || s.Session == "" || s.Show == "" {
		t.Fatalf("play.submit: %s", r.raw)
	}
	if strings.Contains(string(r.Results[0].raw), "playbook_changed") {
		t.Fatalf("the playbook reads as changed: %s", r.raw)
	}
	sess := e.waitChildrenStarted(s.Session, 2)
	ids := append([]string{s.ID, s.Session}, sess.Children...)
	var groups []int
	for _, id := range ids {
		if r := e.status(id); r.PGID != nil {
			groups = append(groups, *r.PGID)
		}
	}
	if len(groups) < 3 {
		t.Fatalf("only %d process groups recorded before the kill", len(groups))
	}

	show := c.fail("handler_error", "job.kill", map[string]any{"id": s.Show}, "")
	if show.Error.Details["code"] != "show_kill_unsupported" {
		t.Fatalf("killing the show: %s", show.raw)
	}
	var res struct {
		Decision struct {
			Action string `json:"action"`
		} `json:"decision"`
		Delegated struct {
			Argv []string `json:"argv"`
			OK   bool     `json:"ok"`
			Data struct {
				Reaped []struct{ Kind, ID, Status string } `json:"reaped"`
			} `json:"data"`
		} `json:"delegated"`
	}
	o := c.must(&res, "job.kill", map[string]any{"id": s.ID[:8], "grace": "2s"}, "")
	if o.Class != "control" || res.Decision.Action != "delegate" || !res.Delegated.OK ||
		!slices.Equal(res.Delegated.Argv, []string{"kill", "--json", "--grace=2s", "--", s.ID}) || len(res.Delegated.Data.Reaped) != 4 {
		t.Fatalf("job.kill: %s", o.raw)
	}
	for _, id := range ids {
		if r := e.status(id); r.Status != "cancelled" {
			t.Errorf("%s %s is %s after job.kill", r.Kind, id, r.Status)
		}
	}
	for _, g := range groups {
		if m := groupMembers(g); len(m) > 0 {
			t.Errorf("process group %d still has members %v after job.kill", g, m)
		}
	}
	c.cs.Close()
	e.assertNoProcesses(10 * time.Second)
}

// TestMCPReadOnly: `limcp mcp --read-only` refuses a submit (and every
// other non-observe verb) and still observes.
func TestMCPReadOnly(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	c := e.dialStdio(nil, nil, "--read-only")
	fp := c.help("agent.submit").SchemaFingerprint
	o := c.fail("policy_refused", "agent.submit", map[string]any{"model": "echo", "prompt": "no"}, fp)
	if !strings.Contains(o.Error.Message, "agent.submit") {
		t.Errorf("refusal: %s", o.raw)
	}
	c.fail("policy_refused", "team.create", map[string]any{"name": "t"}, "")
	c.must(nil, "job.list", map[string]any{}, "")
	if _, err := os.Stat(filepath.Join(e.home, "runs")); err == nil {
		t.Fatalf("a run was started by a read-only server")
	}
}

// TestMCPHTTPBearerAndBind: over HTTP, a request without the token (or
// with a wrong one) gets 401 and one with it works; a non-loopback bind
// without a token is refused, and a short token too.
func TestMCPHTTPBearerAndBind(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	const token = "correct-horse-battery-staple-0123456789"
	url := e.startHTTP(token)
	initialize := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"0"}}}`
	for name, auth := range map[string]string{"none": "", "wrong": "Bearer not-the-token-at-all-no", "basic": "Basic " + token} {
		req, _ := http.NewRequest("POST", url, strings.NewReader(initialize))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		if auth != "" {
			req.Header.Set("Authorization", auth)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusUnauthorized {
			t.Errorf("%s authorization: HTTP %d; want 401", name, resp.StatusCode)
		}
	}
	c := e.dialHTTP(url, token)
	c.must(nil, "job.list", map[string]any{}, "")

	// Without a token, only loopback.
	_, stderr, code := e.run("mcp", "--http", "0.0.0.0:0")
	if code == 0 || !strings.Contains(stderr, "non-loopback") {
		t.Errorf("non-loopback bind without a token: exit %d, %s", code, stderr)
	}
	bad := e.fail("invalid_argument", "mcp", "--http", "0.0.0.0:0")
	if !strings.Contains(bad.Error.Message, "LIMCP_MCP_TOKEN") {
		t.Errorf("the refusal does not say how to fix it: %s", bad.Error.Message)
	}
	tokenFile := e.writeFile("short-token", "short\n")
	e.fail("invalid_argument", "mcp", "--http", "127.0.0.1:0", "--token-file", tokenFile)
	// With a token, any address binds.
	e.startHTTP(token, "--http", "0.0.0.0:0")
}

// TestLimcpCall: `limcp call` prints the response as compact JSON and
// exits 0 for "success", 1 for "error" (nothing succeeded), 2 for
// "partial"; "-" reads stdin;
// what is not a JSON object is refused before any server starts.
func TestLimcpCall(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	out, stderr, code := e.limcpCall("", `{"help": true}`)
	var r mcpResp
	if code != 0 || json.Unmarshal([]byte(out), &r) != nil || r.Status != "success" || strings.Count(out, "\n") != 1 {
		t.Fatalf("limcp call help: exit %d\n%s\n%s", code, out, stderr)
	}
	out, _, code = e.limcpCall(`{"ops": [{"op": "job.list", "args": {}}, {"op": "no.such", "args": {}}]}`, "-")
	if code != 2 || !strings.Contains(out, `"status":"partial"`) || !strings.Contains(out, `"unknown_verb"`) {
		t.Fatalf("limcp call - (partial): exit %d\n%s", code, out)
	}
	// Requests where nothing succeeded are errors, not half-successes.
	for _, req := range []string{
		`{"ops":[{"op":"agent.submit","args":{"model":"echo","prompt":"p"}}]}`, // no fingerprint
		`{"ops":[{"op":"nope"}]}`,
		`{"help":"nope"}`,
		`{"help":"state.migrate"}`,
	} {
		out, _, code = e.limcpCall("", req)
		if code != 1 || !strings.Contains(out, `"status":"error"`) {
			t.Errorf("limcp call %s: exit %d (want 1)\n%s", req, code, out)
		}
	}
	out, _, code = e.limcpCall("", `{"ops": []}`)
	if code != 1 || !strings.Contains(out, `"status":"error"`) || !strings.Contains(out, "malformed_envelope") {
		t.Fatalf("limcp call with a malformed envelope: exit %d\n%s", code, out)
	}
	// A submit through `limcp call`: its server is gone before the run
	// ends, so the run carries no notify that could only fail.
	var help struct {
		Help mcpHelp `json:"help"`
	}
	out, _, code = e.limcpCall("", `{"help": "agent.submit"}`)
	if code != 0 || json.Unmarshal([]byte(out), &help) != nil || help.Help.SchemaFingerprint == "" {
		t.Fatalf("limcp call help agent.submit: exit %d\n%s", code, out)
	}
	out, _, code = e.limcpCall(`{"ops": [{"op": "agent.submit", "fingerprint": "`+help.Help.SchemaFingerprint+`", "args": {"model": "echo", "prompt": "via call"}}]}`, "-")
	var sub struct {
		Results []struct {
			Result submitted `json:"result"`
		} `json:"results"`
	}
	if code != 0 || json.Unmarshal([]byte(out), &sub) != nil || len(sub.Results) != 1 || sub.Results[0].Result.ID == "" {
		t.Fatalf("limcp call agent.submit: exit %d\n%s", code, out)
	}
	id := sub.Results[0].Result.ID
	e.waitTerminal(id)
	if n := e.notified(id).Notify; n != nil {
		t.Fatalf("a run submitted by limcp call notifies a server that has exited: %+v", n)
	}

	for _, req := range []string{"not json", "[1]"} {
		out, stderr, code = e.limcpCall("", req)
		if code != 1 || out != "" || !strings.Contains(stderr, "request") {
			t.Errorf("limcp call %q: exit %d\nstdout %q\nstderr %q", req, code, out, stderr)
		}
	}
	e.fail("invalid_argument", "call", "[1]")
	e.assertNoProcesses(5 * time.Second)
}

// TestMCPWaitWakesSoonAfterRunEnds: with a 5 s poll interval, job.wait on
// a run submitted through the server answers soon after the run's recorded
// end: the store signal and the run's notify wake it. Polling alone would
// answer about 3.5 s after the end (the run ends ~1.5 s into the 5 s
// interval); the bound leaves a loaded machine 1 s of slack above the 200 ms
// target.
func TestMCPWaitWakesSoonAfterRunEnds(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	c := e.dialStdio(nil, nil)
	s := c.submitEcho("echo:delay=1500ms", "wake me")
	var w waitData
	c.must(&w, "job.wait", map[string]any{"ids": []any{s.ID}, "poll_interval_seconds": 5, "max_wait_seconds": 20}, "")
	arrived := time.Now()
	if !w.AllTerminal || w.PollIntervalSeconds != 5 {
		t.Fatalf("job.wait: %+v", w)
	}
	late := arrived.Sub(endedAt(t, e, s.ID))
	t.Logf("job.wait answered %v after the run's end (poll interval 5 s)", late)
	if late > 1200*time.Millisecond {
		t.Fatalf("job.wait answered %v after the run's end: no early wake", late)
	}
}

func endedAt(t *testing.T, e *env, id string) time.Time {
	t.Helper()
	var d struct {
		Records []struct {
			EndedAt time.Time `json:"ended_at"`
		} `json:"records"`
	}
	e.ok(&d, "job", "status", id)
	if len(d.Records) != 1 || d.Records[0].EndedAt.IsZero() {
		t.Fatalf("%s has no end recorded", id)
	}
	return d.Records[0].EndedAt
}

// TestMCPWaitObservesRunsSubmittedElsewhere: a run started by a plain
// `limcp agent` (no server, no notify) is observed correctly by job.wait,
// and an unknown id is a per-id error, not a success.
func TestMCPWaitObservesRunsSubmittedElsewhere(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	c := e.dialStdio(nil, nil)
	ok := e.submit("agent", "echo:delay=1s", "outside")
	bad := e.submit("agent", "echo:exit=3", "outside, failing")
	var w waitData
	c.must(&w, "job.wait", map[string]any{"ids": []any{ok.ID, bad.ID[:8], "ffffffffffffffff"}, "poll_interval_seconds": 5, "max_wait_seconds": 20}, "")
	if w.AllTerminal || len(w.Entries) != 3 || len(w.Pending) != 0 {
		t.Fatalf("job.wait: %+v", w)
	}
	if en := w.Entries[0]; en.Status != "completed" || en.Outcome != "succeeded" {
		t.Errorf("the run submitted elsewhere: %+v", en)
	}
	if en := w.Entries[1]; en.Status != "failed" || en.Outcome != "failed" || en.ReasonCode != "run.failed.exit_nonzero" {
		t.Errorf("the failing run: %+v", en)
	}
	if en := w.Entries[2]; en.Error == nil || en.Error.Code != "unknown_id" || en.Terminal || en.Outcome != "none" {
		t.Errorf("the unknown id: %+v", en)
	}
}

// TestMCPLargePromptIsSnapshotted: a 1 MiB prompt — too large for one argv
// entry — reaches the run whole through a private snapshot file that the
// CLI reads at submit and the server removes after the command exits; a
// prompt_file is read at submit, so a later edit does not change the run.
func TestMCPLargePromptIsSnapshotted(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	tmp := t.TempDir()
	root := t.TempDir() // the prompt_file below is here, beside the home (no root may hold it)
	c := e.dialStdio(nil, []string{"TMPDIR=" + tmp}, "--root", root)
	fp := c.help("agent.submit").SchemaFingerprint

	prompt := strings.Repeat("0123456789abcdef", (1<<20)/16)
	sum := sha256.Sum256([]byte(prompt))
	var s submitted
	o := c.must(&s, "agent.submit", map[string]any{"model": "echo", "prompt": prompt}, fp)
	var info struct {
		PromptBytes  int    `json:"prompt_bytes"`
		PromptSHA256 string `json:"prompt_sha256"`
		PromptSource string `json:"prompt_source"`
	}
	if err := json.Unmarshal(o.raw, &info); err != nil || info.PromptBytes != 1<<20 || info.PromptSHA256 != hex.EncodeToString(sum[:]) || info.PromptSource != "prompt" {
		t.Fatalf("prompt info %+v (%v)", info, err)
	}
	if s.Prompt.Bytes != 1<<20 || s.Prompt.SHA256 != info.PromptSHA256 {
		t.Fatalf("the CLI recorded %+v for the prompt", s.Prompt)
	}
	// The CLI read it from a file (the snapshot), not from argv.
	if !strings.Contains(string(o.Result), `"prompt_source":"prompt_file"`) {
		t.Fatalf("the CLI did not read the prompt from the snapshot file: %.300s", o.Result)
	}
	if left, _ := os.ReadDir(tmp); len(left) != 0 {
		t.Fatalf("snapshots left behind after the submit: %v", left)
	}
	e.waitTerminal(s.ID)
	var out struct {
		StdoutBytes int64 `json:"stdout_bytes"`
		Stdout      string
	}
	c.must(&out, "job.output", map[string]any{"id": s.ID}, "")
	if out.StdoutBytes != 1<<20 || !strings.HasSuffix(prompt, out.Stdout) {
		t.Fatalf("the run wrote %d bytes back; want the whole 1 MiB prompt", out.StdoutBytes)
	}
	tooBig := c.fail("invalid_args", "agent.submit", map[string]any{"model": "echo", "prompt": prompt + "x"}, fp)
	if tooBig.Error.Problems[0]["param"] != "prompt" {
		t.Errorf("an over-long prompt: %s", tooBig.raw)
	}

	file := writeIn(t, root, "prompt.txt", "from the file")
	var s2 submitted
	o = c.must(&s2, "agent.submit", map[string]any{"model": "echo:delay=500ms", "prompt_file": file}, fp)
	if err := os.WriteFile(file, []byte("edited after submit"), 0o600); err != nil {
		t.Fatal(err)
	}
	e.waitTerminal(s2.ID)
	c.must(&out, "job.output", map[string]any{"id": s2.ID}, "")
	if out.Stdout != "from the file" || !strings.Contains(string(o.raw), `"prompt_source":"prompt_file"`) {
		t.Fatalf("prompt_file: output %q, result %s", out.Stdout, o.raw)
	}
	if left, _ := os.ReadDir(tmp); len(left) != 0 {
		t.Fatalf("snapshots left behind: %v", left)
	}
}

// TestHelpForUnknownPlaybookNamesTheUsersThings: help naming a playbook
// that is not there says so in the caller's words: the playbook's name
// and where it would be relative to the state home; no Go package and
// no absolute path of the server (checkWords fails the test otherwise).
func TestHelpForUnknownPlaybookNamesTheUsersThings(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	c := e.dialStdio(nil, nil)
	r := c.request(map[string]any{"help": map[string]any{"verb": "play.submit", "playbook": "nope"}})
	raw := string(r.raw)
	if r.Status != "error" || !strings.Contains(raw, `playbook \"nope\" not found`) || !strings.Contains(raw, "playbooks/nope.playbook.yaml") {
		t.Fatalf("help for a missing playbook: %s", raw)
	}
}

// TestIDsAndFieldsAgree: every result names a run by its full id (a
// prefix given to job.wait comes back as "requested" beside it), and a
// submit result spells each field one way: worker_pid beside the record's
// own pid (null until the worker records itself, then equal), and the same
// prompt_source at the top and inside the record.
func TestIDsAndFieldsAgree(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	c := e.dialStdio(nil, nil)
	fp := c.help("agent.submit").SchemaFingerprint
	o := c.op("agent.submit", map[string]any{"model": "echo", "prompt": "ids"}, fp)
	var sub map[string]any
	if err := json.Unmarshal(o.Result, &sub); err != nil || o.OK != true {
		t.Fatalf("agent.submit: %s", o.raw)
	}
	id, _ := sub["id"].(string)
	rec, _ := sub["record"].(map[string]any)
	prompt, _ := sub["prompt"].(map[string]any)
	recPrompt, _ := rec["spec"].(map[string]any)["prompt"].(map[string]any)
	if _, has := sub["pid"]; has || sub["worker_pid"] == nil || len(id) != 16 {
		t.Errorf("submit result keys: %s", o.Result)
	}
	if prompt["prompt_source"] != "prompt" || recPrompt["prompt_source"] != "prompt" {
		t.Errorf("prompt_source: top %v, record %v; want prompt at both", prompt["prompt_source"], recPrompt["prompt_source"])
	}
	var w waitData
	for !w.AllTerminal {
		c.must(&w, "job.wait", map[string]any{"ids": []any{id[:8]}, "max_wait_seconds": 10}, "")
	}
	var raw struct {
		Entries []struct {
			ID        string `json:"id"`
			Requested string `json:"requested"`
		} `json:"entries"`
	}
	o = c.must(&raw, "job.wait", map[string]any{"ids": []any{id[:8], id}, "max_wait_seconds": 0}, "")
	if len(raw.Entries) != 2 || raw.Entries[0].ID != id || raw.Entries[0].Requested != id[:8] || raw.Entries[1].ID != id || raw.Entries[1].Requested != "" {
		t.Errorf("job.wait with a prefix and the full id: %s", o.raw)
	}
	var out struct {
		ID string `json:"id"`
	}
	c.must(&out, "job.output", map[string]any{"id": id[:8]}, "")
	var st struct {
		Records []struct {
			ID  string `json:"id"`
			PID *int   `json:"pid"`
		} `json:"records"`
	}
	c.must(&st, "job.status", map[string]any{"ids": []any{id[:8]}}, "")
	if out.ID != id || len(st.Records) == 0 || st.Records[0].ID != id {
		t.Errorf("job.output id %q, job.status %+v; want the full id %s", out.ID, st, id)
	}
	if pid := st.Records[0].PID; pid == nil || float64(*pid) != sub["worker_pid"].(float64) {
		t.Errorf("the started record's pid %v is not the submit's worker_pid %v", pid, sub["worker_pid"])
	}
}

// TestNegativeDurationsAreRefusedByTheSchema: a duration below zero is
// refused by validation, with the schema and the help call, not passed to
// the CLI to come back as a cli_error.
func TestNegativeDurationsAreRefusedByTheSchema(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	c := e.dialStdio(nil, nil)
	fp := c.help("agent.submit").SchemaFingerprint
	o := c.fail("invalid_args", "agent.submit", map[string]any{"model": "echo", "prompt": "p", "timeout": "-5s"}, fp)
	if len(o.Error.Problems) != 1 || o.Error.Problems[0]["param"] != "timeout" || len(o.Error.Schema) == 0 {
		t.Fatalf("timeout -5s: %s", o.raw)
	}
	c.must(nil, "agent.submit", map[string]any{"model": "echo", "prompt": "p", "timeout": "+5s"}, fp)
}

// TestSchemasTeach: every parameter of every limcp verb has a description
// written for a model, never just its usage-line placeholder ("MODEL",
// "[PROMPT]", "IDS...") nor the adapter's generic fallback; the catalog
// stays under 90 bytes a verb and each verb's help under 4 KiB.
func TestSchemasTeach(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.writeFile("playbooks/audit.playbook.yaml", "flow: {steps: [{id: a, model: echo, prompt: x}]}\n")
	c := e.dialStdio(nil, nil)
	cat := c.request(map[string]any{"help": true})
	var catalog struct {
		Help struct {
			Verbs []string `json:"verbs"`
		} `json:"help"`
	}
	if err := json.Unmarshal(cat.raw, &catalog); err != nil || len(catalog.Help.Verbs) == 0 {
		t.Fatalf("catalog: %s", cat.raw)
	}
	if per := len(cat.raw) / len(catalog.Help.Verbs); per >= 90 {
		t.Errorf("the catalog is %d bytes for %d verbs: %d a verb, over 90", len(cat.raw), len(catalog.Help.Verbs), per)
	}
	placeholder := regexp.MustCompile(`^\[?[A-Z][A-Z0-9_]*(\.\.\.)?\]?$`)
	for _, line := range catalog.Help.Verbs {
		verb, _, _ := strings.Cut(line, "(")
		h := c.request(map[string]any{"help": verb})
		if len(h.raw) >= 4096 {
			t.Errorf("help %s is %d bytes, over 4 KiB", verb, len(h.raw))
		}
		help := c.help(verb)
		for name, raw := range help.Schema.Properties {
			d := description(raw)
			switch {
			case strings.TrimSpace(d) == "":
				t.Errorf("%s %s has no description", verb, name)
			case placeholder.MatchString(d):
				t.Errorf("%s %s is described by its placeholder %q", verb, name, d)
			case strings.Contains(d, "positional argument"):
				t.Errorf("%s %s has only the adapter's fallback: %q", verb, name, d)
			}
		}
	}
	if d := description(c.help("play.submit").Schema.Properties["playbook"]); !strings.Contains(d, "audit") {
		t.Errorf("playbook's description does not name the playbooks present: %q", d)
	}
	if d := description(c.help("agent.submit").Schema.Properties["model"]); !strings.Contains(d, "echo") {
		t.Errorf("model's description does not name echo: %q", d)
	}
}

// description is a property schema's description.
func description(raw json.RawMessage) string {
	var p struct {
		Description string `json:"description"`
	}
	_ = json.Unmarshal(raw, &p)
	return p.Description
}
