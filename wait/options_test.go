package wait

import (
	"context"
	"math"
	"testing"
	"time"
)

// TestOptionsBounds: defaults for the zero value, clamping at both ends,
// and the effective values echoed in the Result.
func TestOptionsBounds(t *testing.T) {
	tests := []struct {
		name                string
		opts                Options
		maxWait, poll, prep time.Duration
	}{
		{"zero value is the defaults", Options{}, 25 * time.Second, time.Second, 30 * time.Second},
		{"max wait zero is a snapshot", Options{MaxWait: dur(0)}, 0, time.Second, 30 * time.Second},
		{"negative max wait clamps to a snapshot", Options{MaxWait: dur(-time.Second)}, 0, time.Second, 30 * time.Second},
		{"max wait above the limit clamps to 300 s", Options{MaxWait: dur(time.Hour)}, 300 * time.Second, time.Second, 30 * time.Second},
		{"max wait within bounds is kept", Options{MaxWait: dur(7 * time.Second)}, 7 * time.Second, time.Second, 30 * time.Second},
		{"poll zero clamps to 250 ms", Options{PollInterval: dur(0)}, 25 * time.Second, 250 * time.Millisecond, 30 * time.Second},
		{"poll below the minimum clamps to 250 ms", Options{PollInterval: dur(time.Millisecond)}, 25 * time.Second, 250 * time.Millisecond, 30 * time.Second},
		{"poll above the maximum clamps to 30 s", Options{PollInterval: dur(time.Minute)}, 25 * time.Second, 30 * time.Second, 30 * time.Second},
		{"poll within bounds is kept", Options{PollInterval: dur(400 * time.Millisecond)}, 25 * time.Second, 400 * time.Millisecond, 30 * time.Second},
		{"preparing threshold is kept", Options{PreparingThreshold: 5 * time.Second}, 25 * time.Second, time.Second, 5 * time.Second},
		{"non-positive preparing threshold is the default", Options{PreparingThreshold: -1}, 25 * time.Second, time.Second, 30 * time.Second},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := tt.opts.effective()
			if e.maxWait != tt.maxWait || e.pollInterval != tt.poll || e.preparingThreshold != tt.prep {
				t.Errorf("effective = wait %v poll %v threshold %v, want %v %v %v",
					e.maxWait, e.pollInterval, e.preparingThreshold, tt.maxWait, tt.poll, tt.prep)
			}
			// The effective values are what the Result echoes.
			tt.opts.Clock = newAutoClock()
			obs := &script{answer: states(map[string][]Observation{"a": {terminal("completed", "run.completed.exit_0")}})}
			res, err := Wait(context.Background(), obs, []string{"a"}, &tt.opts)
			if err != nil {
				t.Fatal(err)
			}
			if res.MaxWaitSeconds != tt.maxWait.Seconds() || res.PollIntervalSeconds != tt.poll.Seconds() ||
				res.UnresolvedSpawnAgeSeconds != tt.prep.Seconds() {
				t.Errorf("echoed max_wait %v poll %v age %v, want %v %v %v", res.MaxWaitSeconds,
					res.PollIntervalSeconds, res.UnresolvedSpawnAgeSeconds, tt.maxWait.Seconds(), tt.poll.Seconds(), tt.prep.Seconds())
			}
		})
	}
}

func TestSeconds(t *testing.T) {
	tests := []struct {
		name string
		in   float64
		want *time.Duration
	}{
		{"zero", 0, dur(0)},
		{"fraction", 0.25, dur(250 * time.Millisecond)},
		{"whole", 25, dur(25 * time.Second)},
		{"negative", -3, dur(-3 * time.Second)},
		{"huge saturates", 1e300, dur(1e9 * time.Second)},
		{"infinite saturates", math.Inf(1), dur(1e9 * time.Second)},
		{"negative infinite saturates", math.Inf(-1), dur(-1e9 * time.Second)},
		{"NaN is the default", math.NaN(), nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Seconds(tt.in)
			if (got == nil) != (tt.want == nil) || (got != nil && *got != *tt.want) {
				t.Errorf("Seconds(%v) = %v, want %v", tt.in, fmtDur(got), fmtDur(tt.want))
			}
		})
	}
	// Saturated values clamp like any other.
	if e := (Options{MaxWait: Seconds(1e300), PollInterval: Seconds(math.Inf(-1))}).effective(); e.maxWait != MaxWaitLimit || e.pollInterval != MinPollInterval {
		t.Errorf("saturated values clamp to %v and %v, want %v and %v", e.maxWait, e.pollInterval, MaxWaitLimit, MinPollInterval)
	}
}

func fmtDur(d *time.Duration) string {
	if d == nil {
		return "nil"
	}
	return d.String()
}
