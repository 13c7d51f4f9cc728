package machine

import (
	"encoding/json"
	"io"

	vsmachine "github.com/verbsurface/verbsurface/dispatch/machine"
)

// ResultVersion is the version of the machine-result shape this binary emits.
// It is the public writer's (dispatch/machine), which limcp's result shape
// follows.
const ResultVersion = vsmachine.ResultVersion

// Result is one machine result. Exactly one of Data (when OK) or Error is set.
type Result struct {
	ResultVersion int    `json:"result_version"`
	OK            bool   `json:"ok"`
	Data          any    `json:"data,omitempty"`
	Error         *Error `json:"error,omitempty"`
}

// OK builds a success result. A nil data is written as an empty object, so
// "data" is always present on success.
func OK(data any) Result {
	if data == nil {
		data = struct{}{}
	}
	return Result{ResultVersion: ResultVersion, OK: true, Data: data}
}

// Fail builds a failure result.
func Fail(err *Error) Result {
	return Result{ResultVersion: ResultVersion, OK: false, Error: err}
}

// Write encodes r as one compact JSON object followed by a newline. HTML
// escaping is off: the reader is a program, and "<" in a prompt should stay
// "<".
func Write(w io.Writer, r Result) error {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	return enc.Encode(r)
}
