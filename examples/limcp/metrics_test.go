//go:build unix

package main

import (
	"net/http"
	"regexp"
	"strings"
	"testing"

	"github.com/verbsurface/verbsurface/internal/metrics/prometheustest"
)

// TestMetricsScrapedByPrometheus: `limcp mcp --http --metrics ADDR` serves
// Prometheus's text format on its own loopback address, and a real
// Prometheus scraping it has the ops by verb, class and outcome and the
// MCP requests by method, the refusals of the HTTP face by reason, and
// the live runs.
func TestMetricsScrapedByPrometheus(t *testing.T) {
	e := newUserEnv(t)
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
	refuseWithoutToken(t, srv.url)
	for q, want := range map[string]string{
		`verbsurface_http_refused_total{reason="token"}`:                      "1",
		`verbsurface_runs_live`:                                               "0",
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

// refuseWithoutToken sends url one request without the bearer token, and
// wants it refused.
func refuseWithoutToken(t *testing.T, url string) {
	t.Helper()
	resp, err := http.Post(url, "application/json", strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusUnauthorized {
		t.Fatalf("a request without the token: HTTP %d; want 401", resp.StatusCode)
	}
}
