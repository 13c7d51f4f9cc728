//go:build unix

package verbsurface

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/verbsurface/verbsurface/projector"
)

// runTree is a one-command CLI: "run" with a string option --name, an
// integer --count, a number --ratio and a repeated integer --id.
func runTree() *projector.Tree {
	return &projector.Tree{Program: "tiny", Dialect: projector.DialectPflag, Commands: []*projector.Command{
		{Path: []string{}, Params: []*projector.Param{}},
		{Path: []string{"run"}, Summary: "run it", Runnable: true, Params: []*projector.Param{
			{Name: "name", Options: []string{"--name"}, Kind: projector.KindString, Arity: projector.ArityOne, Action: "pflag:string", Type: "string"},
			{Name: "count", Options: []string{"--count"}, Kind: projector.KindInteger, Arity: projector.ArityOne, Action: "pflag:int", Type: "int"},
			{Name: "ratio", Options: []string{"--ratio"}, Kind: projector.KindNumber, Arity: projector.ArityOne, Action: "pflag:float64", Type: "float64"},
			{Name: "id", Options: []string{"--id"}, Kind: projector.KindInteger, Arity: projector.ArityRepeated, Action: "pflag:intSlice", Type: "intSlice"},
		}},
	}}
}

// runRecorder is a runner that records every argv and answers with
// answer(argv).
type runRecorder struct {
	mu     sync.Mutex
	argvs  [][]string
	answer func(argv []string) json.RawMessage
}

func (r *runRecorder) Run(_ context.Context, argv []string) (json.RawMessage, error) {
	r.mu.Lock()
	r.argvs = append(r.argvs, slices.Clone(argv))
	r.mu.Unlock()
	if r.answer != nil {
		return r.answer(argv), nil
	}
	return json.RawMessage(`{"ran":true}`), nil
}

// runSurface registers v (its Path set to "run") over runTree.
func runSurface(t *testing.T, v Verb, opts Options) *Surface {
	t.Helper()
	reg, err := NewRegistry(nil)
	if err != nil {
		t.Fatal(err)
	}
	v.Path = []string{"run"}
	if v.Class == "" {
		v.Class = ClassObserve
	}
	if err := reg.Register(v); err != nil {
		t.Fatal(err)
	}
	opts.Source = StaticTree(runTree())
	s, err := New(reg, &opts)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// TestPreparerInfoNeverOverwritesTheResult: info keys that would collide
// with the op result's own members are dropped; the others are merged.
func TestPreparerInfoNeverOverwritesTheResult(t *testing.T) {
	s := runSurface(t, Verb{Name: "tiny.run", Prepare: func(_ context.Context, args map[string]any) (map[string]any, map[string]any, func(), error) {
		return args, map[string]any{"ok": false, "op": "x", "class": "x", "result": "x", "error": "x",
			"playbook_changed": "x", "playbook_fingerprint": "x", "prompt_bytes": 3}, nil, nil
	}}, Options{Runner: &runRecorder{}})
	resp := s.Handle(context.Background(), json.RawMessage(`{"ops":[{"op":"tiny.run","args":{"name":"a"}}]}`), nil)
	want := `{"status":"success","results":[{"ok":true,"op":"tiny.run","class":"observe","result":{"ran":true},"prompt_bytes":3}]}`
	if got := string(resp.JSON()); got != want {
		t.Errorf("response\n got %s\nwant %s", got, want)
	}
}

// TestOneOpsBadOutputFailsOnlyThatOp: a runner's data that is not JSON,
// or preparer info that cannot be encoded, fails that op alone; the other
// ops' results still reach the caller, and the request is not an error.
func TestOneOpsBadOutputFailsOnlyThatOp(t *testing.T) {
	exec := &runRecorder{answer: func(argv []string) json.RawMessage {
		if slices.Contains(argv, "--name=garbled") {
			return json.RawMessage(`{"half":`)
		}
		return json.RawMessage(`{"ran":true}`)
	}}
	s := runSurface(t, Verb{Name: "tiny.run", Prepare: func(_ context.Context, args map[string]any) (map[string]any, map[string]any, func(), error) {
		if args["name"] == "unencodable" {
			return args, map[string]any{"f": func() {}}, nil, nil
		}
		return args, nil, nil, nil
	}}, Options{Runner: exec})
	resp := s.Handle(context.Background(), json.RawMessage(`{"ops":[
		{"op":"tiny.run","args":{"name":"garbled"}},
		{"op":"tiny.run","args":{"name":"unencodable"}},
		{"op":"tiny.run","args":{"name":"fine"}}]}`), nil)
	var got struct {
		Status  string
		Results []struct {
			OK     bool
			Result json.RawMessage
			Error  *ErrorObject
		}
	}
	if err := json.Unmarshal(resp.JSON(), &got); err != nil {
		t.Fatal(err)
	}
	if got.Status != StatusPartial || resp.IsError() || len(got.Results) != 3 {
		t.Fatalf("response %s", resp.JSON())
	}
	if e := got.Results[0].Error; e == nil || e.Code != CodeInvalidResult || !strings.Contains(e.Message, `"tiny.run"`) {
		t.Errorf("garbled data: %+v", got.Results[0])
	}
	if e := got.Results[1].Error; e == nil || e.Code != CodeInternalError || !strings.Contains(e.Message, "nothing ran") {
		t.Errorf("unencodable info: %+v", got.Results[1])
	}
	if !got.Results[2].OK || string(got.Results[2].Result) != `{"ran":true}` {
		t.Errorf("the good op: %+v", got.Results[2])
	}
	// The unencodable op was refused before it ran.
	want := [][]string{{"run", "--name=garbled"}, {"run", "--name=fine"}}
	if diff := cmp.Diff(want, exec.argvs); diff != "" {
		t.Errorf("commands run (-want +got):\n%s", diff)
	}
}

// TestHandlersReceiveNormalisedArgs: a handler sees integers as int64 and
// numbers as float64 (never json.Number), however the JSON spelled them.
func TestHandlersReceiveNormalisedArgs(t *testing.T) {
	var seen map[string]any
	s := runSurface(t, Verb{Name: "tiny.run", Handler: func(_ context.Context, call *Call) (any, error) {
		seen = call.Args
		return "ok", nil
	}}, Options{})
	resp := s.Handle(context.Background(), json.RawMessage(`{"ops":[{"op":"tiny.run","args":{"name":"n","count":3.0,"ratio":1,"id":[1e1,2.0,-0]}}]}`), nil)
	if resp.Status != StatusSuccess {
		t.Fatalf("response %s", resp.JSON())
	}
	want := map[string]any{"name": "n", "count": int64(3), "ratio": float64(1), "id": []any{int64(10), int64(2), int64(0)}}
	if diff := cmp.Diff(want, seen); diff != "" {
		t.Errorf("handler args (-want +got):\n%s", diff)
	}
}

// TestPolicyCannotChangeWhatRuns: a policy that writes to op.Args (which
// it must not) changes nothing: what runs was validated and copied before
// the policy saw it.
func TestPolicyCannotChangeWhatRuns(t *testing.T) {
	exec := &runRecorder{}
	s := runSurface(t, Verb{Name: "tiny.run"}, Options{Runner: exec, Policy: func(_ context.Context, op PolicyOp) error {
		op.Args["name"] = "--all"
		op.Args["extra_args"] = []any{"--force"}
		op.Args["id"].([]any)[0] = "--x"
		return nil
	}})
	resp := s.Handle(context.Background(), json.RawMessage(`{"ops":[{"op":"tiny.run","args":{"name":"safe","id":[7]}}]}`), nil)
	if resp.Status != StatusSuccess {
		t.Fatalf("response %s", resp.JSON())
	}
	if diff := cmp.Diff([][]string{{"run", "--name=safe", "--id=7"}}, exec.argvs); diff != "" {
		t.Errorf("commands run (-want +got):\n%s", diff)
	}
}

func TestStatusCountsEveryPart(t *testing.T) {
	fx := newFixture(t)
	fp := fx.fingerprint(t, "agent.submit")
	for _, tc := range []struct {
		name, request, want string
	}{
		{"every op succeeded", `{"ops":[{"op":"job.list"}]}`, StatusSuccess},
		{"ops and help succeeded", `{"ops":[{"op":"job.list"}],"help":true}`, StatusSuccess},
		{"one op failed, one succeeded", `{"ops":[{"op":"job.list"},{"op":"nope"}]}`, StatusPartial},
		{"the op succeeded, the help failed", `{"ops":[{"op":"job.list"}],"help":"nope"}`, StatusPartial},
		{"the op failed, the help succeeded", `{"ops":[{"op":"nope"}],"help":true}`, StatusPartial},
		{"the only op failed", `{"ops":[{"op":"nope"}]}`, StatusError},
		{"a spawn without its fingerprint", `{"ops":[{"op":"agent.submit","args":{"model":"m","prompt":"p"}}]}`, StatusError},
		{"a fenced verb", `{"ops":[{"op":"state.migrate"}]}`, StatusError},
		{"the only help failed", `{"help":"nope"}`, StatusError},
		{"help of a fenced verb", `{"help":"state.migrate"}`, StatusError},
		{"every op and the help failed", `{"ops":[{"op":"nope"},{"op":"agent.submit","args":{}}],"help":"nope"}`, StatusError},
		{"a spawn with its fingerprint", `{"ops":[{"op":"agent.submit","fingerprint":` + quote(fp) + `,"args":{"model":"m","prompt":"p"}}]}`, StatusSuccess},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := fx.do(t, tc.request)["status"]; got != tc.want {
				t.Errorf("status %v, want %v", got, tc.want)
			}
		})
	}
}
