//go:build unix

package kill

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"testing"
	"time"
)

type cliErr struct{ code, msg string }

func (e *cliErr) Error() string                { return e.msg }
func (e *cliErr) ErrorCode() string            { return e.code }
func (e *cliErr) ErrorDetails() map[string]any { return map[string]any{"message": e.msg} }

// fakeCLI answers the status command with status and records every argv.
type fakeCLI struct {
	status string
	killed json.RawMessage
	ran    [][]string
}

func (f *fakeCLI) Run(_ context.Context, argv []string) (json.RawMessage, error) {
	f.ran = append(f.ran, argv)
	if slices.Contains(argv, "status") {
		if f.status == "" {
			return nil, &cliErr{"cli_error", "no record"}
		}
		return json.RawMessage(f.status), nil
	}
	return f.killed, nil
}

// TestPathArgv: the grace only when given, the id after "--", and
// ReferenceArgv is the same builder on limcp's path.
func TestPathArgv(t *testing.T) {
	b := PathArgv([]string{"--json", "jobs", "kill"})
	if got, want := b(Entity{ID: "-x"}, 0), []string{"--json", "jobs", "kill", "--", "-x"}; !slices.Equal(got, want) {
		t.Fatalf("argv %q; want %q", got, want)
	}
	if got, want := b(Entity{ID: "a"}, 3*time.Second), []string{"--json", "jobs", "kill", "--grace=3s", "--", "a"}; !slices.Equal(got, want) {
		t.Fatalf("argv %q; want %q", got, want)
	}
	for _, g := range []time.Duration{0, time.Second} {
		e := Entity{Kind: KindPlay, ID: "p"}
		if a, b := PathArgv([]string{"kill", "--json"})(e, g), ReferenceArgv(e, g); !slices.Equal(a, b) {
			t.Fatalf("PathArgv(kill --json) = %q; ReferenceArgv = %q", a, b)
		}
	}
}

// TestLookupRecord: one record with an id is the identity; anything else
// is invalid_result, and the CLI's own error passes through.
func TestLookupRecord(t *testing.T) {
	for _, c := range []struct {
		status string
		want   Record
		code   string
	}{
		{`{"records":[{"id":"abcdef1234","kind":"play","status":"running"}]}`, Record{Kind: KindPlay, ID: "abcdef1234"}, ""},
		{"", Record{}, "cli_error"},
		{`{"records":[]}`, Record{}, CodeInvalidResult},
		{`{"records":[{"id":"a"},{"id":"b"}]}`, Record{}, CodeInvalidResult},
		{`{"records":[{"kind":"play"}]}`, Record{}, CodeInvalidResult},
		{`[]`, Record{}, CodeInvalidResult},
	} {
		f := &fakeCLI{status: c.status}
		got, err := LookupRecord(context.Background(), f, []string{"job", "status", "--json"}, "abcdef")
		if want := [][]string{{"job", "status", "--json", "--", "abcdef"}}; !slices.EqualFunc(f.ran, want, slices.Equal) {
			t.Fatalf("ran %q; want %q", f.ran, want)
		}
		var coded interface{ ErrorCode() string }
		code := ""
		if errors.As(err, &coded) {
			code = coded.ErrorCode()
		}
		if got != c.want || code != c.code || (err != nil) != (c.code != "") {
			t.Errorf("LookupRecord over %q = %+v, %v; want %+v, code %q", c.status, got, err, c.want, c.code)
		}
	}
}

// TestCLI: with a status command, Decide chooses on the looked-up
// record (a play is delegated with its full id, a show refused, an
// unknown kind refused, never a signal); without one the id is delegated
// as given (id_only). The CLI's failure is returned as it is.
func TestCLI(t *testing.T) {
	ok := json.RawMessage(`{"reaped":[]}`)
	t.Run("delegates the looked-up record", func(t *testing.T) {
		f := &fakeCLI{status: `{"records":[{"id":"abcdef1234","kind":"play"}]}`, killed: ok}
		res, err := CLI{Runner: f, Status: []string{"job", "status", "--json"}, Kill: []string{"kill", "--json"}}.Run(context.Background(), "abcdef", 2*time.Second)
		if err != nil || res.Decision.Rule != RuleEntity || res.Delegated == nil || !res.Delegated.OK || string(res.Delegated.Data) != string(ok) {
			t.Fatalf("Run = %+v, %v", res, err)
		}
		if want := []string{"kill", "--json", "--grace=2s", "--", "abcdef1234"}; !slices.Equal(f.ran[1], want) {
			t.Fatalf("killed with %q; want %q", f.ran[1], want)
		}
	})
	for _, kind := range []string{"show", "job"} {
		t.Run("refuses a "+kind, func(t *testing.T) {
			f := &fakeCLI{status: `{"records":[{"id":"s1","kind":"` + kind + `"}]}`, killed: ok}
			res, err := CLI{Runner: f, Status: []string{"status"}, Kill: []string{"kill"}}.Run(context.Background(), "s1", 0)
			var ke *Error
			if !errors.As(err, &ke) || res.Decision.Action != ActionRefuse || len(f.ran) != 1 {
				t.Fatalf("Run = %+v, %v, ran %q; want a refusal and no kill", res, err, f.ran)
			}
		})
	}
	t.Run("a CLI's own kind mapped to kill's is delegated", func(t *testing.T) {
		f := &fakeCLI{status: `{"records":[{"id":"j1","kind":"job"}]}`, killed: ok}
		k := CLI{Runner: f, Status: []string{"status"}, Kill: []string{"kill"}, Kinds: map[string]Kind{"job": KindInvocation}}
		res, err := k.Run(context.Background(), "j1", 0)
		if err != nil || res.Decision.Action != ActionDelegate || res.Decision.Entity.Kind != KindInvocation {
			t.Fatalf("Run = %+v, %v", res, err)
		}
		k.Kinds = map[string]Kind{"job": KindShow}
		if res, err := k.Run(context.Background(), "j1", 0); err == nil || res.Decision.Rule != RuleShowLevel {
			t.Fatalf("a kind mapped to show: %+v, %v; want refused", res, err)
		}
	})
	t.Run("without a status command the id is delegated as given", func(t *testing.T) {
		f := &fakeCLI{killed: ok}
		res, err := CLI{Runner: f, Kill: []string{"kill"}}.Run(context.Background(), "x1", 0)
		if err != nil || res.Decision.Rule != RuleIDOnly || res.Decision.Action != ActionDelegate || !slices.Equal(f.ran[0], []string{"kill", "--", "x1"}) {
			t.Fatalf("Run = %+v, %v, ran %q", res, err, f.ran)
		}
	})
	t.Run("the lookup's failure stops the kill", func(t *testing.T) {
		f := &fakeCLI{killed: ok}
		built := 0
		_, err := CLI{Runner: f, Status: []string{"status"}, Kill: []string{"kill"},
			KillRunner: func(time.Duration) (Runner, error) { built++; return f, nil }}.Run(context.Background(), "x1", 0)
		if err == nil || len(f.ran) != 1 || built != 0 {
			t.Fatalf("Run = %v, ran %q, kill runners built %d; want the CLI's error, no kill and no kill runner", err, f.ran, built)
		}
	})
	t.Run("a failed kill is reported with the CLI's code", func(t *testing.T) {
		failing := RunnerFunc(func(context.Context, []string) (json.RawMessage, error) {
			return nil, &cliErr{"cli_error", "kill_partial"}
		})
		var graces []time.Duration
		res, err := CLI{Kill: []string{"kill"}, KillRunner: func(g time.Duration) (Runner, error) {
			graces = append(graces, g)
			return failing, nil
		}}.Run(context.Background(), "x1", time.Second)
		var ke *Error
		if !errors.As(err, &ke) || ke.Code != "cli_error" || res.Delegated == nil || res.Delegated.OK || !slices.Equal(graces, []time.Duration{time.Second}) {
			t.Fatalf("Run = %+v, %v (graces %v)", res, err, graces)
		}
	})
	t.Run("an empty id is an argument error", func(t *testing.T) {
		_, err := CLI{Kill: []string{"kill"}}.Run(context.Background(), "", 0)
		var ae *ArgError
		if !errors.As(err, &ae) || ae.Param() != "id" {
			t.Fatalf("Run(\"\") = %v", err)
		}
	})
}

// TestParseGrace: absent is zero; a positive duration is taken; anything
// else is an argument error on grace.
func TestParseGrace(t *testing.T) {
	if g, err := ParseGrace(map[string]any{}); g != 0 || err != nil {
		t.Fatalf("absent: %v, %v", g, err)
	}
	if g, err := ParseGrace(map[string]any{"grace": "1500ms"}); g != 1500*time.Millisecond || err != nil {
		t.Fatalf("1500ms: %v, %v", g, err)
	}
	if g, err := ParseGrace(map[string]any{"grace": MaxGrace.String()}); g != MaxGrace || err != nil {
		t.Fatalf("MaxGrace: %v, %v", g, err)
	}
	for _, v := range []any{"0s", "-1s", "soon", 5.0, (MaxGrace + time.Second).String(), "99999h"} {
		_, err := ParseGrace(map[string]any{"grace": v})
		var ae *ArgError
		if !errors.As(err, &ae) || ae.Param() != "grace" {
			t.Errorf("grace %v: %v; want an ArgError on grace", v, err)
		}
	}
}
