//go:build unix

package main

// End-to-end tests of issue 13's environment rule, request limits and
// stored-command guard, each an attack against the built binary that
// succeeded before them: a canary secret in the server's environment, a
// model name that is an option, a wait over 10,000 ids or one id 300,000
// times, an answer amplified past any bound, a burst of spawns over
// concurrent calls, and a schedule whose playbook changed under it.

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// dialStdioCmd is dialStdio that also returns the server's process, so a
// test can read its memory.
func (e *env) dialStdioCmd(extraEnv []string, args ...string) (*mcpClient, *exec.Cmd) {
	e.t.Helper()
	cmd := execLimcp(e, extraEnv, append([]string{"--home", e.home, "mcp"}, args...)...)
	log := &serverLog{}
	cmd.Stderr = log
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "e2e", Version: "v0"}, nil).
		Connect(context.Background(), &mcp.CommandTransport{Command: cmd, TerminateDuration: 2 * time.Second}, nil)
	if err != nil {
		e.t.Fatalf("starting limcp mcp: %v\n%s", err, log)
	}
	e.t.Cleanup(func() { cs.Close() })
	return &mcpClient{t: e.t, cs: cs}, cmd
}

// environOf reads /proc/PID/environ as a map.
func environOf(t *testing.T, pid int) map[string]string {
	t.Helper()
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/environ", pid))
	if err != nil {
		t.Fatalf("reading the environment of %d: %v", pid, err)
	}
	out := map[string]string{}
	for _, kv := range bytes.Split(b, []byte{0}) {
		if k, v, ok := strings.Cut(string(kv), "="); ok {
			out[k] = v
		}
	}
	return out
}

// cmdlineOf is pid's arguments, space-joined ("" once it is gone).
func cmdlineOf(pid int) string {
	b, _ := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/cmdline")
	return strings.ReplaceAll(string(b), "\x00", " ")
}

// childrenOf lists the live processes whose parent is pid.
func childrenOf(pid int) []int {
	ents, _ := os.ReadDir("/proc")
	var out []int
	for _, ent := range ents {
		child, err := strconv.Atoi(ent.Name())
		if err != nil {
			continue
		}
		st, err := os.ReadFile("/proc/" + ent.Name() + "/stat")
		if err != nil {
			continue
		}
		i := bytes.LastIndexByte(st, ')')
		if i < 0 {
			continue
		}
		fields := strings.Fields(string(st[i+1:]))
		if len(fields) > 1 && fields[1] == strconv.Itoa(pid) && fields[0] != "Z" {
			out = append(out, child)
		}
	}
	return out
}

// TestRunEnvironmentHoldsNoServerSecret: a canary secret and the bearer
// token in the server's environment reach neither the worker nor the
// provider process of a run submitted through the server; the variable
// providers.yaml passes through, and the value it sets, reach the provider
// and nothing else: not the worker's environment (it gets them on a pipe),
// where a variable of one provider sat for every other provider's run to
// read.
func TestRunEnvironmentHoldsNoServerSecret(t *testing.T) {
	e := newEnv(t)
	e.writeFile("providers.yaml", "providers:\n  - name: sleeper\n    argv: [\"sleep\", \"30\"]\n"+
		"    env: [ANTHROPIC_API_KEY]\n    set: {AGENT_MODE: batch}\n")
	c := e.dialStdio(nil, []string{"CANARY_SECRET=canary-e2e-7f3a", "LIMCP_MCP_TOKEN=token-canary-e2e", "ANTHROPIC_API_KEY=declared-key"})
	s := c.submitEcho("sleeper", "hello")
	rec := e.waitStarted(s.ID)
	worker := *rec.PID
	// The provider is the worker's child that runs sleep, told by its
	// command line: a CI run that took the first child it saw read one
	// that was gone by the time its environment was read.
	var provider int
	for deadline := time.Now().Add(30 * time.Second); provider == 0 && time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		for _, kid := range childrenOf(worker) {
			if argv := strings.Fields(cmdlineOf(kid)); len(argv) == 2 && filepath.Base(argv[0]) == "sleep" && argv[1] == "30" {
				provider = kid
			}
		}
	}
	if provider == 0 {
		t.Fatalf("the worker %d started no provider process (sleep 30) within 30s; its children now: %v", worker, childrenOf(worker))
	}
	for _, p := range []struct {
		what string
		pid  int
	}{{"worker", worker}, {"provider", provider}} {
		env := environOf(t, p.pid)
		for _, secret := range []string{"CANARY_SECRET", "LIMCP_MCP_TOKEN"} {
			if v, ok := env[secret]; ok {
				t.Errorf("the %s (pid %d) sees %s=%s", p.what, p.pid, secret, v)
			}
		}
		if v, ok := env["ANTHROPIC_API_KEY"]; p.what == "worker" && ok {
			t.Errorf("the worker's environment holds the provider's variable ANTHROPIC_API_KEY=%s", v)
		} else if p.what == "provider" && v != "declared-key" {
			t.Errorf("the provider does not see the variable providers.yaml passes through: %q", v)
		}
		if env["LIMCP_HOME"] != e.home {
			t.Errorf("the %s sees LIMCP_HOME=%q; want the home", p.what, env["LIMCP_HOME"])
		}
	}
	if env := environOf(t, provider); env["AGENT_MODE"] != "batch" {
		t.Errorf("the provider does not see providers.yaml's set value: AGENT_MODE=%q", env["AGENT_MODE"])
	}
	c.must(nil, "job.kill", map[string]any{"id": s.ID, "grace": "1s"}, "")
}

// TestModelThatIsAnOptionIsRefused: "local:--exec=/bin/sh" would put an
// option in the provider's {model} slot. Over MCP it is refused at
// validation, the schema stating the pattern; the CLI refuses it too.
func TestModelThatIsAnOptionIsRefused(t *testing.T) {
	e := newEnv(t)
	e.writeFile("providers.yaml", "providers:\n  - name: local\n    argv: [\"cat\", \"{model}\"]\n")
	c := e.dialStdio(nil, nil)
	fp := c.help("agent.submit").SchemaFingerprint
	o := c.fail("invalid_args", "agent.submit", map[string]any{"model": "local:--exec=/bin/sh", "prompt": "x"}, fp)
	if len(o.Error.Problems) != 1 || o.Error.Problems[0]["param"] != "model" || o.Error.Problems[0]["rule"] != "pattern" {
		t.Fatalf("problems %v; want one pattern problem on model", o.Error.Problems)
	}
	var schema struct {
		Properties map[string]struct {
			Pattern string `json:"pattern"`
		} `json:"properties"`
	}
	if err := json.Unmarshal(o.Error.Schema, &schema); err != nil || !strings.Contains(schema.Properties["model"].Pattern, "^[a-z]") {
		t.Fatalf("the schema the error carries states no model pattern: %s", o.Error.Schema)
	}
	r := e.fail("invalid_argument", "agent", "local:--exec=/bin/sh", "x")
	if !strings.Contains(r.Error.Message, "does not match") {
		t.Fatalf("CLI: %s; want the pattern named", r.Error.Message)
	}
}

// peakRSS reads a process's peak resident set (VmHWM) in bytes.
func peakRSS(t *testing.T, pid int) int64 {
	t.Helper()
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(string(b), "\n") {
		if rest, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			kb, _ := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 10, 64)
			return kb << 10
		}
	}
	t.Fatal("no VmHWM")
	return 0
}

// TestWaitIDsAreBounded: a job.wait over 10,000 ids, or over one id
// 300,000 times (3.3 MB), is refused at validation with one problem that
// teaches (the schema states maxItems and uniqueItems), and the server's
// memory stays small; a duplicate within the bound is refused too.
func TestWaitIDsAreBounded(t *testing.T) {
	e := newEnv(t)
	c, cmd := e.dialStdioCmd(nil)
	s := c.submitEcho("echo", "x")
	many := make([]string, 10000)
	for i := range many {
		many[i] = fmt.Sprintf("%016x", i)
	}
	same := make([]string, 300000)
	for i := range same {
		same[i] = s.ID
	}
	for _, tt := range []struct {
		name string
		ids  []string
		rule string
	}{
		{"10,000 ids", many, "too_many_items"},
		{"300,000 copies of one id", same, "too_many_items"},
		{"one id twice", []string{s.ID, s.ID}, "duplicate_items"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			r := c.request(map[string]any{"ops": []any{map[string]any{"op": "job.wait", "args": map[string]any{"ids": tt.ids, "max_wait_seconds": 0}}}})
			o := r.Results[0]
			if o.OK || o.Error.Code != "invalid_args" || len(o.Error.Problems) != 1 || o.Error.Problems[0]["rule"] != tt.rule {
				t.Fatalf("%.600s; want invalid_args with one %s problem", r.raw, tt.rule)
			}
			if len(r.raw) > 16<<10 {
				t.Fatalf("the refusal is %d bytes; want it small", len(r.raw))
			}
			if !bytes.Contains(o.Error.Schema, []byte(`"maxItems":256`)) || !bytes.Contains(o.Error.Schema, []byte(`"uniqueItems":true`)) {
				t.Fatalf("the schema does not state the bounds: %s", o.Error.Schema)
			}
		})
	}
	rss := peakRSS(t, cmd.Process.Pid)
	t.Logf("server peak resident memory: %.1f MB", float64(rss)/(1<<20))
	if rss > 150<<20 {
		t.Fatalf("the server's peak resident memory is %d MB; want it under 150 MB", rss>>20)
	}
}

// TestResponseCap: with --max-response-bytes, a result that would take the
// answer past the cap is response_too_large naming the op and the cap;
// the result before it stays.
func TestResponseCap(t *testing.T) {
	e := newEnv(t)
	c := e.dialStdio(nil, nil, "--max-response-bytes", "6000")
	s := c.submitEcho("echo", strings.Repeat("amplify ", 1000)) // 8,000 bytes of output
	e.waitTerminal(s.ID)
	r := c.request(map[string]any{"ops": []any{
		map[string]any{"op": "job.status", "args": map[string]any{"ids": []string{s.ID}}},
		map[string]any{"op": "job.output", "args": map[string]any{"id": s.ID}},
	}})
	if r.Status != "partial" || !r.Results[0].OK {
		t.Fatalf("%.800s; want job.status kept and the response partial", r.raw)
	}
	e2 := r.Results[1].Error
	if e2 == nil || e2.Code != "response_too_large" || !strings.Contains(e2.Message, "job.output") || !strings.Contains(e2.Message, "6000") {
		t.Fatalf("job.output: %s; want response_too_large naming job.output and 6000", r.Results[1].raw)
	}
	if len(r.raw) > 6000+400 {
		t.Fatalf("the response is %d bytes; the cap is 6000", len(r.raw))
	}
}

// TestSpawnRateLimit: 16 submits over 4 concurrent tools/call on one
// session, against --spawns-per-minute 5, start 5 runs; the other 11 are
// rate_limited with retry_after, and no record exists for them.
func TestSpawnRateLimit(t *testing.T) {
	e := newEnv(t)
	c := e.dialStdio(nil, nil, "--spawns-per-minute", "5")
	fp := c.help("agent.submit").SchemaFingerprint
	op := map[string]any{"op": "agent.submit", "fingerprint": fp, "args": map[string]any{"model": "echo", "prompt": "burst"}}
	req := map[string]any{"ops": []any{op, op, op, op}}
	var mu sync.Mutex
	var ok, limited int
	var wg sync.WaitGroup
	for range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r := c.request(req)
			mu.Lock()
			defer mu.Unlock()
			for _, o := range r.Results {
				switch {
				case o.OK:
					ok++
				case o.Error.Code == "rate_limited":
					limited++
					var extra struct {
						Error struct {
							RetryAfter int `json:"retry_after"`
							Limit      int `json:"limit"`
						} `json:"error"`
					}
					_ = json.Unmarshal(o.raw, &extra)
					if extra.Error.RetryAfter < 1 || extra.Error.RetryAfter > 12 || extra.Error.Limit != 5 {
						t.Errorf("rate_limited %s; want retry_after 1..12 and limit 5", o.raw)
					}
				default:
					t.Errorf("unexpected %s", o.raw)
				}
			}
		}()
	}
	wg.Wait()
	if ok != 5 || limited != 11 {
		t.Fatalf("%d started, %d rate_limited; want 5 and 11", ok, limited)
	}
	var list struct {
		Records []json.RawMessage `json:"records"`
	}
	e.ok(&list, "job", "list", "--limit", "50")
	if len(list.Records) != 5 {
		t.Fatalf("%d records; want the 5 started", len(list.Records))
	}
}

// TestScheduleRecheckedAtTick is the attack. Stored through the
// server while the playbook's "mode" took a value, the command is
// harmless ("--note --" also hides the rest from a scan that stops at the
// first "--"); once "mode" is a bool, the same words set
// --notify-command. The tick parses the command again, does not run it,
// and records the refusal with its reason.
func TestScheduleRecheckedAtTick(t *testing.T) {
	e := newEnv(t)
	marker := filepath.Join(e.home, "notify-ran")
	script := e.writeFile("on-end.sh", "#!/bin/sh\ntouch "+marker+"\n")
	if err := os.Chmod(script, 0o700); err != nil {
		t.Fatal(err)
	}
	playbook := func(modeType string) {
		e.writeFile("playbooks/audit.playbook.yaml", "description: audit\nargs:\n"+
			"  - {name: mode, type: "+modeType+", help: how}\n  - {name: note, type: str, help: a note}\n"+
			"flow:\n  steps:\n    - {id: s, model: echo, prompt: \"{{.prompt}}\"}\n")
	}
	playbook("str")
	c := e.dialStdio(nil, nil)
	command := []string{"play", "audit", "--note", "--", "--mode", "--notify-command=" + script, "go"}
	c.must(nil, "schedule.add", map[string]any{"name": "nightly", "cron": "* * * * *", "command": command}, "")

	playbook("bool")
	var tick struct {
		Started []struct {
			Schedule string `json:"schedule"`
			ID       string `json:"id"`
			Error    string `json:"error"`
			Refused  bool   `json:"refused"`
		} `json:"started"`
	}
	e.makeDue("nightly")
	c.must(&tick, "schedule.tick", map[string]any{}, "")
	if len(tick.Started) != 1 {
		t.Fatalf("tick: %+v; want the one schedule", tick)
	}
	st := tick.Started[0]
	if !st.Refused || st.ID != "" || !strings.Contains(st.Error, "--notify-command") {
		t.Fatalf("tick: %+v; want the stored command refused for --notify-command, nothing started", st)
	}
	var show struct {
		Schedule struct {
			LastError string `json:"last_error"`
		} `json:"schedule"`
	}
	c.must(&show, "schedule.show", map[string]any{"name": "nightly"}, "")
	if !strings.Contains(show.Schedule.LastError, "--notify-command") {
		t.Fatalf("schedule show: last_error %q; want the refusal recorded", show.Schedule.LastError)
	}
	var list struct {
		Records []json.RawMessage `json:"records"`
	}
	e.ok(&list, "job", "list")
	if len(list.Records) != 0 {
		t.Fatalf("%d records exist; the refused command must not have run", len(list.Records))
	}
	if _, err := os.Stat(marker); err == nil {
		t.Fatal("the notify command ran")
	}
}

// rpcPost posts one JSON-RPC payload (an object or a batch) to a streamable
// HTTP endpoint as a client on protocol 2025-03-26 (the last that allows
// batches) and returns the JSON-RPC messages of the answer, whether it
// came as JSON or as an event stream, and the session id header.
func rpcPost(t *testing.T, url, token, session string, payload any) ([]map[string]any, string) {
	t.Helper()
	body, _ := json.Marshal(payload)
	req, err := http.NewRequest(http.MethodPost, url, bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Authorization", "Bearer "+token)
	req.Header.Set("Mcp-Protocol-Version", "2025-03-26")
	if session != "" {
		req.Header.Set("Mcp-Session-Id", session)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	if resp.StatusCode/100 != 2 {
		t.Fatalf("POST %s: %s: %s", body[:min(len(body), 200)], resp.Status, raw)
	}
	var msgs []map[string]any
	add := func(b []byte) {
		b = bytes.TrimSpace(b)
		if len(b) == 0 {
			return
		}
		if b[0] == '[' {
			var list []map[string]any
			if err := json.Unmarshal(b, &list); err != nil {
				t.Fatalf("answer: %v: %s", err, b)
			}
			msgs = append(msgs, list...)
			return
		}
		var m map[string]any
		if err := json.Unmarshal(b, &m); err != nil {
			t.Fatalf("answer: %v: %s", err, b)
		}
		msgs = append(msgs, m)
	}
	if strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		for _, line := range strings.Split(string(raw), "\n") {
			if data, ok := strings.CutPrefix(line, "data:"); ok {
				add([]byte(data))
			}
		}
	} else {
		add(raw)
	}
	return msgs, resp.Header.Get("Mcp-Session-Id")
}

// TestBatchOfBatchesIsRateLimited is the amplification: one HTTP
// POST carrying a JSON-RPC batch of 4 tools/call, each of 16 submits,
// started 64 runs. Against --spawns-per-minute 10 it starts 10; the other
// 54 are rate_limited, and no record exists for them.
func TestBatchOfBatchesIsRateLimited(t *testing.T) {
	e := newEnv(t)
	token := strings.Repeat("b", 40)
	url := e.startHTTP(token, "--spawns-per-minute", "10")
	_, session := rpcPost(t, url, token, "", map[string]any{"jsonrpc": "2.0", "id": 1, "method": "initialize",
		"params": map[string]any{"protocolVersion": "2025-03-26", "capabilities": map[string]any{},
			"clientInfo": map[string]any{"name": "batcher", "version": "v0"}}})
	if session == "" {
		t.Fatal("no session id")
	}
	rpcPost(t, url, token, session, map[string]any{"jsonrpc": "2.0", "method": "notifications/initialized"})
	help, _ := rpcPost(t, url, token, session, map[string]any{"jsonrpc": "2.0", "id": 2, "method": "tools/call",
		"params": map[string]any{"name": "request", "arguments": map[string]any{"help": "agent.submit"}}})
	var h struct {
		Help struct {
			SchemaFingerprint string `json:"schema_fingerprint"`
		} `json:"help"`
	}
	b, _ := json.Marshal(help[0]["result"].(map[string]any)["structuredContent"])
	if err := json.Unmarshal(b, &h); err != nil || h.Help.SchemaFingerprint == "" {
		t.Fatalf("help: %s", b)
	}
	op := map[string]any{"op": "agent.submit", "fingerprint": h.Help.SchemaFingerprint, "args": map[string]any{"model": "echo", "prompt": "batch"}}
	ops := make([]any, 16)
	for i := range ops {
		ops[i] = op
	}
	var batch []any
	for i := range 4 {
		batch = append(batch, map[string]any{"jsonrpc": "2.0", "id": 10 + i, "method": "tools/call",
			"params": map[string]any{"name": "request", "arguments": map[string]any{"ops": ops}}})
	}
	answers, _ := rpcPost(t, url, token, session, batch)
	var ok, limited int
	for _, a := range answers {
		res, _ := a["result"].(map[string]any)
		if res == nil {
			continue // a notification (progress, log) in the stream
		}
		b, _ := json.Marshal(res["structuredContent"])
		var r mcpResp
		if err := json.Unmarshal(b, &r); err != nil {
			t.Fatalf("tools/call answer: %s", b)
		}
		for _, o := range r.Results {
			switch {
			case o.OK:
				ok++
			case o.Error.Code == "rate_limited":
				limited++
			default:
				t.Errorf("unexpected error %+v", o.Error)
			}
		}
	}
	if ok != 10 || limited != 54 {
		t.Fatalf("%d started, %d rate_limited of %d answers; want 10 and 54", ok, limited, len(answers))
	}
	var list struct {
		Records []json.RawMessage `json:"records"`
	}
	e.ok(&list, "job", "list", "--limit", "100")
	if len(list.Records) != 10 {
		t.Fatalf("%d records; want the 10 started", len(list.Records))
	}
}
