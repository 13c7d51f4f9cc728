//go:build unix

package dispatch

import (
	"encoding/json"
	"os/exec"
	"testing"
	"time"
)

// BenchmarkRun and BenchmarkBareExec run the same trivial machine-mode
// command (fakecli tiny): through the Runner, and through a bare os/exec
// Output call plus json.Valid, the least a caller could do. The ratio of the
// two is the dispatch overhead; run them in one invocation, e.g.
//
//	go test ./dispatch -run '^$' -bench 'Run$|BareExec$' -benchtime 200ms -count 3
func BenchmarkRun(b *testing.B) {
	r := newFake(b, Options{})
	ctx := bg()
	argv := []string{"tiny"}
	b.ResetTimer()
	for b.Loop() {
		data, err := r.Run(ctx, argv)
		if err != nil || len(data) == 0 {
			b.Fatal(data, err)
		}
	}
}

func BenchmarkBareExec(b *testing.B) {
	for b.Loop() {
		out, err := exec.Command(fakeCLI, "tiny").Output()
		if err != nil || !json.Valid(out) {
			b.Fatal(string(out), err)
		}
	}
}

// BenchmarkRunVsBareExec measures the ratio directly: each iteration runs
// the command once bare and once through the Runner, alternating which goes
// first, and reports the mean of each and the overhead in percent. Pairing
// the two cancels most of the noise of a loaded machine, which separate
// benchmarks (minutes apart in wall time) do not.
func BenchmarkRunVsBareExec(b *testing.B) {
	r := newFake(b, Options{})
	ctx := bg()
	argv := []string{"tiny"}
	bare := func() {
		out, err := exec.Command(fakeCLI, "tiny").Output()
		if err != nil || !json.Valid(out) {
			b.Fatal(string(out), err)
		}
	}
	run := func() {
		if data, err := r.Run(ctx, argv); err != nil || len(data) == 0 {
			b.Fatal(data, err)
		}
	}
	var tBare, tRun time.Duration
	i := 0
	for b.Loop() {
		t0 := time.Now()
		if i%2 == 0 {
			bare()
			t1 := time.Now()
			run()
			tBare, tRun = tBare+t1.Sub(t0), tRun+time.Since(t1)
		} else {
			run()
			t1 := time.Now()
			bare()
			tRun, tBare = tRun+t1.Sub(t0), tBare+time.Since(t1)
		}
		i++
	}
	b.ReportMetric(float64(tBare.Nanoseconds())/float64(i), "bare-ns/op")
	b.ReportMetric(float64(tRun.Nanoseconds())/float64(i), "run-ns/op")
	b.ReportMetric(100*(float64(tRun)/float64(tBare)-1), "overhead-%")
}

func BenchmarkParseMachineResult(b *testing.B) {
	stdout := []byte(`{"result_version":1,"ok":true,"data":{"id":"r-1","status":"running","labels":["a","b"],"pid":1234}}`)
	b.SetBytes(int64(len(stdout)))
	for b.Loop() {
		if _, err := ParseMachineResult(stdout); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkExitWaiters compares the platform's exit waiter (a pidfd in the
// poller on Linux, kqueue NOTE_EXIT on macOS and FreeBSD) with the portable poll
// of the process table, paired like BenchmarkRunVsBareExec: each iteration
// runs the cheapest command once through a runner of each kind, alternating
// which goes first. The difference is what the fallback costs per command.
//
//	go test ./dispatch -run '^$' -bench ExitWaiters -benchtime 200x
func BenchmarkExitWaiters(b *testing.B) {
	platform := newFake(b, Options{})
	poll := newFake(b, Options{})
	poll.awaitExit = pollExit
	ctx := bg()
	argv := []string{"tiny"}
	run := func(r *Runner) time.Duration {
		t0 := time.Now()
		if data, err := r.Run(ctx, argv); err != nil || len(data) == 0 {
			b.Fatal(data, err)
		}
		return time.Since(t0)
	}
	var tPlatform, tPoll time.Duration
	i := 0
	for b.Loop() {
		if i%2 == 0 {
			tPlatform += run(platform)
			tPoll += run(poll)
		} else {
			tPoll += run(poll)
			tPlatform += run(platform)
		}
		i++
	}
	b.ReportMetric(float64(tPlatform.Nanoseconds())/float64(i), "platform-ns/op")
	b.ReportMetric(float64(tPoll.Nanoseconds())/float64(i), "poll-ns/op")
	b.ReportMetric(100*(float64(tPoll)/float64(tPlatform)-1), "poll-extra-%")
}
