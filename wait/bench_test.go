package wait

import (
	"context"
	"fmt"
	"math/rand/v2"
	"testing"
	"time"
)

// countingObserver answers every id as running for the first `pending`
// polls, then completed, and counts its calls and the ids asked for.
type countingObserver struct {
	pending int
	calls   int
	ids     int
	out     []Observation
}

func (c *countingObserver) Observe(ctx context.Context, ids []string) ([]Observation, error) {
	c.calls++
	c.ids += len(ids)
	o := running()
	if c.calls > c.pending {
		o = completed
	}
	if cap(c.out) < len(ids) {
		c.out = make([]Observation, len(ids))
	}
	out := c.out[:len(ids)]
	for i, id := range ids {
		out[i] = o
		out[i].ID = id
	}
	return out, nil
}

// BenchmarkWait256IDs is one job.wait over 256 ids that finish on the
// fourth poll, on a fake clock (so it measures the loop, not the sleeps).
// It reports observer calls per poll, which must be 1.
func BenchmarkWait256IDs(b *testing.B) {
	ids := make([]string, 256)
	for i := range ids {
		ids[i] = fmt.Sprintf("run-%03d", i)
	}
	var calls, polls int
	b.ReportAllocs()
	for b.Loop() {
		obs := &countingObserver{pending: 3}
		var n int
		res, err := Wait(context.Background(), obs, ids, &Options{Clock: newAutoClock(), OnPoll: func(Progress) { n++ }})
		if err != nil || !res.AllTerminal {
			b.Fatalf("Wait = %+v, %v", res, err)
		}
		calls += obs.calls
		polls += n
	}
	b.ReportMetric(float64(calls)/float64(polls), "observer-calls/poll")
	b.ReportMetric(float64(polls)/float64(b.N), "polls/op")
}

// BenchmarkClassify10000 classifies 10,000 random observations per op.
func BenchmarkClassify10000(b *testing.B) {
	obs := randomDistinct(10000)
	b.ResetTimer()
	for b.Loop() {
		for i := range obs {
			Classify(obs[i], epoch, DefaultPreparingThreshold)
		}
	}
}

// BenchmarkPartition10000 partitions 10,000 random observations of
// distinct ids per op (classification plus the set bookkeeping).
func BenchmarkPartition10000(b *testing.B) {
	obs := randomDistinct(10000)
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		Partition(obs, epoch, DefaultPreparingThreshold)
	}
}

func randomDistinct(n int) []Observation {
	r := rand.New(rand.NewPCG(3, 4))
	obs := make([]Observation, n)
	for i := range obs {
		obs[i] = randomObservation(r, fmt.Sprintf("run-%05d", i), epoch, DefaultPreparingThreshold)
	}
	return obs
}

// BenchmarkWakeLatency measures, on the real clock with a 1 s poll, the
// time from a wake to Wait returning the terminal transition it announced.
func BenchmarkWakeLatency(b *testing.B) {
	var total time.Duration
	for b.Loop() {
		wake := make(chan struct{}, 1)
		f := &flip{polled: make(chan struct{}, 4)}
		done := make(chan time.Time, 1)
		go func() {
			if _, err := Wait(context.Background(), f, []string{"a"}, &Options{PollInterval: dur(time.Second), Wake: wake}); err != nil {
				b.Error(err)
			}
			done <- time.Now()
		}()
		<-f.polled
		f.done.Store(true)
		woke := time.Now()
		wake <- struct{}{}
		total += (<-done).Sub(woke)
	}
	b.ReportMetric(float64(total.Nanoseconds())/float64(b.N), "ns-wake-to-result")
}
