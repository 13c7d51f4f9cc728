package metrics

import (
	"context"
	"errors"
	"io"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/verbsurface/verbsurface/verbsurface"
)

// TestServeLoopbackOnly: the series are served on a loopback address
// only; one beyond this machine is refused before anything listens.
func TestServeLoopbackOnly(t *testing.T) {
	m := New()
	for _, addr := range []string{"0.0.0.0:0", "192.0.2.1:9464", ":9464"} {
		if _, _, err := m.Serve(t.Context(), addr); !errors.Is(err, ErrNotLoopback) {
			t.Errorf("Serve(%q) = %v; want ErrNotLoopback", addr, err)
		}
	}
}

// TestOpLabels: an op counts under its verb and class, and one whose verb
// did not resolve under class "unresolved" without the name the caller
// sent (no label value a client chooses).
func TestOpLabels(t *testing.T) {
	m := New()
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	m.OnOp(ctx, &verbsurface.OpRecord{Verb: "job.list", Class: verbsurface.ClassObserve, Code: "ok", Duration: time.Millisecond})
	m.OnOp(ctx, &verbsurface.OpRecord{Verb: "agent.submit", Class: verbsurface.ClassSpawn, Code: "ok"})
	m.OnOp(ctx, &verbsurface.OpRecord{Verb: "made-up-by-the-client", Class: "none", Code: "unknown_verb"})
	addr, _, err := m.Serve(ctx, "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	resp, err := http.Get("http://" + addr.String() + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	text := string(b)
	for _, want := range []string{
		`verbsurface_ops_total{class="observe",outcome="ok",verb="job.list"} 1`,
		`verbsurface_ops_total{class="unresolved",outcome="unknown_verb",verb=""} 1`,
		`verbsurface_spawns_total{verb="agent.submit"} 1`,
		`verbsurface_op_duration_seconds_count{class="observe",verb="job.list"} 1`,
	} {
		if !strings.Contains(text, want) {
			t.Errorf("metrics lack %s:\n%s", want, text)
		}
	}
	if strings.Contains(text, "made-up-by-the-client") {
		t.Errorf("a verb name the client made up is a label value:\n%s", text)
	}
}

// TestRefusedAndLiveRuns: refusals count by reason, and the live runs are
// read at each scrape; a count that fails leaves the gauge out of that
// scrape rather than report a zero nobody measured.
func TestRefusedAndLiveRuns(t *testing.T) {
	m := New()
	var live atomic.Int64
	var fail atomic.Bool
	live.Store(3)
	m.LiveRuns(func() (int, error) {
		if fail.Load() {
			return 0, errors.New("the store is locked")
		}
		return int(live.Load()), nil
	})
	m.OnRefusedHook()("token")
	m.OnRefused("token")
	m.OnRefused("origin")
	addr, _, err := m.Serve(t.Context(), "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	scrape := func() string {
		resp, err := http.Get("http://" + addr.String() + "/metrics")
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return string(b)
	}
	text := scrape()
	for _, want := range []string{
		`verbsurface_http_refused_total{reason="token"} 2`,
		`verbsurface_http_refused_total{reason="origin"} 1`,
		"verbsurface_runs_live 3",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("metrics lack %s:\n%s", want, text)
		}
	}
	live.Store(1)
	if text := scrape(); !strings.Contains(text, "verbsurface_runs_live 1") {
		t.Errorf("the gauge is not read at the scrape:\n%s", text)
	}
	fail.Store(true)
	if text := scrape(); strings.Contains(text, "verbsurface_runs_live") {
		t.Errorf("a failed count is reported:\n%s", text)
	}
	var none *Metrics
	if none.OnRefusedHook() != nil {
		t.Error("a nil Metrics has a refusal hook")
	}
}
