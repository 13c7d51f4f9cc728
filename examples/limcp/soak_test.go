//go:build unix

package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// soakServerFlags are the flags of the soak's server beyond --http and
// the home: the caps it must hold within go here (for instance
// "--spawns-per-minute", "60"). $LIMCP_SOAK_SERVER_FLAGS adds more,
// space-separated.
var soakServerFlags = []string{"--session-timeout", "5m", "--max-sessions", "64"}

// soakConfig sizes the soak; every figure has an environment override so
// bench/run and a developer can scale it without editing the test.
type soakConfig struct {
	sessions    int // concurrent HTTP sessions ($LIMCP_SOAK_SESSIONS)
	ops         int // ops per session ($LIMCP_SOAK_OPS)
	submitEvery int // one op in this many is agent.submit ($LIMCP_SOAK_SUBMIT_EVERY)
}

func soakFromEnv(t testing.TB) soakConfig {
	c := soakConfig{sessions: 8, ops: 500, submitEvery: 100}
	for name, p := range map[string]*int{"LIMCP_SOAK_SESSIONS": &c.sessions, "LIMCP_SOAK_OPS": &c.ops, "LIMCP_SOAK_SUBMIT_EVERY": &c.submitEvery} {
		if v := os.Getenv(name); v != "" {
			n, err := strconv.Atoi(v)
			if err != nil || n < 1 {
				t.Fatalf("$%s=%q: want a positive integer", name, v)
			}
			*p = n
		}
	}
	return c
}

// TestHTTPSoak is the load the HTTP face must hold: 8 sessions over
// loopback issue 500 mixed ops each (status, wait, output, list, kill, and
// one submit in 100, which keeps the 40 spawns of a run under a limit of
// 60 a minute per token), all at once. Then:
//   - every op answered ok (a kill that finds its run ended is ok too);
//   - nothing lost: every submit has its record, terminal, with exactly one
//     terminal transition in the store;
//   - no process is left but the server;
//   - the server's resident memory is under 64 MB.
//
// It logs a "soak:" line (ops/s, p50 and p99 latency of a tools/call)
// that bench/run prints.
func TestHTTPSoak(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: the soak issues 4,000 ops")
	}
	cfg := soakFromEnv(t)
	e := newEnv(t)
	const token = "soak-test-token-0123456789abcdefghij"
	flags := append([]string{}, soakServerFlags...)
	flags = append(flags, strings.Fields(os.Getenv("LIMCP_SOAK_SERVER_FLAGS"))...)
	srv := e.startHTTPServer(token, flags...)

	type sessionResult struct {
		submitted []string
		latencies []time.Duration
		problems  []string
		kills     map[string]int // "ok": a kill of an ended run is ok too
	}
	results := make([]sessionResult, cfg.sessions)
	clients := make([]*mcpClient, cfg.sessions)
	for s := range clients {
		clients[s] = e.dialHTTP(srv.url, token)
	}
	fp := clients[0].help("agent.submit").SchemaFingerprint
	ctx := context.Background()
	start := time.Now()
	var wg sync.WaitGroup
	for s := 0; s < cfg.sessions; s++ {
		wg.Add(1)
		go func(s int) {
			defer wg.Done()
			r := &results[s]
			r.kills = map[string]int{}
			cs := clients[s].cs
			for i := 0; i < cfg.ops; i++ {
				verb, args, fingerprint := soakOp(cfg, s, i, r.submitted, fp)
				req := map[string]any{"ops": []any{map[string]any{"op": verb, "args": args, "fingerprint": fingerprint}}}
				if fingerprint == "" {
					req = map[string]any{"ops": []any{map[string]any{"op": verb, "args": args}}}
				}
				t0 := time.Now()
				res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "request", Arguments: req})
				r.latencies = append(r.latencies, time.Since(t0))
				if err != nil {
					r.problems = append(r.problems, fmt.Sprintf("session %d op %d %s: %v", s, i, verb, err))
					continue
				}
				var resp mcpResp
				if err := json.Unmarshal([]byte(res.Content[0].(*mcp.TextContent).Text), &resp); err != nil || len(resp.Results) != 1 {
					r.problems = append(r.problems, fmt.Sprintf("session %d op %d %s: %v %s", s, i, verb, err, res.Content[0].(*mcp.TextContent).Text))
					continue
				}
				op := resp.Results[0]
				switch {
				case op.OK && verb == "agent.submit":
					var sub submitted
					if json.Unmarshal(op.Result, &sub) != nil || sub.ID == "" {
						r.problems = append(r.problems, fmt.Sprintf("session %d op %d: submit without an id: %s", s, i, op.Result))
						continue
					}
					r.submitted = append(r.submitted, sub.ID)
				case op.OK:
					if verb == "job.kill" {
						r.kills["ok"]++
					}
				default:
					r.problems = append(r.problems, fmt.Sprintf("session %d op %d %s failed: %s", s, i, verb, mustJSON(t, op.Error)))
				}
			}
		}(s)
	}
	wg.Wait()
	elapsed := time.Since(start)

	var all []time.Duration
	var ids []string
	kills := map[string]int{}
	for _, r := range results {
		for k, n := range r.kills {
			kills[k] += n
		}
		all = append(all, r.latencies...)
		ids = append(ids, r.submitted...)
		for _, p := range r.problems {
			t.Error(p)
		}
	}
	if want := cfg.sessions * ((cfg.ops + cfg.submitEvery - 1) / cfg.submitEvery); len(ids) != want {
		t.Errorf("%d submits answered with an id; want %d", len(ids), want)
	}
	// Nothing lost: each record exists, ends, and ended once.
	outcomes := map[string]int{}
	for _, id := range ids {
		r := e.waitTerminal(id)
		if r.ID != id {
			t.Errorf("job status %s answered for %s", id, r.ID)
		}
		outcomes[r.Status]++
		terminalRow(t, e, id)
	}
	if outcomes["completed"] == 0 || outcomes["cancelled"] == 0 {
		t.Errorf("runs ended %v; the soak means to see runs complete and runs killed", outcomes)
	}
	// No process left but the server.
	deadline := time.Now().Add(10 * time.Second)
	for {
		var left []int
		for _, pid := range e.tagged() {
			if pid != srv.pid {
				left = append(left, pid)
			}
		}
		if len(left) == 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("processes left after the soak: %v", left)
		}
		time.Sleep(50 * time.Millisecond)
	}
	rss := vmRSSMB(t, srv.pid)
	sort.Slice(all, func(i, j int) bool { return all[i] < all[j] })
	pct := func(p float64) time.Duration { return all[min(len(all)-1, int(float64(len(all))*p))] }
	t.Logf("soak: ends %v; kills %v", outcomes, kills)
	t.Logf("soak: %d sessions x %d ops (%d submits) in %s: %.0f ops/s, tools/call latency p50 %s p99 %s, server VmRSS %.1f MB at the end",
		cfg.sessions, cfg.ops, len(ids), elapsed.Round(time.Millisecond), float64(len(all))/elapsed.Seconds(),
		pct(0.50).Round(100*time.Microsecond), pct(0.99).Round(100*time.Microsecond), rss)
	if rss >= 64 {
		t.Errorf("the server's resident memory after the soak is %.1f MB; the bound is 64 MB", rss)
	}
}

// soakOp chooses op i of session s: a submit every cfg.submitEvery ops
// (the first op is one, so later ops have a run to look at), and never
// more (a failed submit is not retried: the spawn budget is the point), else a cycle
// of observe verbs on the session's own runs, with a kill of its latest
// run every tenth op for every second run (so runs end both ways).
func soakOp(cfg soakConfig, s, i int, mine []string, fp string) (verb string, args map[string]any, fingerprint string) {
	if i%cfg.submitEvery == 0 {
		return "agent.submit", map[string]any{"model": "echo:delay=1500ms", "prompt": fmt.Sprintf("soak %d/%d", s, i)}, fp
	}
	if len(mine) == 0 { // the first submit failed (and was reported)
		return "job.list", map[string]any{"limit": 5}, ""
	}
	latest := mine[len(mine)-1]
	recent := mine[max(0, len(mine)-3):]
	if i%10 == 3 && len(mine)%2 == 0 { // half the runs: the others complete
		return "job.kill", map[string]any{"id": latest}, ""
	}
	switch i % 4 {
	case 0:
		return "job.status", map[string]any{"ids": recent}, ""
	case 1:
		return "job.wait", map[string]any{"ids": []string{latest}, "max_wait_seconds": 0}, ""
	case 2:
		return "job.output", map[string]any{"id": latest}, ""
	default:
		return "job.list", map[string]any{"limit": 5}, ""
	}
}
