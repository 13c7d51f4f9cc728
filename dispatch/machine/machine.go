package machine

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
)

// ResultVersion is the version of the result shape written here, the one
// dispatch.SupportedResultVersion reads.
const ResultVersion = 1

// CodeUsageError and CodeInternal are the codes this package itself uses:
// a command line that did not parse, and an error that carries no code.
const (
	CodeUsageError = "usage_error"
	CodeInternal   = "internal_error"
)

// Result is one machine result. Exactly one of Data (when OK) or Error is set.
type Result struct {
	ResultVersion int    `json:"result_version"`
	OK            bool   `json:"ok"`
	Data          any    `json:"data,omitempty"`
	Error         *Error `json:"error,omitempty"`
}

// Error is a failure as a machine caller sees it: a code of the CLI's
// closed set, a sentence, and details (a JSON object) when there are any.
// It is also a Go error carrying the methods dispatch and verbsurface
// read (ErrorCode, ErrorDetails).
type Error struct {
	Code    string         `json:"code"`
	Message string         `json:"message"`
	Details map[string]any `json:"details,omitempty"`
}

func (e *Error) Error() string { return e.Message }

// ErrorCode returns the code.
func (e *Error) ErrorCode() string { return e.Code }

// ErrorDetails returns the details.
func (e *Error) ErrorDetails() map[string]any { return e.Details }

// Errorf builds an *Error with a formatted message.
func Errorf(code string, details map[string]any, format string, args ...any) *Error {
	return &Error{Code: code, Message: fmt.Sprintf(format, args...), Details: details}
}

// Write encodes r as one compact JSON object followed by a newline. HTML
// escaping is off: the reader is a program, and "<" in a prompt should
// stay "<". A zero ResultVersion is written as [ResultVersion].
func Write(w io.Writer, r Result) error {
	if r.ResultVersion == 0 {
		r.ResultVersion = ResultVersion
	}
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	return enc.Encode(r)
}

// WriteOK writes a success result. A nil data is written as an empty
// object, so "data" is always present on success.
func WriteOK(w io.Writer, data any) error {
	if data == nil {
		data = struct{}{}
	}
	return Write(w, Result{OK: true, Data: data})
}

// WriteError writes err as a failure result: its code and details when it
// has them (ErrorCode() string, ErrorDetails() map[string]any, as *Error
// and dispatch's errors do), else internal_error with its text.
func WriteError(w io.Writer, err error) error {
	return Write(w, Result{Error: AsError(err)})
}

// AsError returns err as an *Error: itself when it is one, its code and
// details when it carries them, else internal_error.
func AsError(err error) *Error {
	if err == nil {
		return &Error{Code: CodeInternal, Message: "no error given"}
	}
	var me *Error
	if errors.As(err, &me) {
		return me
	}
	e := &Error{Code: CodeInternal, Message: err.Error()}
	var coded interface{ ErrorCode() string }
	if errors.As(err, &coded) && coded.ErrorCode() != "" {
		e.Code = coded.ErrorCode()
	}
	var detailed interface{ ErrorDetails() map[string]any }
	if errors.As(err, &detailed) {
		e.Details = detailed.ErrorDetails()
	}
	return e
}
