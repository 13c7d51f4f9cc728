//go:build unix

package dispatch

import (
	"bytes"
	"context"
	"testing"
)

// Interpret of what a command printed gives exactly what Execute gave for
// the same command: the same data or the same error, in every output mode
// and for an ok exit, another exit and an error object.
func TestInterpretAgreesWithExecute(t *testing.T) {
	tests := []struct {
		name, script string
		output       Output
		okExit       []int
	}{
		{"envelope_ok", `echo '{"result_version":1,"ok":true,"data":{"n":1}}'`, "", nil},
		{"envelope_cli_error", `echo '{"result_version":1,"ok":false,"error":{"code":"bad","message":"no"}}'; exit 3`, "", nil},
		{"envelope_nonzero", `echo oops; echo why >&2; exit 2`, "", nil},
		{"json_ok", `echo '[1,2]'`, OutputJSON, nil},
		{"json_findings_exit", `echo '{"f":1}'; exit 1`, OutputJSON, []int{0, 1}},
		{"json_nonzero", `echo '{"f":1}'; exit 4`, OutputJSON, []int{0, 1}},
		{"json_invalid", `echo 'not json'`, OutputJSON, nil},
		{"text", `printf 'a\nb'; echo err >&2`, OutputText, nil},
		{"jsonl", `echo 1; echo '"x"'`, OutputJSONL, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, err := NewRunner("/bin/sh", &Options{LeadingArgs: []string{"-c"}, Output: tt.output, OKExit: tt.okExit})
			if err != nil {
				t.Fatal(err)
			}
			res, execErr := r.Execute(context.Background(), []string{tt.script})
			data, interpErr := r.Interpret([]string{"-c", tt.script}, res.Stdout, res.Stderr, res.ExitCode, "")
			if !bytes.Equal(data, res.Data) {
				t.Fatalf("data: Interpret %s, Execute %s", data, res.Data)
			}
			if (execErr == nil) != (interpErr == nil) {
				t.Fatalf("errors: Interpret %v, Execute %v", interpErr, execErr)
			}
			if execErr != nil && interpErr.Error() != execErr.Error() {
				t.Fatalf("errors differ:\nInterpret %v\nExecute   %v", interpErr, execErr)
			}
		})
	}
}
