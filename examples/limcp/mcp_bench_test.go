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
