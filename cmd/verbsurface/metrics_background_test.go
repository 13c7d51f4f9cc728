//go:build unix

package main

import (
	"context"
	"io"
	"net/http"
	"os/exec"
	"regexp"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// A front with background verbs reports its live runs in the gauge
// verbsurface_runs_live, read from its run store at each scrape: 1 while
// a run sleeps, 0 once job.kill has ended it.
func TestMetricsLiveBackgroundRuns(t *testing.T) {
	state := t.TempDir()
	cmd := exec.Command(vsBin, "serve", "-c", bgConfig, "--metrics", "127.0.0.1:0")
	cmd.Env = vsEnv(t, state)
	log := &lockedBuffer{}
	cmd.Stderr = log
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "metrics-bg", Version: "v0"}, nil).
		Connect(context.Background(), &mcp.CommandTransport{Command: cmd, TerminateDuration: 2 * time.Second}, nil)
	if err != nil {
		t.Fatalf("starting verbsurface serve: %v", err)
	}
	t.Cleanup(func() { cs.Close() })
	settleRuns(t, frontRunsDir(state, "bgsh"))
	c := &client{t: t, cs: cs}
	target := waitMetricsAddr(t, log)
	live := func() string {
		t.Helper()
		resp, err := http.Get("http://" + target + "/metrics")
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		m := regexp.MustCompile(`(?m)^verbsurface_runs_live (\S+)$`).FindSubmatch(b)
		if m == nil {
			t.Fatalf("no verbsurface_runs_live in:\n%s", b)
		}
		return string(m[1])
	}

	if got := live(); got != "0" {
		t.Errorf("before any run: verbsurface_runs_live %s; want 0", got)
	}
	id := c.start("sleep 60")
	if got := live(); got != "1" {
		t.Errorf("a run sleeping: verbsurface_runs_live %s; want 1", got)
	}
	if r := c.op(`{"op":"job.kill","args":{"id":"` + id + `"}}`); r["ok"] != true {
		t.Fatalf("job.kill: %v", r)
	}
	c.waitEnded(id)
	if got := live(); got != "0" {
		t.Errorf("the run killed: verbsurface_runs_live %s; want 0", got)
	}
}
