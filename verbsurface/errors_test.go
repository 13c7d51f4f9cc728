//go:build unix

package verbsurface

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestExecutionErrorCodes pins how a runner's or a handler's error
// becomes an op's error code, one row per rule of executionError.
func TestExecutionErrorCodes(t *testing.T) {
	cliErr := &codedErr{code: CodeCLIError, details: map[string]any{"code": "not_found", "message": `no job "x"`}}
	tests := []struct {
		rule        string
		err         error
		fromHandler bool
		code        string
		message     string         // "" means the error's own text
		details     map[string]any // nil means none
	}{
		{"a dispatch code passes through", &codedErr{code: CodeTimeout, details: map[string]any{"after": "20s"}}, false,
			CodeTimeout, "", map[string]any{"after": "20s"}},
		{"a wrapped dispatch code passes through", fmt.Errorf("job.wait: %w", &codedErr{code: CodeNonzeroExit}), true,
			CodeNonzeroExit, "", nil},
		{"cli_error takes the CLI's own message", cliErr, false,
			CodeCLIError, `no job "x"`, cliErr.details},
		{"a runner error without a code is internal", errors.New("boom"), false,
			CodeInternalError, "", nil},
		{"a runner error with a foreign code is internal, keeping it", &codedErr{code: "weird", details: map[string]any{"a": 1}}, false,
			CodeInternalError, "", map[string]any{"code": "weird", "details": map[string]any{"a": 1}}},
		{"a handler's own code is handler_error, keeping it", &codedErr{code: "deadline_unreachable"}, true,
			CodeHandlerError, "", map[string]any{"code": "deadline_unreachable"}},
		{"a handler error without a code is handler_error", errors.New("boom"), true,
			CodeHandlerError, "", nil},
		{"a handler that saw its context cancelled reports cancelled", fmt.Errorf("waiting: %w", context.Canceled), true,
			CodeCancelled, "", nil},
		{"a handler that ran out of time reports timeout", fmt.Errorf("waiting: %w", context.DeadlineExceeded), true,
			CodeTimeout, "", nil},
	}
	for _, tt := range tests {
		t.Run(tt.rule, func(t *testing.T) {
			eo := executionError(tt.err, tt.fromHandler)
			want := tt.message
			if want == "" {
				want = tt.err.Error()
			}
			if eo.Code != tt.code || eo.Message != want {
				t.Errorf("got %s %q, want %s %q", eo.Code, eo.Message, tt.code, want)
			}
			if diff := cmp.Diff(tt.details, eo.Details); diff != "" {
				t.Errorf("details (-want +got):\n%s", diff)
			}
		})
	}
}
