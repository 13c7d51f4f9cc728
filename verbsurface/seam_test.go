package verbsurface_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/verbsurface/verbsurface/projector"
	"github.com/verbsurface/verbsurface/verbsurface"
)

// TestNoMachineResultSeamIsUnavailable: a verb is
// reachable only if its command emits a machine result. A command that does
// not accept the machine-mode flag (neither as a parameter nor as a flag its
// walker excluded) cannot, so it is listed as unavailable with that reason,
// and an op naming it is refused before anything runs.
func TestNoMachineResultSeamIsUnavailable(t *testing.T) {
	tree := &projector.Tree{Program: "jobs", Dialect: projector.DialectPflag, Commands: []*projector.Command{
		{Path: []string{}, Params: []*projector.Param{}},
		{Path: []string{"status"}, Runnable: true, Excluded: []string{"--json"}, Params: []*projector.Param{}},
		{Path: []string{"legacy"}, Runnable: true, Params: []*projector.Param{}},
		{Path: []string{"argparse-style"}, Runnable: true, Params: []*projector.Param{
			{Name: "json", Options: []string{"--json"}, Kind: projector.KindBoolean, Arity: projector.ArityNone, FlagValue: true, Action: "store_true"},
		}},
	}}
	reg, err := verbsurface.NewRegistry(nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, v := range []verbsurface.Verb{
		{Name: "job.status", Class: verbsurface.ClassObserve, Path: []string{"status"}, Summary: "status"},
		{Name: "job.legacy", Class: verbsurface.ClassObserve, Path: []string{"legacy"}, Summary: "human output only"},
		{Name: "job.py", Class: verbsurface.ClassObserve, Path: []string{"argparse-style"}, Summary: "flag as a parameter"},
	} {
		if err := reg.Register(v); err != nil {
			t.Fatal(err)
		}
	}
	ran := 0
	s, err := verbsurface.New(reg, &verbsurface.Options{
		Source:  verbsurface.StaticTree(tree),
		Machine: verbsurface.Machine{Args: []string{"--json"}},
		Runner: verbsurface.RunnerFunc(func(_ context.Context, argv []string) (json.RawMessage, error) {
			ran++
			return json.RawMessage(`{}`), nil
		}),
	})
	if err != nil {
		t.Fatal(err)
	}

	resp := s.Handle(context.Background(), json.RawMessage(`{"help": true}`), nil)
	b, _ := json.Marshal(resp)
	var got struct {
		Help struct {
			Verbs       []string
			Unavailable []struct{ Verb, Reason string }
		}
	}
	if err := json.Unmarshal(b, &got); err != nil {
		t.Fatal(err)
	}
	if len(got.Help.Unavailable) != 1 || got.Help.Unavailable[0].Verb != "job.legacy" ||
		!strings.Contains(got.Help.Unavailable[0].Reason, "no machine-result seam") {
		t.Fatalf("unavailable = %+v, want job.legacy with the machine-result seam reason\n%s", got.Help.Unavailable, b)
	}
	if len(got.Help.Verbs) != 2 {
		t.Fatalf("catalog verbs = %q, want job.status and job.py", got.Help.Verbs)
	}

	resp = s.Handle(context.Background(), json.RawMessage(`{"ops": [{"op": "job.legacy", "args": {}}, {"op": "job.py", "args": {}}]}`), nil)
	if r := resp.Results[0]; r.OK || r.Error == nil || r.Error.Code != verbsurface.CodeUnavailableVerb {
		t.Fatalf("job.legacy op = %+v, want unavailable_verb", r)
	}
	if !resp.Results[1].OK || ran != 1 {
		t.Fatalf("job.py op = %+v (ran %d), want it run once: the flag as a parameter is a seam", resp.Results[1], ran)
	}

	// The machine flag is the surface's channel, never a caller's
	// parameter: it is absent from the schema and refused in args.
	resp = s.Handle(context.Background(), json.RawMessage(`{"help": "job.py"}`), nil)
	if h, ok := resp.Help.(*verbsurface.VerbHelp); !ok || h.Schema == nil || h.Schema.Properties["json"] != nil {
		t.Errorf("help for job.py offers the machine flag: %s", resp.JSON())
	}
	resp = s.Handle(context.Background(), json.RawMessage(`{"ops": [{"op": "job.py", "args": {"json": false}}]}`), nil)
	if r := resp.Results[0]; r.OK || r.Error.Code != verbsurface.CodeInvalidArgs || r.Error.Problems[0].Param != "json" ||
		r.Error.Problems[0].Rule != verbsurface.RuleUnknownParameter {
		t.Errorf("job.py with the machine flag as an arg = %s, want invalid_args unknown_parameter json", resp.JSON())
	}
	if ran != 1 {
		t.Errorf("ran %d times, want still 1", ran)
	}
}
