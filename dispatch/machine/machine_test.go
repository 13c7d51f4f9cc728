//go:build unix

package machine_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"testing"

	"github.com/spf13/cobra"
	"github.com/verbsurface/verbsurface/dispatch"
	"github.com/verbsurface/verbsurface/dispatch/machine"
)

// parse reads what was written as dispatch.Runner reads it: exactly one
// valid machine result, one line.
func parse(t *testing.T, out []byte) *dispatch.MachineResult {
	t.Helper()
	if bytes.Count(out, []byte("\n")) != 1 {
		t.Fatalf("not one line: %q", out)
	}
	r, err := dispatch.ParseMachineResult(out)
	if err != nil {
		t.Fatalf("dispatch refuses %q: %v", out, err)
	}
	return r
}

func TestWriteShapesReadByDispatch(t *testing.T) {
	var b bytes.Buffer
	if err := machine.WriteOK(&b, map[string]any{"id": "n1", "text": "<a>"}); err != nil {
		t.Fatal(err)
	}
	r := parse(t, b.Bytes())
	if !r.OK || r.Version != 1 || string(r.Data) != `{"id":"n1","text":"<a>"}` {
		t.Errorf("ok: %+v %s", r, r.Data)
	}
	b.Reset()
	machine.WriteOK(&b, nil)
	if r := parse(t, b.Bytes()); string(r.Data) != "{}" {
		t.Errorf("nil data: %s", r.Data)
	}
	b.Reset()
	machine.WriteError(&b, machine.Errorf("unknown_id", map[string]any{"id": "x"}, "no note %s", "x"))
	if r := parse(t, b.Bytes()); r.OK || r.Error.Code != "unknown_id" || string(r.Error.Details) != `{"id":"x"}` {
		t.Errorf("error: %+v", r.Error)
	}
	b.Reset()
	machine.WriteError(&b, errors.New("disk full"))
	if r := parse(t, b.Bytes()); r.Error.Code != machine.CodeInternal || r.Error.Message != "disk full" {
		t.Errorf("plain error: %+v", r.Error)
	}
}

// newCLI is a small cobra CLI in the usual shape: a persistent --json.
func newCLI(runErr error) *cobra.Command {
	root := &cobra.Command{Use: "notes"}
	root.PersistentFlags().Bool("json", false, "machine result")
	add := &cobra.Command{Use: "add TEXT", Args: cobra.ExactArgs(1), RunE: func(c *cobra.Command, a []string) error {
		if runErr != nil {
			return runErr
		}
		return machine.WriteOK(c.OutOrStdout(), map[string]any{"text": a[0]})
	}}
	add.Flags().Int("priority", 0, "priority")
	root.AddCommand(add)
	machine.MarkUsageErrors(root)
	return root
}

func TestExecuteUsageErrorsAsMachineResults(t *testing.T) {
	tests := []struct {
		name     string
		args     []string
		status   int
		code     string
		argument string
	}{
		{"bad flag value", []string{"add", "--json", "--priority", "high", "x"}, 2, "usage_error", "priority"},
		{"unknown flag", []string{"add", "--json", "--nope", "x"}, 2, "usage_error", ""},
		{"wrong arg count", []string{"add", "--json"}, 2, "usage_error", ""},
		{"unknown command", []string{"--json", "frobnicate"}, 2, "usage_error", ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var out, errOut bytes.Buffer
			root := newCLI(nil)
			root.SetOut(&out)
			root.SetErr(&errOut)
			if st := machine.Execute(root, tc.args, &out, "json"); st != tc.status {
				t.Errorf("status %d, want %d", st, tc.status)
			}
			r := parse(t, out.Bytes())
			if r.OK || r.Error.Code != tc.code {
				t.Fatalf("%+v", r.Error)
			}
			var d map[string]any
			json.Unmarshal(r.Error.Details, &d)
			if d["command"] == nil || (tc.argument != "" && d["argument"] != tc.argument) {
				t.Errorf("details %s", r.Error.Details)
			}
		})
	}
	// Without the machine flag: nothing on stdout, cobra's message on stderr.
	var out, errOut bytes.Buffer
	root := newCLI(nil)
	root.SetOut(&out)
	root.SetErr(&errOut)
	if st := machine.Execute(root, []string{"add", "--priority", "high", "x"}, &out, "json"); st != 2 || out.Len() != 0 || errOut.Len() == 0 {
		t.Errorf("human mode: status %d stdout %q stderr %q", st, out.String(), errOut.String())
	}
	// A RunE error keeps its code and exits 1.
	out.Reset()
	root = newCLI(machine.Errorf("store_busy", nil, "locked"))
	root.SetOut(&out)
	if st := machine.Execute(root, []string{"add", "--json", "x"}, &out, "json"); st != 1 || parse(t, out.Bytes()).Error.Code != "store_busy" {
		t.Errorf("run error: status %d %q", st, out.String())
	}
	out.Reset()
	root = newCLI(nil)
	root.SetOut(&out)
	if st := machine.Execute(root, []string{"add", "--json", "x"}, &out, "json"); st != 0 || !parse(t, out.Bytes()).OK {
		t.Errorf("success: %d %q", st, out.String())
	}
}
