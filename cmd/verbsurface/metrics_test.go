//go:build unix

package main

import (
	"context"
	"net/http"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/verbsurface/verbsurface/internal/metrics/prometheustest"
)

// TestMetricsScrapedByPrometheus: `serve --http --metrics ADDR` serves
// Prometheus's text format on its own loopback address, and a real
// Prometheus scraping it has the ops by verb and outcome, the op latency
// histogram, the MCP requests by method, the spawns, and the refusals
// of the HTTP face by reason.
func TestMetricsScrapedByPrometheus(t *testing.T) {
	config := filepath.Join(copyFixture(t), "notes.yaml")
	srv := serveHTTPBin(t, vsEnv(t, t.TempDir(), tokenEnv+"="+httpToken), "-c", config, "--http", "127.0.0.1:0", "--metrics", "127.0.0.1:0")
	target := waitMetricsAddr(t, srv.log)
	prom := prometheustest.Start(t, target)

	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "metrics", Version: "v0"}, nil).Connect(ctx,
		&mcp.StreamableClientTransport{Endpoint: srv.url, HTTPClient: &http.Client{Transport: withBearer(httpToken)}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	c := &client{t: t, cs: cs}
	_, fp := c.help("note.add")
	c.call(`{"ops":[{"op":"note.add","args":{"text":"one"},"fingerprint":"` + fp + `"},{"op":"note.add","args":{"text":"two"},"fingerprint":"sf1-0000000000000000"},{"op":"no.such"}]}`)

	resp, err := http.Post(srv.url, "application/json", strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	for q, want := range map[string]string{
		`verbsurface_http_refused_total{reason="token"}`:                     "1", // the request without the token
		`verbsurface_ops_total{verb="note.add",outcome="ok"}`:                "1",
		`verbsurface_ops_total{verb="note.add",outcome="stale_fingerprint"}`: "1",
		`verbsurface_ops_total{class="unresolved",outcome="unknown_verb"}`:   "1",
		`verbsurface_op_duration_seconds_count{verb="note.add"}`:             "2",
		`verbsurface_mcp_requests_total{method="tools/call",outcome="ok"}`:   "2", // help, then the ops
		`sum(verbsurface_spawns_total) or vector(0)`:                         "0",
		`verbsurface_mcp_requests_in_flight`:                                 "0",
	} {
		got := prom.Query(q)
		if len(got) != 1 || got[0].Value != want {
			t.Errorf("%s = %+v; want one series of %s", q, got, want)
		}
	}
}

// waitMetricsAddr is the address serve says it serves metrics on.
func waitMetricsAddr(t *testing.T, log interface{ String() string }) string {
	t.Helper()
	re := regexp.MustCompile(`metrics at http://(\S+)/metrics`)
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		if m := re.FindStringSubmatch(log.String()); m != nil {
			return m[1]
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Fatalf("serve never said where its metrics are:\n%s", log.String())
	return ""
}
