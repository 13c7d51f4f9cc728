//go:build unix

package server

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/verbsurface/verbsurface/kill"
	"github.com/verbsurface/verbsurface/verbsurface"
	"github.com/verbsurface/verbsurface/wait"
)

// coded is what the surface matches a handler error with (contract C3).
type coded interface{ ErrorCode() string }

func errCode(err error) string {
	var c coded
	if errors.As(err, &c) {
		return c.ErrorCode()
	}
	return ""
}

// TestDecodeObservations: job observe's data is an object with an
// "observations" list; anything else is invalid_result, never an empty
// observation (which the wait would read as "nothing to report").
func TestDecodeObservations(t *testing.T) {
	for _, c := range []struct {
		name, data string
		want       int    // observations decoded
		code       string // error code, "" for none
	}{
		{"two observations", `{"observations":[{"id":"a","status":"running"},{"id":"b","status":"completed","terminal":true}]}`, 2, ""},
		{"an empty list is a list", `{"observations":[]}`, 0, ""},
		{"no observations member", `{}`, 0, verbsurface.CodeInvalidResult},
		{"observations null", `{"observations":null}`, 0, verbsurface.CodeInvalidResult},
		{"not an object", `[1,2]`, 0, verbsurface.CodeInvalidResult},
		{"observations not a list", `{"observations":{"id":"a"}}`, 0, verbsurface.CodeInvalidResult},
	} {
		t.Run(c.name, func(t *testing.T) {
			obs, err := wait.DecodeObservations(json.RawMessage(c.data))
			if got := errCode(err); got != c.code || (err != nil) != (c.code != "") {
				t.Fatalf("decodeObservations(%s) = %v (code %q); want code %q", c.data, err, got, c.code)
			}
			if len(obs) != c.want {
				t.Fatalf("decodeObservations(%s) = %d observations; want %d", c.data, len(obs), c.want)
			}
			if err != nil && !strings.Contains(err.Error(), "observation") {
				t.Errorf("the error does not say which command: %v", err)
			}
		})
	}
}

// TestObserveArgvPutsIDsAfterTheSeparator: an id can never be read as a
// flag of `job observe`.
func TestObserveArgvPutsIDsAfterTheSeparator(t *testing.T) {
	got := wait.CLIObserver{Command: observeCommand}.Argv([]string{"--home=/elsewhere", "abcdef12"})
	want := []string{"job", "observe", "--json", "--", "--home=/elsewhere", "abcdef12"}
	if !slices.Equal(got, want) {
		t.Fatalf("observeArgv = %q; want %q", got, want)
	}
}

// TestLookupRecord: job.kill learns the record's full id and kind from
// `limcp job status --json -- ID`; the CLI's own error passes through, and
// an answer that is not exactly one record with an id is invalid_result.
func TestLookupRecord(t *testing.T) {
	cliErr := &codedError{code: verbsurface.CodeCLIError, msg: "no record abcdef12"}
	for _, c := range []struct {
		name string
		data string
		err  error
		want kill.Record
		code string
	}{
		{"one record", `{"records":[{"id":"abcdef1234567890","kind":"play"}]}`, nil,
			kill.Record{Kind: kill.Kind("play"), ID: "abcdef1234567890"}, ""},
		{"the CLI's error passes through", "", cliErr, kill.Record{}, verbsurface.CodeCLIError},
		{"no record", `{"records":[]}`, nil, kill.Record{}, verbsurface.CodeInvalidResult},
		{"two records", `{"records":[{"id":"a","kind":"play"},{"id":"b","kind":"play"}]}`, nil, kill.Record{}, verbsurface.CodeInvalidResult},
		{"a record without an id", `{"records":[{"kind":"play"}]}`, nil, kill.Record{}, verbsurface.CodeInvalidResult},
		{"not JSON of that shape", `{"records":"abc"}`, nil, kill.Record{}, verbsurface.CodeInvalidResult},
	} {
		t.Run(c.name, func(t *testing.T) {
			var argv []string
			exec := verbsurface.RunnerFunc(func(_ context.Context, a []string) (json.RawMessage, error) {
				argv = a
				if c.err != nil {
					return nil, c.err
				}
				return json.RawMessage(c.data), nil
			})
			got, err := kill.LookupRecord(context.Background(), exec, statusCommand, "abcdef12")
			if want := []string{"job", "status", "--json", "--", "abcdef12"}; !slices.Equal(argv, want) {
				t.Fatalf("ran %q; want %q", argv, want)
			}
			if code := errCode(err); code != c.code || (err != nil) != (c.code != "") {
				t.Fatalf("lookupRecord = %+v, %v (code %q); want code %q", got, err, code, c.code)
			}
			if got != c.want {
				t.Fatalf("lookupRecord = %+v; want %+v", got, c.want)
			}
		})
	}
}

// codedError is a handler failure with a code of the surface's set (or
// the handler's own, reported under handler_error).
type codedError struct {
	code    string
	msg     string
	details map[string]any
}

func (e *codedError) Error() string                { return e.msg }
func (e *codedError) ErrorCode() string            { return e.code }
func (e *codedError) ErrorDetails() map[string]any { return e.details }
