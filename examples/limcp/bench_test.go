//go:build unix

package main

import (
	"context"
	"os/exec"
	"slices"
	"testing"
	"time"

	"github.com/verbsurface/verbsurface/examples/limcp/internal/store"
)

// Benchmarks exec the built binary, as a caller (or the MCP server's
// dispatcher) does; each reports the median per-operation time as
// "median-ms" beside Go's mean.

func reportMedian(b *testing.B, ds []time.Duration) {
	if len(ds) == 0 {
		return
	}
	b.ReportMetric(float64(median(ds).Microseconds())/1000, "median-ms")
}

// median is the middle value of ds (not empty), which it leaves as it is.
func median(ds []time.Duration) time.Duration {
	s := slices.Clone(ds)
	slices.Sort(s)
	return s[len(s)/2]
}

func seed(b *testing.B, e *env, n int) []store.Record {
	b.Helper()
	recs := make([]store.NewRecord, n)
	for i := range recs {
		recs[i] = store.NewRecord{Kind: store.KindInvocation, Label: "seeded"}
	}
	out, err := e.store().Create(context.Background(), store.CreateOptions{}, recs...)
	if err != nil {
		b.Fatal(err)
	}
	return out
}

func benchExec(b *testing.B, e *env, args ...string) {
	b.Helper()
	var ds []time.Duration
	for b.Loop() {
		cmd := exec.Command(limcpBin, append([]string{"--home", e.home}, args...)...)
		t0 := time.Now()
		if out, err := cmd.Output(); err != nil {
			b.Fatalf("%v: %v\n%s", args, err, out)
		}
		ds = append(ds, time.Since(t0))
	}
	reportMedian(b, ds)
}

// BenchmarkColdStartJobStatus: a whole `limcp job status ID --json`
// process: exec, tree, store open, one lookup, output.
func BenchmarkColdStartJobStatus(b *testing.B) {
	e := newEnv(b)
	recs := seed(b, e, 1)
	benchExec(b, e, "job", "status", recs[0].ID, "--json")
}

// BenchmarkColdStartJobObserve: a whole `limcp job observe ID --json`
// process in a home holding 10,000 finished notifications: beside
// BenchmarkColdStartJobStatus it shows what the observation and the sweep
// for stuck notifications (one indexed query that never reads finished
// ones) add to the command a polling server runs.
func BenchmarkColdStartJobObserve(b *testing.B) {
	e := newEnv(b)
	recs := seed(b, e, 1)
	db := e.store().DB()
	tx, err := db.Begin()
	if err != nil {
		b.Fatal(err)
	}
	for i := 0; i < 10000; i++ {
		if _, err := tx.Exec(`INSERT INTO deliveries (record_id, channel, transition_seq, record_version, state, attempts,
			max_attempts, created_at, finished_at) VALUES (?, 'url', 0, 3, 'delivered', 1, 3, 1, 2)`, store.NewID()); err != nil {
			b.Fatal(err)
		}
	}
	if err := tx.Commit(); err != nil {
		b.Fatal(err)
	}
	benchExec(b, e, "job", "observe", recs[0].ID, "--json")
}

// BenchmarkColdStartHelp: the same process without a store (help): the
// difference to BenchmarkColdStartJobStatus is opening the store and reading.
func BenchmarkColdStartHelp(b *testing.B) {
	e := newEnv(b)
	benchExec(b, e, "job", "status", "--help")
}

// BenchmarkJobList10k: `limcp job list --limit 50 --json` over 10,000 records.
func BenchmarkJobList10k(b *testing.B) {
	e := newEnv(b)
	seed(b, e, 10000)
	benchExec(b, e, "job", "list", "--limit", "50", "--json")
}

// BenchmarkJobList10kInProcess: the same page from the store without the
// process, to show how much of the above is process start.
func BenchmarkJobList10kInProcess(b *testing.B) {
	e := newEnv(b)
	seed(b, e, 10000)
	st := e.store()
	var ds []time.Duration
	for b.Loop() {
		t0 := time.Now()
		p, err := st.List(context.Background(), store.ListQuery{Limit: 50})
		if err != nil || len(p.Records) != 50 {
			b.Fatal(err)
		}
		ds = append(ds, time.Since(t0))
	}
	reportMedian(b, ds)
}

// BenchmarkSubmitToStarted: from exec of `limcp agent echo ... --json` to
// the record in phase started (the detached worker has recorded its
// identity), watched by polling the store.
func BenchmarkSubmitToStarted(b *testing.B) {
	e := newEnv(b)
	st := e.store()
	var ds []time.Duration
	for b.Loop() {
		t0 := time.Now()
		var s submitted
		e.ok(&s, "agent", "echo", "bench")
		for {
			r, err := st.Get(context.Background(), s.ID)
			if err != nil {
				b.Fatal(err)
			}
			if r.Phase == store.PhaseStarted {
				break
			}
			time.Sleep(200 * time.Microsecond)
		}
		ds = append(ds, time.Since(t0))
	}
	reportMedian(b, ds)
}

// BenchmarkExecTrue is the machine's floor: exec of /bin/true.
func BenchmarkExecTrue(b *testing.B) {
	var ds []time.Duration
	for b.Loop() {
		t0 := time.Now()
		if err := exec.Command("/bin/true").Run(); err != nil {
			b.Fatal(err)
		}
		ds = append(ds, time.Since(t0))
	}
	reportMedian(b, ds)
}
