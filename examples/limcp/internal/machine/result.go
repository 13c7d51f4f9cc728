package machine

import (
	"bytes"
	"encoding/json"
	"fmt"
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

// Write writes r through the public writer (dispatch/machine's Write): one
// compact JSON object and a newline, HTML escaping off. Details that are
// not already a JSON object's map (a kill report) are carried as the
// object they encode to.
func Write(w io.Writer, r Result) error {
	out := vsmachine.Result{ResultVersion: r.ResultVersion, OK: r.OK, Data: r.Data}
	if r.Error != nil {
		details, err := detailsMap(r.Error.Details)
		if err != nil {
			return fmt.Errorf("machine: the details of %s: %w", r.Error.Code, err)
		}
		out.Error = &vsmachine.Error{Code: string(r.Error.Code), Message: r.Error.Message, Details: details}
	}
	return vsmachine.Write(w, out)
}

// detailsMap is details as the map a machine error carries.
func detailsMap(details any) (map[string]any, error) {
	switch d := details.(type) {
	case nil:
		return nil, nil
	case map[string]any:
		return d, nil
	}
	b, err := json.Marshal(details)
	if err != nil {
		return nil, err
	}
	var m map[string]any
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber() // numbers exactly as they were encoded
	if err := dec.Decode(&m); err != nil {
		return nil, fmt.Errorf("they are not a JSON object: %w", err)
	}
	return m, nil
}
