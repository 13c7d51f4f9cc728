package wait

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"
)

type runFunc func(ctx context.Context, argv []string) (json.RawMessage, error)

func (f runFunc) Run(ctx context.Context, argv []string) (json.RawMessage, error) {
	return f(ctx, argv)
}

// TestCLIObserverArgv: the ids come after "--", so an id can never be read
// as a flag of the observe command, and the configured command (machine
// arguments included) comes first, unchanged.
func TestCLIObserverArgv(t *testing.T) {
	o := CLIObserver{Command: []string{"--json", "jobs", "observe"}}
	got := o.Argv([]string{"--home=/elsewhere", "abc"})
	want := []string{"--json", "jobs", "observe", "--", "--home=/elsewhere", "abc"}
	if !slices.Equal(got, want) {
		t.Fatalf("Argv = %q; want %q", got, want)
	}
	if len(o.Command) != 3 {
		t.Fatalf("Argv changed the command: %q", o.Command)
	}
}

// TestDecodeObservationsRefusesWhatIsNotAList: anything but an object with
// an observations list is invalid_result, never an empty observation.
func TestDecodeObservationsRefusesWhatIsNotAList(t *testing.T) {
	for _, c := range []struct {
		data string
		want int
		bad  bool
	}{
		{`{"observations":[{"id":"a","status":"running"},{"id":"b","terminal":true}]}`, 2, false},
		{`{"observations":[]}`, 0, false},
		{`{}`, 0, true},
		{`{"observations":null}`, 0, true},
		{`[1]`, 0, true},
		{`{"observations":{"id":"a"}}`, 0, true},
	} {
		obs, err := DecodeObservations(json.RawMessage(c.data))
		var de *DecodeError
		if c.bad != errors.As(err, &de) || len(obs) != c.want {
			t.Errorf("DecodeObservations(%s) = %d, %v; want %d, error %v", c.data, len(obs), err, c.want, c.bad)
		}
		if de != nil && de.ErrorCode() != CodeInvalidResult {
			t.Errorf("code %q; want %q", de.ErrorCode(), CodeInvalidResult)
		}
	}
}

// TestCLIObserverInWait: Wait over a CLIObserver runs the configured
// command with every distinct id once per poll, and a CLI answer of the
// wrong shape ends the wait with an ObserveError carrying invalid_result
// and naming the command.
func TestCLIObserverInWait(t *testing.T) {
	var ran [][]string
	obs := CLIObserver{Command: []string{"job", "observe", "--json"}, Runner: runFunc(func(_ context.Context, argv []string) (json.RawMessage, error) {
		ran = append(ran, argv)
		return json.RawMessage(`{"observations":[{"id":"a","status":"completed","terminal":true}]}`), nil
	})}
	res, err := Wait(context.Background(), obs, []string{"a", "a"}, &Options{})
	if err != nil || !res.AllTerminal || res.Entries[0].Outcome != OutcomeSucceeded {
		t.Fatalf("Wait = %+v, %v; want all terminal, succeeded", res, err)
	}
	if want := [][]string{{"job", "observe", "--json", "--", "a"}}; !slices.EqualFunc(ran, want, slices.Equal) {
		t.Fatalf("ran %q; want %q", ran, want)
	}

	bad := CLIObserver{Command: []string{"job", "observe"}, Runner: runFunc(func(context.Context, []string) (json.RawMessage, error) {
		return json.RawMessage(`{"records":[]}`), nil
	})}
	_, err = Wait(context.Background(), bad, []string{"a"}, &Options{})
	var oe *ObserveError
	var de *DecodeError
	if !errors.As(err, &oe) || !errors.As(err, &de) || !strings.Contains(err.Error(), `"job" "observe"`) {
		t.Fatalf("Wait over a wrong answer = %v; want an ObserveError wrapping a DecodeError naming the command", err)
	}

	cliErr := errors.New("store locked")
	failing := CLIObserver{Command: []string{"x"}, Runner: runFunc(func(context.Context, []string) (json.RawMessage, error) { return nil, cliErr })}
	if _, err := Wait(context.Background(), failing, []string{"a"}, &Options{}); !errors.Is(err, cliErr) {
		t.Fatalf("Wait over a failing runner = %v; want the runner's error wrapped", err)
	}
	if _, err := (CLIObserver{}).Observe(context.Background(), []string{"a"}); err == nil {
		t.Fatal("an observer without a runner observed something")
	}
}

// TestParseArgs: the projected wait schema's three arguments, and a
// refusal naming the argument for anything of the wrong type.
func TestParseArgs(t *testing.T) {
	r, err := ParseArgs(map[string]any{"ids": []any{"a", "b"}, "max_wait_seconds": 0.0, "poll_interval_seconds": 2.5, "other": true})
	if err != nil || !slices.Equal(r.IDs, []string{"a", "b"}) || r.Opts.MaxWait == nil || *r.Opts.MaxWait != 0 ||
		r.Opts.PollInterval == nil || *r.Opts.PollInterval != 2500*time.Millisecond {
		t.Fatalf("ParseArgs = %+v, %v", r, err)
	}
	r, err = ParseArgs(map[string]any{"ids": []any{"a"}})
	if err != nil || r.Opts.MaxWait != nil || r.Opts.PollInterval != nil {
		t.Fatalf("ParseArgs without bounds = %+v, %v; want the defaults (nil)", r, err)
	}
	for _, c := range []struct {
		args  map[string]any
		param string
	}{
		{map[string]any{}, "ids"},
		{map[string]any{"ids": "a"}, "ids"},
		{map[string]any{"ids": []any{"a", 1.0}}, "ids"},
		{map[string]any{"ids": []any{"a"}, "max_wait_seconds": "5"}, "max_wait_seconds"},
		{map[string]any{"ids": []any{"a"}, "poll_interval_seconds": true}, "poll_interval_seconds"},
	} {
		_, err := ParseArgs(c.args)
		var ae *ArgsError
		if !errors.As(err, &ae) || ae.Param != c.param {
			t.Errorf("ParseArgs(%v) = %v; want an ArgsError on %s", c.args, err, c.param)
		}
	}
}

// TestIncreasing: only the first poll and polls with more terminal ids
// report, since MCP progress must increase with every notification.
func TestIncreasing(t *testing.T) {
	var got []int
	f := Increasing(func(terminal, total int, msg string) {
		if total != 3 || !strings.Contains(msg, "of 3 terminal") {
			t.Errorf("report(%d, %d, %q)", terminal, total, msg)
		}
		got = append(got, terminal)
	})
	for i, n := range []int{0, 0, 1, 1, 3, 3} {
		f(Progress{Poll: i + 1, Terminal: n, Total: 3})
	}
	if want := []int{0, 1, 3}; !slices.Equal(got, want) {
		t.Fatalf("reported %v; want %v", got, want)
	}
}
