//go:build unix

package verbsurface

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/verbsurface/verbsurface/kill"
	"github.com/verbsurface/verbsurface/wait"
)

// TestJobCodesAreTheSurfaces: wait and kill name invalid_result without
// importing this package; they must name the same code.
func TestJobCodesAreTheSurfaces(t *testing.T) {
	if wait.CodeInvalidResult != CodeInvalidResult || kill.CodeInvalidResult != CodeInvalidResult {
		t.Fatalf("wait %q, kill %q; the surface's is %q", wait.CodeInvalidResult, kill.CodeInvalidResult, CodeInvalidResult)
	}
}

// TestWaitHandler: the handler observes through the call's runner with
// the configured command, reports increasing progress, subscribes a wake
// for the call, and an answer of the wrong shape is invalid_result.
func TestWaitHandler(t *testing.T) {
	var ran [][]string
	polls := 0
	exec := RunnerFunc(func(_ context.Context, argv []string) (json.RawMessage, error) {
		ran = append(ran, argv)
		polls++
		if polls == 1 {
			return json.RawMessage(`{"observations":[{"id":"a","status":"running","phase":"started","process":"alive"}]}`), nil
		}
		return json.RawMessage(`{"observations":[{"id":"a","status":"completed","terminal":true}]}`), nil
	})
	woke := 0
	h := WaitHandler(&WaitHandlerOptions{Observe: []string{"--json", "observe"}, Wake: func(ctx context.Context) <-chan struct{} {
		woke++
		ch := make(chan struct{}, 1)
		ch <- struct{}{}
		return ch
	}})
	var progress []float64
	out, err := h(context.Background(), &Call{Verb: "job.wait", Runner: exec,
		Args: map[string]any{"ids": []any{"a"}, "poll_interval_seconds": 0.05},
		Progress: func(_ context.Context, p, total float64, _ string) {
			progress = append(progress, p)
		}})
	res, _ := out.(*wait.Result)
	if err != nil || res == nil || !res.AllTerminal {
		t.Fatalf("handler = %+v, %v; want all terminal", out, err)
	}
	if !slices.Equal(ran[0], []string{"--json", "observe", "--", "a"}) || woke != 1 || !slices.Equal(progress, []float64{0, 1}) {
		t.Fatalf("ran %q, wake subscriptions %d, progress %v", ran, woke, progress)
	}

	bad := RunnerFunc(func(context.Context, []string) (json.RawMessage, error) { return json.RawMessage(`{}`), nil })
	_, err = WaitHandler(&WaitHandlerOptions{Observe: []string{"observe"}})(context.Background(), &Call{Verb: "job.wait", Runner: bad, Args: map[string]any{"ids": []any{"a"}}})
	if eo := executionError(err, true); eo.Code != CodeInvalidResult {
		t.Fatalf("a wrong answer = %+v; want %s", eo, CodeInvalidResult)
	}
	_, err = WaitHandler(&WaitHandlerOptions{Observe: []string{"observe"}})(context.Background(), &Call{Verb: "job.wait", Runner: bad, Args: map[string]any{}})
	if eo := executionError(err, true); eo.Code != CodeHandlerError || eo.Details["code"] != CodeInternalError {
		t.Fatalf("args without ids = %+v; want %s (%s)", eo, CodeHandlerError, CodeInternalError)
	}
}

// TestKillHandler: the status lookup and the kill run through the call's
// runner; a bad grace is an argument problem on grace.
func TestKillHandler(t *testing.T) {
	var ran [][]string
	exec := RunnerFunc(func(_ context.Context, argv []string) (json.RawMessage, error) {
		ran = append(ran, argv)
		if argv[0] == "status" {
			return json.RawMessage(`{"records":[{"id":"inv-1234","kind":"invocation"}]}`), nil
		}
		return json.RawMessage(`{"reaped":[]}`), nil
	})
	h := KillHandler(kill.CLI{Status: []string{"status"}, Kill: []string{"kill", "--json"}})
	out, err := h(context.Background(), &Call{Verb: "job.kill", Runner: exec, Args: map[string]any{"id": "inv-1", "grace": "1s"}})
	res, _ := out.(kill.Result)
	if err != nil || res.Delegated == nil || !res.Delegated.OK {
		t.Fatalf("handler = %+v, %v", out, err)
	}
	if want := []string{"kill", "--json", "--grace=1s", "--", "inv-1234"}; !slices.Equal(ran[1], want) {
		t.Fatalf("ran %q; want the kill %q", ran, want)
	}
	_, err = h(context.Background(), &Call{Verb: "job.kill", Runner: exec, Args: map[string]any{"id": "inv-1", "grace": "never"}})
	var pe paramError
	if !errors.As(err, &pe) || pe.Param() != "grace" {
		t.Fatalf("a bad grace = %v; want a problem on grace", err)
	}
}

// TestWaitHandlerCapsIDs: more distinct ids than the cap is an argument
// problem on ids and runs nothing (duplicates count once); the cap is
// configurable and can be switched off.
func TestWaitHandlerCapsIDs(t *testing.T) {
	ran := 0
	exec := RunnerFunc(func(_ context.Context, argv []string) (json.RawMessage, error) {
		ran++
		obs := []string{}
		for _, id := range argv[slices.Index(argv, "--")+1:] {
			obs = append(obs, `{"id":"`+id+`","status":"completed","terminal":true}`)
		}
		return json.RawMessage(`{"observations":[` + strings.Join(obs, ",") + `]}`), nil
	})
	ids := func(n int, dup bool) []any {
		out := []any{}
		for i := 0; i < n; i++ {
			out = append(out, fmt.Sprintf("id%d", i))
			if dup {
				out = append(out, fmt.Sprintf("id%d", i))
			}
		}
		return out
	}
	call := func(o WaitHandlerOptions, list []any) error {
		o.Observe = []string{"observe"}
		_, err := WaitHandler(&o)(context.Background(), &Call{Verb: "job.wait", Runner: exec, Args: map[string]any{"ids": list}})
		return err
	}
	var pe interface{ Param() string }
	if err := call(WaitHandlerOptions{}, ids(DefaultMaxWaitIDs+1, false)); !errors.As(err, &pe) || pe.Param() != "ids" || ran != 0 {
		t.Fatalf("%d ids: %v (ran %d); want an argument problem on ids and nothing run", DefaultMaxWaitIDs+1, err, ran)
	}
	if err := call(WaitHandlerOptions{}, ids(DefaultMaxWaitIDs, true)); err != nil {
		t.Fatalf("%d distinct ids, each twice: %v", DefaultMaxWaitIDs, err)
	}
	if err := call(WaitHandlerOptions{MaxIDs: 2}, ids(3, false)); !errors.As(err, &pe) {
		t.Fatalf("MaxIDs 2, 3 ids: %v", err)
	}
	if err := call(WaitHandlerOptions{MaxIDs: -1}, ids(DefaultMaxWaitIDs+1, false)); err != nil {
		t.Fatalf("no cap: %v", err)
	}
}

// TestWaitHandlerOptionsByPointer: nil options are the zero value, whose
// missing observe command is the embedder's bug said as internal_error
// (nothing runs); the options are copied when the handler is built, so a
// caller changing them later does not change the handler.
func TestWaitHandlerOptionsByPointer(t *testing.T) {
	var ran [][]string
	exec := RunnerFunc(func(_ context.Context, argv []string) (json.RawMessage, error) {
		ran = append(ran, argv)
		return json.RawMessage(`{"observations":[{"id":"a","status":"completed","terminal":true}]}`), nil
	})
	_, err := WaitHandler(nil)(context.Background(), &Call{Verb: "job.wait", Runner: exec, Args: map[string]any{"ids": []any{"a"}}})
	if eo := executionError(err, true); eo.Code != CodeHandlerError || eo.Details["code"] != CodeInternalError || !strings.Contains(err.Error(), "Observe is empty") || len(ran) != 0 {
		t.Fatalf("nil options = %v (ran %q); want internal_error naming Observe and nothing run", err, ran)
	}

	o := &WaitHandlerOptions{Observe: []string{"observe"}}
	h := WaitHandler(o)
	o.Observe[0], o.Observe = "changed", []string{"other"}
	if _, err := h(context.Background(), &Call{Verb: "job.wait", Runner: exec, Args: map[string]any{"ids": []any{"a"}}}); err != nil {
		t.Fatal(err)
	}
	if want := []string{"observe", "--", "a"}; !slices.Equal(ran[0], want) {
		t.Fatalf("ran %q; want %q, the options as they were when the handler was built", ran[0], want)
	}
}

// TestWaitHandlerBoundsTheRequest: the wait ops of one request share
// MaxRequestWait. Each op's window is at most what is left, echoed as its
// max_wait_seconds, and once it is spent an op observes once (a window
// of 0). Before, each op had its own 300 s: sixteen made a request of 80
// minutes.
func TestWaitHandlerBoundsTheRequest(t *testing.T) {
	running := RunnerFunc(func(context.Context, []string) (json.RawMessage, error) {
		return json.RawMessage(`{"observations":[{"id":"a","status":"running","phase":"started","process":"alive"}]}`), nil
	})
	h := WaitHandler(&WaitHandlerOptions{Observe: []string{"observe"}, MaxRequestWait: 600 * time.Millisecond})
	ctx := withRequestWait(context.Background())
	var windows []float64
	for range 3 {
		out, err := h(ctx, &Call{Verb: "job.wait", Runner: running,
			Args: map[string]any{"ids": []any{"a"}, "max_wait_seconds": 0.5, "poll_interval_seconds": 0.25}})
		if err != nil {
			t.Fatal(err)
		}
		res := out.(*wait.Result)
		windows = append(windows, res.MaxWaitSeconds)
		if res.PollIntervalSeconds != 0.25 {
			t.Fatalf("poll interval echoed %v; want 0.25", res.PollIntervalSeconds)
		}
	}
	// The first op waits its 0.5 s; the second gets what is left of
	// 0.6 s, less than it asked; the third nothing.
	if windows[0] != 0.5 || windows[1] >= 0.5 || windows[2] != 0 {
		t.Fatalf("windows %v; want 0.5, less than 0.5, then 0", windows)
	}
	// Another request starts with the whole bound.
	out, _ := h(withRequestWait(context.Background()), &Call{Verb: "job.wait", Runner: running,
		Args: map[string]any{"ids": []any{"a"}, "max_wait_seconds": 0.5, "poll_interval_seconds": 0.25}})
	if w := out.(*wait.Result).MaxWaitSeconds; w != 0.5 {
		t.Fatalf("another request's op got a window of %v; want its 0.5", w)
	}
}

// observerFunc is a wait.Observer of a function.
type observerFunc func(ctx context.Context, ids []string) ([]wait.Observation, error)

func (f observerFunc) Observe(ctx context.Context, ids []string) ([]wait.Observation, error) {
	return f(ctx, ids)
}

// With an Observer the handler observes through it and runs no command
// (there is no runner at all here); with a Progress rule the client gets
// what that rule says after each poll, not the terminal count.
func TestWaitHandlerObserverAndProgress(t *testing.T) {
	polls := 0
	obs := observerFunc(func(_ context.Context, ids []string) ([]wait.Observation, error) {
		polls++
		out := make([]wait.Observation, len(ids))
		for i, id := range ids {
			out[i] = wait.Observation{ID: id, Kind: "run", Status: "running", Phase: wait.PhaseStarted, Process: wait.EvidenceAlive}
			if polls > 2 {
				out[i].Status, out[i].Terminal, out[i].EndRecorded, out[i].Process = "completed", true, true, wait.EvidenceGone
			}
		}
		return out, nil
	})
	var sent []string
	h := WaitHandler(&WaitHandlerOptions{Observer: obs, Outcomes: wait.OutcomeTable{"completed": wait.OutcomeSucceeded},
		Progress: func(p wait.Progress) (float64, float64, string, bool) {
			return float64(p.Poll), 0, fmt.Sprintf("poll %d", p.Poll), p.Poll != 2
		}})
	res, err := h(context.Background(), &Call{Verb: "job.wait", Args: map[string]any{"ids": []any{"r-1"}, "poll_interval_seconds": 0.25},
		Progress: func(_ context.Context, progress, total float64, msg string) { sent = append(sent, msg) }})
	if err != nil {
		t.Fatal(err)
	}
	if r := res.(*wait.Result); !r.AllTerminal || polls != 3 {
		t.Fatalf("result %+v after %d polls", r, polls)
	}
	if fmt.Sprint(sent) != "[poll 1 poll 3]" {
		t.Fatalf("progress sent: %v", sent)
	}
}
