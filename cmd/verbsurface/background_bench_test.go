//go:build unix

package main

import (
	"context"
	"sort"
	"testing"
	"time"
)

// benchPolicy lifts the spawn rate out of a benchmark's way.
const benchPolicy = "version: 1\ndefault: allow\nlimits: {runs_per_minute: 1000000}\n"

// The cost of an op of a background verb (record, start the supervisor,
// answer) against the same command as a foreground op (run it to its end):
// `go test -run '^$' -bench 'BackgroundStart|ForegroundOp' -benchtime 100x ./cmd/verbsurface`.
func BenchmarkBackgroundStart(b *testing.B) {
	f := bgFront(b, "policy: policy.yaml\n", "policy.yaml", benchPolicy)
	req := `{"ops":[{"op":"sh.run","fingerprint":"` + f.fingerprint(b, "sh.run") + `","args":{"script":"true"}}]}`
	b.ResetTimer()
	for range b.N {
		if r := firstResult(f.handleJSON(b, req)); r["ok"] != true {
			b.Fatal(r)
		}
	}
	b.StopTimer()
	// Let the runs end before the next benchmark measures.
	for {
		if n, _ := f.bg.CountLive(context.Background()); n == 0 {
			break
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func BenchmarkForegroundOp(b *testing.B) {
	f := bgFront(b, "policy: policy.yaml\n", "policy.yaml", benchPolicy)
	req := `{"ops":[{"op":"sh.now","fingerprint":"` + f.fingerprint(b, "sh.now") + `","args":{"script":"true"}}]}`
	b.ResetTimer()
	for range b.N {
		if r := firstResult(f.handleJSON(b, req)); r["ok"] != true {
			b.Fatal(r)
		}
	}
}

// Wake latency: how long after a run's recorded end a job.wait on it
// returns, with a poll interval of 30 s so that only the supervisor's end
// signal can end the wait early; reported as its median, wake-ms:
// `go test -run '^$' -bench BackgroundWake -benchtime 20x ./cmd/verbsurface`.
func BenchmarkBackgroundWake(b *testing.B) {
	f := bgFront(b, "policy: policy.yaml\n", "policy.yaml", benchPolicy)
	st := bgStore(b, f)
	var lat []time.Duration
	for range b.N {
		id := f.startRun(b, "sleep 0.2")
		r := f.op(b, `{"op":"job.wait","args":{"ids":["`+id+`"],"max_wait_seconds":60,"poll_interval_seconds":30}}`)
		returned := time.Now()
		if res, _ := r["result"].(map[string]any); res == nil || res["all_terminal"] != true {
			b.Fatalf("wait: %v", r)
		}
		rec, err := st.Get(context.Background(), id)
		if err != nil {
			b.Fatal(err)
		}
		lat = append(lat, returned.Sub(rec.EndedAt))
	}
	sort.Slice(lat, func(i, j int) bool { return lat[i] < lat[j] })
	b.ReportMetric(float64(lat[len(lat)/2].Microseconds())/1000, "wake-ms")
	b.ReportMetric(float64(lat[len(lat)-1].Microseconds())/1000, "max-wake-ms")
}
