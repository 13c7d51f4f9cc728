package metrics

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	"github.com/verbsurface/verbsurface/verbsurface"
)

// Metrics are one server's series, in a registry of their own.
type Metrics struct {
	reg       *prometheus.Registry
	requests  *prometheus.CounterVec
	inFlight  prometheus.Gauge
	ops       *prometheus.CounterVec
	opSeconds *prometheus.HistogramVec
	spawns    *prometheus.CounterVec
	refused   *prometheus.CounterVec
}

// New returns the series, all zero.
func New() *Metrics {
	m := &Metrics{
		reg: prometheus.NewRegistry(),
		requests: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "verbsurface_mcp_requests_total", Help: "MCP requests received, by method and outcome (ok, tool_error, error).",
		}, []string{"method", "outcome"}),
		inFlight: prometheus.NewGauge(prometheus.GaugeOpts{
			Name: "verbsurface_mcp_requests_in_flight", Help: "MCP requests being answered now.",
		}),
		ops: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "verbsurface_ops_total", Help: "Ops of tools/call requests, by verb, class and outcome (ok or the error code).",
		}, []string{"verb", "class", "outcome"}),
		opSeconds: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name: "verbsurface_op_duration_seconds", Help: "How long each op took, gates included.",
			Buckets: []float64{.001, .005, .01, .05, .1, .5, 1, 5, 30, 120},
		}, []string{"verb", "class"}),
		spawns: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "verbsurface_spawns_total", Help: "Spawn ops that started work, by verb.",
		}, []string{"verb"}),
		refused: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "verbsurface_http_refused_total", Help: "HTTP requests and connections refused before an MCP request was served, by reason (mcphttp's Refused* values).",
		}, []string{"reason"}),
	}
	m.reg.MustRegister(m.requests, m.inFlight, m.ops, m.opSeconds, m.spawns, m.refused)
	return m
}

// OnOp counts a finished op: a [verbsurface.Options] OnOp hook.
func (m *Metrics) OnOp(_ context.Context, rec *verbsurface.OpRecord) {
	verb, class := rec.Verb, string(rec.Class)
	switch rec.Class {
	case verbsurface.ClassSpawn, verbsurface.ClassObserve, verbsurface.ClassControl:
	default:
		// An op refused before its verb resolved: its name is the
		// caller's, any string, so it is no label value (one series per
		// string a client makes up).
		verb, class = "", "unresolved"
	}
	m.ops.WithLabelValues(verb, class, rec.Code).Inc()
	m.opSeconds.WithLabelValues(verb, class).Observe(rec.Duration.Seconds())
	if rec.Class == verbsurface.ClassSpawn && rec.Code == "ok" {
		m.spawns.WithLabelValues(verb).Inc()
	}
}

// OnRefused counts a refusal of the HTTP face: an [mcphttp.Options]
// OnRefused hook. The reasons are mcphttp's few constants, never a
// client's string.
func (m *Metrics) OnRefused(reason string) { m.refused.WithLabelValues(reason).Inc() }

// OnRefusedHook is m.OnRefused, or nil for a nil m (no --metrics).
func (m *Metrics) OnRefusedHook() func(string) {
	if m == nil {
		return nil
	}
	return m.OnRefused
}

// LiveRuns adds the gauge verbsurface_runs_live, the runs started and not
// yet ended, read from count at each scrape (the front's store knows
// them; a count that fails is left out of that scrape). Call it once.
func (m *Metrics) LiveRuns(count func() (int, error)) {
	m.reg.MustRegister(liveRuns{count: count, desc: prometheus.NewDesc("verbsurface_runs_live", "Runs started and not yet ended.", nil, nil)})
}

// liveRuns is a collector rather than a GaugeFunc so that a count that
// fails yields no sample instead of a made-up zero.
type liveRuns struct {
	count func() (int, error)
	desc  *prometheus.Desc
}

func (l liveRuns) Describe(ch chan<- *prometheus.Desc) { ch <- l.desc }

func (l liveRuns) Collect(ch chan<- prometheus.Metric) {
	if n, err := l.count(); err == nil {
		ch <- prometheus.MustNewConstMetric(l.desc, prometheus.GaugeValue, float64(n))
	}
}

// OnOpHook is m.OnOp, or nil for a nil m (no --metrics).
func (m *Metrics) OnOpHook() func(context.Context, *verbsurface.OpRecord) {
	if m == nil {
		return nil
	}
	return m.OnOp
}

// Observe counts every MCP request server receives.
func (m *Metrics) Observe(server *mcp.Server) {
	server.AddReceivingMiddleware(func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			m.inFlight.Inc()
			defer m.inFlight.Dec()
			res, err := next(ctx, method, req)
			outcome := "ok"
			if err != nil {
				outcome = "error"
			} else if r, ok := res.(*mcp.CallToolResult); ok && r != nil && r.IsError {
				outcome = "tool_error"
			}
			m.requests.WithLabelValues(method, outcome).Inc()
			return res, err
		}
	})
}

// Handler serves the series in Prometheus's text format.
func (m *Metrics) Handler() http.Handler {
	return promhttp.HandlerFor(m.reg, promhttp.HandlerOpts{})
}

// ErrNotLoopback refuses a metrics address beyond this machine: the series
// name the verbs and how they are used, which is the operator's to see.
var ErrNotLoopback = errors.New("the metrics address must be a loopback address (127.0.0.1, ::1 or localhost)")

// Serve listens on addr, which must be a loopback address, and serves the
// series at /metrics until ctx ends. It returns the address it listens on
// once it does, and the error that ended it on the channel.
func (m *Metrics) Serve(ctx context.Context, addr string) (net.Addr, <-chan error, error) {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return nil, nil, fmt.Errorf("--metrics %s: %v", addr, err)
	}
	if ip := net.ParseIP(host); host != "localhost" && (ip == nil || !ip.IsLoopback()) {
		return nil, nil, fmt.Errorf("--metrics %s: %w", addr, ErrNotLoopback)
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, nil, fmt.Errorf("--metrics %s: %v", addr, err)
	}
	mux := http.NewServeMux()
	mux.Handle("GET /metrics", m.Handler())
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	done := make(chan error, 1)
	go func() {
		err := srv.Serve(ln)
		if errors.Is(err, http.ErrServerClosed) {
			err = nil
		}
		done <- err
	}()
	go func() {
		<-ctx.Done()
		srv.Close()
	}()
	return ln.Addr(), done, nil
}
