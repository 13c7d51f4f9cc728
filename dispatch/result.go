//go:build unix

package dispatch

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"

	"github.com/verbsurface/verbsurface/internal/portablejson"
)

// SupportedResultVersion is the only machine-result version this package
// speaks. A result naming any other version is refused with
// [KindUnsupportedResultVersion] rather than guessed at.
const SupportedResultVersion = 1

// MachineResult is a parsed machine result: exactly one of Data (OK) or
// Error (not OK) is set.
type MachineResult struct {
	Version int64
	OK      bool
	Data    json.RawMessage // the "data" member, as printed; set when OK
	Error   *ErrorObject    // the "error" member; set when !OK
}

// ErrorObject is the "error" member of a not-ok machine result.
type ErrorObject struct {
	Code    string          // non-empty
	Message string          //
	Details json.RawMessage // as printed; "null" when absent
}

// ParseMachineResult checks stdout against the machine-result contract and
// returns the one result it holds. The error is an [*Error] (with no
// command) whose Kind is the first rule broken, in this order:
//
//  1. [KindAbsentResult]: stdout is empty or only whitespace.
//  2. [KindInvalidResult]: stdout is not a sequence of JSON values.
//  3. [KindMultipleResults]: stdout holds more than one JSON value.
//  4. [KindInvalidResult]: the value is not an object, or has no integer
//     "result_version" (or repeats a key).
//  5. [KindUnsupportedResultVersion]: "result_version" is not
//     [SupportedResultVersion]. Checked before the rest of the shape, since
//     another version may legitimately have another shape.
//  6. [KindInvalidResult]: the version-1 shape is broken: "ok" must be a
//     boolean; an ok result has exactly the keys result_version, ok, data;
//     a not-ok result exactly result_version, ok, error; error is an object
//     with a non-empty string "code", a string "message" and optionally
//     "details" (any JSON; absent reads as null), and no other keys.
//
// It does not look at the exit status; [Runner.Execute] combines the two.
func ParseMachineResult(stdout []byte) (*MachineResult, error) {
	if len(bytes.TrimSpace(stdout)) == 0 {
		return nil, resultError(KindAbsentResult, "stdout holds no machine result; expected exactly one JSON object")
	}
	first, err := singleValue(stdout)
	if err != nil {
		return nil, err
	}
	if err := portablejson.Check(first); err != nil {
		return nil, resultError(KindInvalidResult, "stdout holds JSON that not every client can decode: "+err.Error())
	}
	if first[0] != '{' {
		return nil, resultError(KindInvalidResult, fmt.Sprintf("stdout holds a JSON %s, not an object", jsonTypeName(first[0])))
	}
	top, err := objectMembers(first, "result")
	if err != nil {
		return nil, err
	}
	rawVersion, ok := top["result_version"]
	if !ok {
		return nil, resultError(KindInvalidResult, `result has no "result_version"`)
	}
	version, err := strconv.ParseInt(string(rawVersion), 10, 64)
	if err != nil {
		return nil, resultError(KindInvalidResult, fmt.Sprintf(`"result_version" is %s, not an integer`, shorten(rawVersion)))
	}
	if version != SupportedResultVersion {
		e := resultError(KindUnsupportedResultVersion, fmt.Sprintf("result_version %d is not supported (this dispatcher speaks version %d)", version, SupportedResultVersion))
		e.ResultVersion = version
		return nil, e
	}
	mr := &MachineResult{Version: version}
	switch rawOK := string(top["ok"]); rawOK {
	case "true":
		mr.OK = true
	case "false":
	case "":
		return nil, resultError(KindInvalidResult, `result has no "ok"`)
	default:
		return nil, resultError(KindInvalidResult, fmt.Sprintf(`"ok" is %s, not a boolean`, shorten(top["ok"])))
	}
	if mr.OK {
		if err := onlyKeys(top, "result", "result_version", "ok", "data"); err != nil {
			return nil, err
		}
		data, ok := top["data"]
		if !ok {
			return nil, resultError(KindInvalidResult, `ok result has no "data"`)
		}
		mr.Data = data
		return mr, nil
	}
	if err := onlyKeys(top, "not-ok result", "result_version", "ok", "error"); err != nil {
		return nil, err
	}
	rawErr, ok := top["error"]
	if !ok {
		return nil, resultError(KindInvalidResult, `not-ok result has no "error"`)
	}
	if rawErr[0] != '{' {
		return nil, resultError(KindInvalidResult, fmt.Sprintf(`"error" is a JSON %s, not an object`, jsonTypeName(rawErr[0])))
	}
	em, err := objectMembers(rawErr, `"error"`)
	if err != nil {
		return nil, err
	}
	if err := onlyKeys(em, `"error"`, "code", "message", "details"); err != nil {
		return nil, err
	}
	eo := &ErrorObject{Details: json.RawMessage("null")}
	if err := stringMember(em, "code", &eo.Code); err != nil {
		return nil, err
	}
	if eo.Code == "" {
		return nil, resultError(KindInvalidResult, `"error.code" is empty`)
	}
	if err := stringMember(em, "message", &eo.Message); err != nil {
		return nil, err
	}
	if d, ok := em["details"]; ok {
		eo.Details = d
	}
	mr.Error = eo
	return mr, nil
}

func resultError(kind Kind, problem string) *Error {
	return &Error{Kind: kind, Problem: problem, ExitCode: -1}
}

// singleValue returns the one JSON value in stdout, or the error for rules 2
// and 3. Every value is syntax-checked before counting, so trailing garbage
// after a good object is invalid_result, not multiple_results.
func singleValue(stdout []byte) (json.RawMessage, error) {
	dec := json.NewDecoder(bytes.NewReader(stdout))
	var first json.RawMessage
	n := 0
	secondAt := int64(0)
	for {
		offset := dec.InputOffset()
		var v json.RawMessage
		err := dec.Decode(&v)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			where := "stdout is not JSON"
			if n > 0 {
				where = "stdout has trailing data after the first JSON value"
			}
			return nil, resultError(KindInvalidResult, fmt.Sprintf("%s: %s", where, describeJSONError(err)))
		}
		if n == 0 {
			first = v
		} else if n == 1 {
			secondAt = offset
		}
		n++
	}
	if n > 1 {
		return nil, resultError(KindMultipleResults, fmt.Sprintf("stdout holds %d JSON values; the contract allows exactly one (the second starts near byte %d)", n, secondAt))
	}
	return first, nil
}

func describeJSONError(err error) string {
	var se *json.SyntaxError
	if errors.As(err, &se) {
		return fmt.Sprintf("%v (at byte %d)", se, se.Offset)
	}
	if errors.Is(err, io.ErrUnexpectedEOF) {
		return "value is cut short (unexpected end of output)"
	}
	return err.Error()
}

// objectMembers splits a JSON object (already syntax-checked) into its
// members, refusing a repeated key: encoding/json would silently keep the
// last one, and two "ok" members are not one result.
func objectMembers(raw json.RawMessage, what string) (map[string]json.RawMessage, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	if _, err := dec.Token(); err != nil { // '{'
		return nil, resultError(KindInvalidResult, fmt.Sprintf("%s: %v", what, err))
	}
	m := map[string]json.RawMessage{}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, resultError(KindInvalidResult, fmt.Sprintf("%s: %v", what, err))
		}
		key, _ := tok.(string)
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return nil, resultError(KindInvalidResult, fmt.Sprintf("%s: member %q: %v", what, key, err))
		}
		if _, dup := m[key]; dup {
			return nil, resultError(KindInvalidResult, fmt.Sprintf("%s repeats the key %q", what, key))
		}
		m[key] = v
	}
	return m, nil
}

func onlyKeys(m map[string]json.RawMessage, what string, allowed ...string) error {
	for k := range m {
		ok := false
		for _, a := range allowed {
			if k == a {
				ok = true
				break
			}
		}
		if !ok {
			return resultError(KindInvalidResult, fmt.Sprintf("%s has the key %q, which the contract does not allow (allowed: %v)", what, k, allowed))
		}
	}
	return nil
}

func stringMember(m map[string]json.RawMessage, key string, dst *string) error {
	raw, ok := m[key]
	if !ok {
		return resultError(KindInvalidResult, fmt.Sprintf(`"error" has no %q`, key))
	}
	if raw[0] != '"' || json.Unmarshal(raw, dst) != nil {
		return resultError(KindInvalidResult, fmt.Sprintf(`"error.%s" is %s, not a string`, key, shorten(raw)))
	}
	return nil
}

func jsonTypeName(first byte) string {
	switch first {
	case '{':
		return "object"
	case '[':
		return "array"
	case '"':
		return "string"
	case 't', 'f':
		return "boolean"
	case 'n':
		return "null"
	}
	return "number"
}

// shorten renders a raw JSON value for a message, cut at 40 bytes.
func shorten(raw json.RawMessage) string {
	if len(raw) > 40 {
		return string(raw[:37]) + "..."
	}
	return string(raw)
}
