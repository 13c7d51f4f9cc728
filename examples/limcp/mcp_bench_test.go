//go:build unix

package main

import (
	"os/exec"
	"path/filepath"
	"testing"
	"time"
)

// BenchmarkMCPJobStatus measures one job.status round trip through a
// persistent stdio MCP session with `limcp mcp` and one `limcp job status
// --json` run directly, alternating in the same loop, so the server's
// overhead ratio is measured side by side: "session-ms" and "direct-ms" are
// medians, "overhead-%" is session/direct - 1.
func BenchmarkMCPJobStatus(b *testing.B) {
	e := newEnv(b)
	c := e.dialStdio(nil, nil)
	id := e.submit("agent", "echo", "bench").ID
	req := map[string]any{"ops": []any{map[string]any{"op": "job.status", "args": map[string]any{"ids": []any{id}}}}}
	for range 3 { // warm both paths
		c.request(req)
	}
	var session, direct []time.Duration
	for b.Loop() {
		t0 := time.Now()
		if r := c.request(req); r.Status != "success" {
			b.Fatalf("job.status: %s", r.raw)
		}
		session = append(session, time.Since(t0))
		cmd := exec.Command(limcpBin, "--home", e.home, "--json", "job", "status", id)
		t0 = time.Now()
		if out, err := cmd.Output(); err != nil {
			b.Fatalf("limcp job status: %v\n%s", err, out)
		}
		direct = append(direct, time.Since(t0))
	}
	ms, md := median(session), median(direct)
	b.ReportMetric(float64(ms.Microseconds())/1000, "session-ms")
	b.ReportMetric(float64(md.Microseconds())/1000, "direct-ms")
	b.ReportMetric((float64(ms)/float64(md)-1)*100, "overhead-%")
}

// BenchmarkMCPJobStatusChecks measures what the request checks added for a
// hostile client cost job.status through a session: two stdio servers over
// one home, one with every limit on (the default: an in-flight slot per
// command, the response-size account, the spawn bucket) and one with them
// off (-1), asked in turn, medians compared. job.status has no path
// parameter, so confinement costs it only the scan for one; the commands'
// environment is built once, when a server starts. (A path argument's own
// check is BenchmarkConfineSmallFile in package verbsurface.)
func BenchmarkMCPJobStatusChecks(b *testing.B) {
	e := newEnv(b)
	on := e.dialStdio(nil, nil)
	off := e.dialStdio(nil, nil, "--max-inflight", "-1", "--spawns-per-minute", "-1", "--max-response-bytes", "-1")
	id := e.submit("agent", "echo", "bench").ID
	req := map[string]any{"ops": []any{map[string]any{"op": "job.status", "args": map[string]any{"ids": []any{id}}}}}
	for range 3 { // warm both servers
		on.request(req)
		off.request(req)
	}
	var withChecks, without []time.Duration
	for b.Loop() {
		for _, s := range []struct {
			c   *mcpClient
			out *[]time.Duration
		}{{on, &withChecks}, {off, &without}} {
			t0 := time.Now()
			if r := s.c.request(req); r.Status != "success" {
				b.Fatalf("job.status: %s", r.raw)
			}
			*s.out = append(*s.out, time.Since(t0))
		}
	}
	mw, mo := median(withChecks), median(without)
	b.ReportMetric(float64(mw.Microseconds())/1000, "checks-ms")
	b.ReportMetric(float64(mo.Microseconds())/1000, "nochecks-ms")
	b.ReportMetric((float64(mw)/float64(mo)-1)*100, "overhead-%")
}

// BenchmarkMCPJobStatusAudit measures what --audit (with --audit-args)
// and a policy file cost a job.status round trip: two persistent stdio
// sessions, one with both and one without, alternated in the same loop.
// "plain-ms" and "audited-ms" are medians, "audit-cost-%" is
// audited/plain - 1.
func BenchmarkMCPJobStatusAudit(b *testing.B) {
	e := newEnv(b)
	pol := e.writeFile("policy.yaml", "version: 1\nrules:\n  - verbs: [\"job.*\"]\n    decision: allow\n")
	plain := e.dialStdio(nil, nil)
	audited := e.dialStdio(nil, nil, "--policy", pol, "--audit", filepath.Join(e.home, "audit.jsonl"), "--audit-args")
	id := e.submit("agent", "echo", "bench").ID
	req := map[string]any{"ops": []any{map[string]any{"op": "job.status", "args": map[string]any{"ids": []any{id}}}}}
	for range 3 {
		plain.request(req)
		audited.request(req)
	}
	var p, a []time.Duration
	one := func(c *mcpClient, into *[]time.Duration) {
		t0 := time.Now()
		if r := c.request(req); r.Status != "success" {
			b.Fatalf("job.status: %s", r.raw)
		}
		*into = append(*into, time.Since(t0))
	}
	odd := false
	for b.Loop() {
		// Which goes first alternates, so neither pays for the other's
		// cold caches.
		if odd {
			one(plain, &p)
			one(audited, &a)
		} else {
			one(audited, &a)
			one(plain, &p)
		}
		odd = !odd
	}
	mp, ma := median(p), median(a)
	b.ReportMetric(float64(mp.Microseconds())/1000, "plain-ms")
	b.ReportMetric(float64(ma.Microseconds())/1000, "audited-ms")
	b.ReportMetric((float64(ma)/float64(mp)-1)*100, "audit-cost-%")
}
