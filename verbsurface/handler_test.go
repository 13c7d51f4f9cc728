package verbsurface_test

import (
	"context"
	"encoding/json"
	"errors"
	"testing"

	"github.com/verbsurface/verbsurface/projector"
	"github.com/verbsurface/verbsurface/verbsurface"
)

// graceError is a handler's refusal of one argument the schema admits.
type graceError struct{}

func (graceError) Error() string { return "grace must be positive" }
func (graceError) Param() string { return "grace" }

// TestHandlerArgumentRefusalTeaches: when a verb's Go handler
// refuses an argument the projected schema could not rule out, the op
// error is invalid_args on that parameter and carries what every argument
// error carries: the schema, the current fingerprint and the help call. A
// handler error about nothing in particular stays handler_error.
func TestHandlerArgumentRefusalTeaches(t *testing.T) {
	tree := &projector.Tree{Program: "jobs", Dialect: projector.DialectPflag, Commands: []*projector.Command{
		{Path: []string{}, Params: []*projector.Param{}},
		{Path: []string{"kill"}, Runnable: true, Excluded: []string{"--json"}, Params: []*projector.Param{
			{Name: "id", Kind: projector.KindString, Arity: projector.ArityOne, Required: true, Action: "cobra:positional"},
			{Name: "grace", Options: []string{"--grace"}, Kind: projector.KindString, Arity: projector.ArityOne, Action: "pflag:duration", Type: "duration"},
		}},
	}}
	reg, err := verbsurface.NewRegistry(nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := reg.Register(verbsurface.Verb{Name: "job.kill", Class: verbsurface.ClassControl, Path: []string{"kill"}, Summary: "stop a run",
		Handler: func(_ context.Context, call *verbsurface.Call) (any, error) {
			switch call.Args["grace"] {
			case "0s":
				return nil, graceError{}
			case "9s":
				return nil, errors.New("the lifecycle store is unreachable")
			}
			return map[string]any{"killed": call.Args["id"]}, nil
		}}); err != nil {
		t.Fatal(err)
	}
	s, err := verbsurface.New(reg, &verbsurface.Options{Source: verbsurface.StaticTree(tree), Machine: verbsurface.Machine{Args: []string{"--json"}}})
	if err != nil {
		t.Fatal(err)
	}
	run := func(grace string) *verbsurface.OpResult {
		t.Helper()
		req, _ := json.Marshal(map[string]any{"ops": []any{map[string]any{"op": "job.kill", "args": map[string]any{"id": "abc", "grace": grace}}}})
		return s.Handle(context.Background(), req, nil).Results[0]
	}

	r := run("0s")
	if r.OK || r.Error == nil || r.Error.Code != verbsurface.CodeInvalidArgs {
		t.Fatalf("grace 0s: %+v; want invalid_args", r)
	}
	e := r.Error
	if len(e.Problems) != 1 || e.Problems[0].Param != "grace" || e.Problems[0].Rule != verbsurface.RuleHandler ||
		e.Schema == nil || e.SchemaFingerprint == "" || e.HelpCall == nil {
		b, _ := json.Marshal(e)
		t.Fatalf("grace 0s error = %s; want one problem on grace (rule handler) with schema, fingerprint and help_call", b)
	}

	if r := run("9s"); r.OK || r.Error.Code != verbsurface.CodeHandlerError || r.Error.Schema != nil {
		b, _ := json.Marshal(r)
		t.Fatalf("a handler failure not about an argument = %s; want handler_error without a schema", b)
	}
	if r := run("2s"); !r.OK {
		b, _ := json.Marshal(r)
		t.Fatalf("grace 2s = %s; want ok", b)
	}
}
