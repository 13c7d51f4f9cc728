//go:build unix

package verbsurface

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// TestResponseCap: a result that would take the response past the cap is
// replaced by response_too_large naming the op and the cap; the results
// before it stay, and a later small result still fits.
func TestResponseCap(t *testing.T) {
	// One job.watch result's encoded size, measured uncapped.
	probe := newFixture(t)
	one := probe.surface.Handle(context.Background(), json.RawMessage(`{"ops":[{"op":"job.watch","args":{"id":"aaaa"}}]}`), nil)
	size := len(mustJSON(t, one.Results[0]))
	limit := responseOverhead + 2*(size+1) // room for exactly two
	fx := newFixture(t, func(c *fixtureConfig) { c.opts.MaxResponseBytes = limit })
	resp := fx.surface.Handle(context.Background(), json.RawMessage(
		`{"ops":[{"op":"job.watch","args":{"id":"aaaa"}},{"op":"job.watch","args":{"id":"bbbb"}},{"op":"job.watch","args":{"id":"cccc"}}]}`), nil)
	if resp.Status != StatusPartial || len(resp.Results) != 3 {
		t.Fatalf("status %s with %d results; want partial with 3", resp.Status, len(resp.Results))
	}
	for i, r := range resp.Results[:2] {
		if !r.OK {
			t.Fatalf("result %d: %+v; want it kept", i, r.Error)
		}
	}
	e := resp.Results[2].Error
	if e == nil || e.Code != CodeResponseTooLarge || e.Limit != limit || !strings.Contains(e.Message, "job.watch") ||
		!strings.Contains(e.Message, fmt.Sprint(limit)) {
		t.Fatalf("third result error = %+v; want response_too_large naming job.watch and %d", e, limit)
	}
	if got := len(resp.JSON()); got > limit+400 {
		t.Fatalf("response is %d bytes; the cap is %d plus one refusal", got, limit)
	}
}

// TestSpawnRateLimit: 16 spawn ops in 4 concurrent requests against a
// limit of 5 a minute start exactly 5; the rest are rate_limited with
// retry_after, and nothing was started for them.
func TestSpawnRateLimit(t *testing.T) {
	now := time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)
	fx := newFixture(t, func(c *fixtureConfig) {
		c.opts.SpawnsPerMinute = 5
		c.opts.Now = func() time.Time { return now } // no refill during the test
	})
	fp := fx.fingerprint(t, "agent.submit")
	op := `{"op":"agent.submit","fingerprint":"` + fp + `","args":{"model":"m","prompt":"p"}}`
	req := json.RawMessage(`{"ops":[` + strings.Repeat(op+",", 3) + op + `]}`)
	var wg sync.WaitGroup
	results := make(chan *OpResult, 16)
	for range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for _, r := range fx.surface.Handle(context.Background(), req, nil).Results {
				results <- r
			}
		}()
	}
	wg.Wait()
	close(results)
	var ok, limited int
	for r := range results {
		switch {
		case r.OK:
			ok++
		case r.Error.Code == CodeRateLimited:
			limited++
			if r.Error.RetryAfter < 1 || r.Error.RetryAfter > 12 || r.Error.Limit != 5 || !strings.Contains(r.Error.Message, "retry after") {
				t.Errorf("rate_limited error %+v; want retry_after 1..12 s (a token is 12 s at 5/min) and limit 5", r.Error)
			}
		default:
			t.Errorf("unexpected error %+v", r.Error)
		}
	}
	if ok != 5 || limited != 11 {
		t.Fatalf("%d started, %d rate_limited; want 5 and 11", ok, limited)
	}
	jobs := fx.do(t, `{"ops":[{"op":"job.list"}]}`)["results"].([]any)[0].(map[string]any)["result"].(map[string]any)["jobs"].([]any)
	if len(jobs) != 5 {
		t.Fatalf("%d jobs exist; want the 5 started", len(jobs))
	}
	// A minute later the bucket is full again.
	now = now.Add(time.Minute)
	if r := fx.surface.Handle(context.Background(), json.RawMessage(`{"ops":[`+op+`]}`), nil).Results[0]; !r.OK {
		t.Fatalf("after a minute: %+v; want the spawn allowed", r.Error)
	}
}

// TestInFlightCap: with a cap of 2, twelve slow commands (real subprocesses
// of the fixture CLI) from four concurrent requests never run more than
// two at once, and do reach two.
func TestInFlightCap(t *testing.T) {
	var running, peak atomic.Int32
	fx := newFixture(t, func(c *fixtureConfig) {
		c.opts.MaxInFlight = 2
		c.wrap = func(inner Runner) Runner {
			return RunnerFunc(func(ctx context.Context, argv []string) (json.RawMessage, error) {
				n := running.Add(1)
				for {
					p := peak.Load()
					if n <= p || peak.CompareAndSwap(p, n) {
						break
					}
				}
				defer running.Add(-1)
				return inner.Run(ctx, argv)
			})
		}
	})
	op := `{"op":"job.watch","args":{"id":"aaaa","ms":150}}`
	req := json.RawMessage(`{"ops":[` + op + "," + op + "," + op + `]}`)
	var wg sync.WaitGroup
	for range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for _, r := range fx.surface.Handle(context.Background(), req, nil).Results {
				if !r.OK {
					t.Errorf("op failed: %+v", r.Error)
				}
			}
		}()
	}
	wg.Wait()
	if p := peak.Load(); p != 2 {
		t.Fatalf("peak of %d commands at once; want exactly the cap, 2", p)
	}
}

// TestFIFOSlots: waiters are granted in arrival order, and one that gives
// up leaves the line without taking a slot.
func TestFIFOSlots(t *testing.T) {
	s := newFIFOSlots(1)
	if err := s.acquire(context.Background()); err != nil {
		t.Fatal(err)
	}
	order := make(chan int, 3)
	cancelled, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	for i := range 3 {
		ctx := context.Background()
		if i == 1 {
			ctx = cancelled
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := s.acquire(ctx); err != nil {
				return
			}
			order <- i
			s.release()
		}()
		// Each waiter is in line before the next arrives.
		for deadline := time.Now().Add(5 * time.Second); ; {
			s.mu.Lock()
			n := s.waiters.Len()
			s.mu.Unlock()
			if n == i+1 || time.Now().After(deadline) {
				break
			}
			time.Sleep(time.Millisecond)
		}
	}
	cancel()
	for deadline := time.Now().Add(5 * time.Second); ; {
		s.mu.Lock()
		n := s.waiters.Len()
		s.mu.Unlock()
		if n == 2 || time.Now().After(deadline) {
			break
		}
		time.Sleep(time.Millisecond)
	}
	s.release()
	wg.Wait()
	close(order)
	var got []int
	for i := range order {
		got = append(got, i)
	}
	if fmt.Sprint(got) != "[0 2]" {
		t.Fatalf("grant order %v; want [0 2] (1 gave up)", got)
	}
	if s.free != 1 {
		t.Fatalf("%d free slots at the end; want 1", s.free)
	}
}

// TestSpawnsMarkedVerbCounts holds the rule of Verb.Spawns: an op of a
// control verb that starts runs draws on the same bucket as the spawn
// ops, one token per op without a handler, and exactly what its handler
// takes with one. Before the mark a scheduler's tick started runs past
// every limit.
func TestSpawnsMarkedVerbCounts(t *testing.T) {
	now := time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)
	var asked, took []int
	var mu sync.Mutex
	tick := func(want int) Handler {
		return func(ctx context.Context, call *Call) (any, error) {
			if call.Spawns == nil {
				return nil, fmt.Errorf("a handler of a verb marked Spawns got no Call.Spawns")
			}
			n := call.Spawns.Take(want)
			mu.Lock()
			asked, took = append(asked, want), append(took, n)
			mu.Unlock()
			if n == 0 {
				return nil, call.Spawns.Refusal()
			}
			started := n
			if want > 1 {
				started = n - 1 // one of the runs it had tokens for did not start
				call.Spawns.Return(1)
			}
			return map[string]any{"started": started, "deferred": want - n}, nil
		}
	}
	verbs := func(fx *fixture) []Verb {
		vs := fixtureVerbs(fx)
		for i := range vs {
			if vs[i].Name == "mode.set" {
				vs[i].Spawns = true // a rendered command: one token per op
			}
		}
		return append(vs,
			Verb{Name: "sched.tick", Class: ClassControl, Path: []string{"mode"}, Summary: "start what is due", Spawns: true, Handler: tick(3)},
			Verb{Name: "sched.one", Class: ClassControl, Path: []string{"mode"}, Summary: "start one", Spawns: true, Handler: tick(1)})
	}
	fx := newFixture(t, func(c *fixtureConfig) {
		c.verbs = verbs
		c.opts.SpawnsPerMinute = 6
		c.opts.Now = func() time.Time { return now }
	})
	fp := fx.fingerprint(t, "agent.submit")
	submit := `{"op":"agent.submit","fingerprint":"` + fp + `","args":{"model":"m","prompt":"p"}}`
	mode := `{"op":"mode.set","args":{"mode":"fast"}}`
	tickOp := `{"op":"sched.tick","args":{"mode":"fast"}}`
	one := `{"op":"sched.one","args":{"mode":"fast"}}`
	codes := func(req string) []string {
		var out []string
		for _, r := range fx.surface.Handle(context.Background(), json.RawMessage(req), nil).Results {
			if r.OK {
				out = append(out, "ok")
			} else {
				out = append(out, r.Error.Code)
			}
		}
		return out
	}
	// 6 tokens: a submit (1), a rendered marked op (1), a tick that takes
	// 3 and gives one back (2), a tick that gets the 2 left and gives one
	// back (1), then one token is left for sched.one, and none for the
	// submit and the rendered op after it.
	got := codes(`{"ops":[` + strings.Join([]string{submit, mode, tickOp, tickOp, one, submit, mode, one}, ",") + `]}`)
	want := []string{"ok", "ok", "ok", "ok", "ok", CodeRateLimited, CodeRateLimited, CodeRateLimited}
	if strings.Join(got, " ") != strings.Join(want, " ") {
		t.Fatalf("results %v; want %v", got, want)
	}
	if fmt.Sprint(took) != "[3 2 1 0]" {
		t.Fatalf("the handlers took %v of %v tokens; want [3 2 1 0]", took, asked)
	}
	r := fx.surface.Handle(context.Background(), json.RawMessage(`{"ops":[`+one+`]}`), nil).Results[0]
	if r.OK || r.Error.Code != CodeRateLimited || r.Error.Limit != 6 || r.Error.RetryAfter < 1 || r.Error.RetryAfter > 10 ||
		!strings.Contains(r.Error.Message, "sched.one") {
		t.Fatalf("a handler's refusal: %+v; want rate_limited naming sched.one with limit 6 and retry_after 1..10 s", r.Error)
	}
	// A minute later the bucket is full again, and the returned tokens
	// never took it past its capacity: six, not more.
	now = now.Add(time.Minute)
	got = codes(`{"ops":[` + strings.Join([]string{mode, mode, mode, mode, mode, mode, mode}, ",") + `]}`)
	if strings.Join(got, " ") != "ok ok ok ok ok ok "+CodeRateLimited {
		t.Fatalf("after a minute: %v; want six ok and one rate_limited", got)
	}
}

// TestSpawnTokensWithoutLimit: with SpawnsPerMinute negative a handler
// takes every token it asks for, and its verb's ops are never refused.
func TestSpawnTokensWithoutLimit(t *testing.T) {
	var got int
	fx := newFixture(t, func(c *fixtureConfig) {
		c.opts.SpawnsPerMinute = -1
		c.verbs = func(fx *fixture) []Verb {
			return append(fixtureVerbs(fx), Verb{Name: "sched.tick", Class: ClassControl, Path: []string{"mode"}, Summary: "start what is due", Spawns: true,
				Handler: func(ctx context.Context, call *Call) (any, error) {
					got = call.Spawns.Take(1000)
					call.Spawns.Return(1000)
					return map[string]int{"limit": call.Spawns.Limit()}, nil
				}})
		}
	})
	r := fx.surface.Handle(context.Background(), json.RawMessage(`{"ops":[{"op":"sched.tick","args":{"mode":"fast"}}]}`), nil).Results[0]
	if !r.OK || got != 1000 || string(r.Result) != `{"limit":0}` {
		t.Fatalf("%+v took %d; want ok with every token and limit 0", r, got)
	}
}
