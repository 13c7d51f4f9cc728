//go:build unix

package main

import (
	"regexp"
	"testing"

	"github.com/verbsurface/verbsurface/internal/metrics/prometheustest"
)

// TestMetricsScrapedByPrometheus: `limcp mcp --http --metrics ADDR` serves
// Prometheus's text format on its own loopback address, and a real
// Prometheus scraping it has the ops by verb, class and outcome and the
// MCP requests by method.
func TestMetricsScrapedByPrometheus(t *testing.T) {
	e := newClientEnv(t)
	const token = "metrics-token-0123456789abcdef0123456789"
	srv := e.startHTTPServer(token, "--metrics", "127.0.0.1:0")
	m := regexp.MustCompile(`metrics at http://(\S+)/metrics`).FindStringSubmatch(waitLog(t, srv, "/metrics\n"))
	if m == nil {
		t.Fatalf("the server does not say where its metrics are:\n%s", srv.log)
	}
	prom := prometheustest.Start(t, m[1])
	c := e.connect("", nil, nil, srv.url, map[string]string{"Authorization": "Bearer " + token})
	var list map[string]any
	c.must(&list, "job.list", map[string]any{}, "")
	for q, want := range map[string]string{
		`verbsurface_ops_total{verb="job.list",class="observe",outcome="ok"}`: "1",
		`verbsurface_op_duration_seconds_count{verb="job.list"}`:              "1",
		`verbsurface_mcp_requests_total{method="tools/call",outcome="ok"}`:    "1",
	} {
		got := prom.Query(q)
		if len(got) != 1 || got[0].Value != want {
			t.Errorf("%s = %+v; want one series of %s", q, got, want)
		}
	}
}
