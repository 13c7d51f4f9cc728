//go:build unix

package main

import (
	"os/exec"
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
