//go:build unix

package dispatch

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
)

// TestParseMachineResult pins the contract's shape, one row per rule, in
// the order ParseMachineResult documents.
func TestParseMachineResult(t *testing.T) {
	tests := []struct {
		name     string
		stdout   string
		wantKind Kind   // "" means a valid result
		wantIn   string // the problem must mention this
	}{
		// 1. absent
		{"empty stdout is absent", "", KindAbsentResult, "no machine result"},
		{"whitespace only is absent", "\n \t\r\n", KindAbsentResult, "no machine result"},
		// 2. not JSON
		{"plain text is invalid", "Done.\n", KindInvalidResult, "not JSON"},
		{"a cut-off object is invalid", `{"result_version":1,"ok":tr`, KindInvalidResult, "not JSON"},
		{"garbage after a good object is invalid, not multiple", `{"result_version":1,"ok":true,"data":1} trailing`, KindInvalidResult, "trailing data"},
		{"an unterminated second object is invalid", `{"result_version":1,"ok":true,"data":1}{`, KindInvalidResult, "trailing data"},
		// 3. multiple
		{"two objects are multiple", `{"result_version":1,"ok":true,"data":1}{"result_version":1,"ok":true,"data":2}`, KindMultipleResults, "2 JSON values"},
		{"an object then a number is multiple", `{"result_version":1,"ok":true,"data":1}` + "\n7\n", KindMultipleResults, "2 JSON values"},
		{"two arrays are multiple", `[1] [2]`, KindMultipleResults, "2 JSON values"},
		// 4. not an object / no version
		{"an array is invalid", `[{"result_version":1}]`, KindInvalidResult, "array, not an object"},
		{"a string is invalid", `"ok"`, KindInvalidResult, "string, not an object"},
		{"null is invalid", `null`, KindInvalidResult, "null, not an object"},
		{"no result_version is invalid", `{"ok":true,"data":1}`, KindInvalidResult, `no "result_version"`},
		{"a string result_version is invalid", `{"result_version":"1","ok":true,"data":1}`, KindInvalidResult, "not an integer"},
		{"a fractional result_version is invalid", `{"result_version":1.5,"ok":true,"data":1}`, KindInvalidResult, "not an integer"},
		{"a repeated key is invalid", `{"result_version":1,"ok":true,"ok":false,"data":1}`, KindInvalidResult, `repeats the key "ok"`},
		{"a number beyond a double is invalid", `{"result_version":1,"ok":true,"data":{"n":-1e999}}`, KindInvalidResult, "not every client can decode"},
		// 5. version
		{"version 0 is unsupported", `{"result_version":0,"ok":true,"data":1}`, KindUnsupportedResultVersion, "result_version 0"},
		{"version 2 is unsupported whatever its shape", `{"result_version":2,"status":"fine"}`, KindUnsupportedResultVersion, "result_version 2"},
		// 6. v1 shape
		{"no ok is invalid", `{"result_version":1,"data":1}`, KindInvalidResult, `no "ok"`},
		{"a string ok is invalid", `{"result_version":1,"ok":"true","data":1}`, KindInvalidResult, "not a boolean"},
		{"ok without data is invalid", `{"result_version":1,"ok":true}`, KindInvalidResult, `no "data"`},
		{"ok with an error member is invalid", `{"result_version":1,"ok":true,"data":1,"error":null}`, KindInvalidResult, `"error"`},
		{"an unknown top-level key is invalid", `{"result_version":1,"ok":true,"data":1,"warnings":[]}`, KindInvalidResult, `"warnings"`},
		{"not ok without error is invalid", `{"result_version":1,"ok":false}`, KindInvalidResult, `no "error"`},
		{"not ok with data is invalid", `{"result_version":1,"ok":false,"data":1,"error":{"code":"x","message":"y"}}`, KindInvalidResult, `"data"`},
		{"a string error is invalid", `{"result_version":1,"ok":false,"error":"boom"}`, KindInvalidResult, "string, not an object"},
		{"an error without code is invalid", `{"result_version":1,"ok":false,"error":{"message":"y"}}`, KindInvalidResult, `no "code"`},
		{"an empty error code is invalid", `{"result_version":1,"ok":false,"error":{"code":"","message":"y"}}`, KindInvalidResult, "empty"},
		{"a numeric error code is invalid", `{"result_version":1,"ok":false,"error":{"code":404,"message":"y"}}`, KindInvalidResult, "not a string"},
		{"an error without message is invalid", `{"result_version":1,"ok":false,"error":{"code":"x"}}`, KindInvalidResult, `no "message"`},
		{"an unknown error key is invalid", `{"result_version":1,"ok":false,"error":{"code":"x","message":"y","hint":"z"}}`, KindInvalidResult, `"hint"`},
		{"a repeated error key is invalid", `{"result_version":1,"ok":false,"error":{"code":"x","code":"z","message":"y"}}`, KindInvalidResult, `repeats the key "code"`},
		// valid
		{"an ok result with null data is valid", `{"result_version":1,"ok":true,"data":null}`, "", ""},
		{"an ok result surrounded by whitespace is valid", "\n  {\"data\":[1,2],\"ok\":true,\"result_version\":1}\n\n", "", ""},
		{"an error with details is valid", `{"result_version":1,"ok":false,"error":{"code":"x","message":"y","details":{"a":[1]}}}`, "", ""},
		{"an error without details is valid (details read as null)", `{"result_version":1,"ok":false,"error":{"code":"x","message":""}}`, "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			mr, err := ParseMachineResult([]byte(tt.stdout))
			if tt.wantKind == "" {
				if err != nil {
					t.Fatalf("ParseMachineResult: %v", err)
				}
				if mr.Version != 1 || (mr.OK) != (mr.Error == nil) || (mr.OK && mr.Data == nil) {
					t.Fatalf("inconsistent result %+v", mr)
				}
				return
			}
			var e *Error
			if !errors.As(err, &e) || e.Kind != tt.wantKind {
				t.Fatalf("error %v; want kind %q", err, tt.wantKind)
			}
			if mr != nil {
				t.Errorf("result %+v returned with an error", mr)
			}
			if !strings.Contains(e.Problem, tt.wantIn) {
				t.Errorf("problem %q lacks %q", e.Problem, tt.wantIn)
			}
			if !strings.HasPrefix(err.Error(), "dispatch: ") {
				t.Errorf("message %q lacks the package prefix", err)
			}
		})
	}
}

func TestParseMachineResultKeepsMembers(t *testing.T) {
	mr, err := ParseMachineResult([]byte(`{"result_version":1,"ok":true,"data":{"big":12345678901234567890,"s":"é"}}`))
	if err != nil {
		t.Fatal(err)
	}
	if string(mr.Data) != `{"big":12345678901234567890,"s":"é"}` {
		t.Errorf("data %s not kept byte for byte", mr.Data)
	}
	mr, err = ParseMachineResult([]byte(`{"result_version":1,"ok":false,"error":{"code":"busy","message":"try later"}}`))
	if err != nil {
		t.Fatal(err)
	}
	if mr.Error.Code != "busy" || mr.Error.Message != "try later" || string(mr.Error.Details) != "null" {
		t.Errorf("error object %+v", mr.Error)
	}
}

// FuzzParseMachineResult: whatever the bytes, ParseMachineResult either
// returns a consistent result or a typed error, never panics, and an
// accepted result re-encodes to a result it accepts again.
func FuzzParseMachineResult(f *testing.F) {
	for _, s := range []string{okResult, errResult, "", "{}", "[]", "{}{}", `{"result_version":1,"ok":true,"data":1} x`, `{"result_version":2}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		mr, err := ParseMachineResult(b)
		if err != nil {
			var e *Error
			if !errors.As(err, &e) || e.Kind == "" || mr != nil {
				t.Fatalf("untyped or inconsistent failure: %v, %+v", err, mr)
			}
			return
		}
		top := map[string]any{"result_version": mr.Version, "ok": mr.OK}
		if mr.OK {
			top["data"] = mr.Data
		} else {
			top["error"] = map[string]any{"code": mr.Error.Code, "message": mr.Error.Message, "details": mr.Error.Details}
		}
		again, err := json.Marshal(top)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := ParseMachineResult(again); err != nil {
			t.Fatalf("re-encoded result %s refused: %v", again, err)
		}
	})
}
