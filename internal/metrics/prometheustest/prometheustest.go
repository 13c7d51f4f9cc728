// Package prometheustest runs a real Prometheus (Debian's package) for the
// tests of the fronts' --metrics: it scrapes the given targets every
// second, and the tests ask its HTTP API for a series.
package prometheustest

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// RequireEnv makes a missing prometheus a failure instead of a skip
// (.ci/run sets it, having installed Debian's prometheus).
const RequireEnv = "VERBSURFACE_REQUIRE_PROMETHEUS"

// Prometheus is a running Prometheus.
type Prometheus struct {
	t   testing.TB
	url string
	log *strings.Builder
}

// Start starts Prometheus on a free loopback port, scraping targets
// (host:port, /metrics) every second, with its data in a temporary
// directory; it is stopped when the test ends. Without prometheus on PATH
// the test is skipped, saying so (failed under $VERBSURFACE_REQUIRE_PROMETHEUS=1).
func Start(t testing.TB, targets ...string) *Prometheus {
	t.Helper()
	bin, err := exec.LookPath("prometheus")
	if err != nil {
		if os.Getenv(RequireEnv) == "1" {
			t.Fatalf("%s=1 but prometheus is not on PATH", RequireEnv)
		}
		t.Skip("prometheus is not on PATH (Debian's package prometheus; .ci/run installs it)")
	}
	dir := t.TempDir()
	quoted := make([]string, len(targets))
	for i, tg := range targets {
		quoted[i] = fmt.Sprintf("%q", tg)
	}
	config := "global:\n  scrape_interval: 1s\n  scrape_timeout: 1s\nscrape_configs:\n  - job_name: verbsurface\n    static_configs:\n      - targets: [" + strings.Join(quoted, ", ") + "]\n"
	if err := os.WriteFile(filepath.Join(dir, "prometheus.yml"), []byte(config), 0o600); err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	cmd := exec.Command(bin, "--config.file="+filepath.Join(dir, "prometheus.yml"), "--storage.tsdb.path="+filepath.Join(dir, "data"),
		"--web.listen-address="+addr)
	p := &Prometheus{t: t, url: "http://" + addr, log: &strings.Builder{}}
	cmd.Stdout, cmd.Stderr = p.log, p.log
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() { cmd.Wait(); close(done) }()
	t.Cleanup(func() {
		cmd.Process.Signal(syscall.SIGTERM)
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			cmd.Process.Kill()
			<-done
		}
	})
	return p
}

// Sample is one series of a query's answer.
type Sample struct {
	Metric map[string]string
	Value  string
}

// Query asks Prometheus for q until the answer has a series (it must
// first start and scrape), or fails the test after a minute.
func (p *Prometheus) Query(q string) []Sample {
	p.t.Helper()
	deadline := time.Now().Add(time.Minute)
	var last string
	for time.Now().Before(deadline) {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		req, _ := http.NewRequestWithContext(ctx, "GET", p.url+"/api/v1/query?query="+url.QueryEscape(q), nil)
		resp, err := http.DefaultClient.Do(req)
		if err == nil {
			var body struct {
				Status string `json:"status"`
				Data   struct {
					Result []struct {
						Metric map[string]string `json:"metric"`
						Value  []any             `json:"value"`
					} `json:"result"`
				} `json:"data"`
			}
			err = json.NewDecoder(resp.Body).Decode(&body)
			resp.Body.Close()
			if err == nil && body.Status == "success" && len(body.Data.Result) > 0 {
				var out []Sample
				for _, r := range body.Data.Result {
					v := ""
					if len(r.Value) == 2 {
						v, _ = r.Value[1].(string)
					}
					out = append(out, Sample{Metric: r.Metric, Value: v})
				}
				cancel()
				return out
			}
			last = fmt.Sprintf("status %q, %d series, %v", body.Status, len(body.Data.Result), err)
		} else {
			last = err.Error()
		}
		cancel()
		time.Sleep(500 * time.Millisecond)
	}
	p.t.Fatalf("Prometheus has no series for %s after a minute (last: %s); its log:\n%s", q, last, p.log.String())
	return nil
}
