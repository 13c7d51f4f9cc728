package verbsurface

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"runtime"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/verbsurface/verbsurface/projector"
)

// largeSurface registers n verbs over a synthetic tree; every seventh verb
// names a command the tree lacks, every eleventh a command with an
// unrepresentable parameter.
func largeSurface(t testing.TB, n int) *Surface {
	tree := &projector.Tree{Program: "big", Dialect: projector.DialectPflag, Commands: []*projector.Command{{Path: []string{}}}}
	reg, err := NewRegistry(nil)
	if err != nil {
		t.Fatal(err)
	}
	for i := range n {
		name := fmt.Sprintf("c%04d", i)
		cmd := &projector.Command{Path: []string{name}, Runnable: true, Params: []*projector.Param{
			{Name: "id", Kind: projector.KindString, Arity: projector.ArityOne, Required: true, Action: "cobra:positional"},
			{Name: "count", Options: []string{"--count"}, Kind: projector.KindInteger, Arity: projector.ArityOne, Action: "pflag:int"},
		}}
		if i%11 == 0 {
			cmd.Params[1].Unrepresentable = &projector.Unrepresentable{Action: "pflag:ipNet", Reason: "not a scalar"}
		}
		if i%7 != 0 {
			tree.Commands = append(tree.Commands, cmd)
		}
		if err := reg.Register(Verb{Name: "big." + name, Class: ClassObserve, Path: []string{name}}); err != nil {
			t.Fatal(err)
		}
	}
	s, err := New(reg, &Options{Source: StaticTree(tree), Runner: RunnerFunc(func(context.Context, []string) (json.RawMessage, error) { return nil, nil })})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// TestCheckInParallelMatchesOneByOne: a registry large enough to be
// checked on every CPU reports exactly what checking one verb after the
// other reports, in registration order, and leaves every projection
// cached. Run with -race (and on one CPU, where it takes the sequential
// path, the same answer).
func TestCheckInParallelMatchesOneByOne(t *testing.T) {
	const n = 40 * checkChunk
	parallel := largeSurface(t, n)
	if runtime.GOMAXPROCS(0) < 2 {
		t.Log("one CPU: the parallel path is not taken here")
	}
	got := parallel.Check(context.Background())
	one := largeSurface(t, n)
	var want []Unoffered
	for _, v := range one.reg.snapshot() {
		if p := one.project(context.Background(), &requestState{}, v); !p.ok() {
			eo := one.unofferedError(v, p)
			want = append(want, Unoffered{Verb: v.Name, Code: eo.Code, Param: eo.Param, Reason: eo.Message})
		}
	}
	if len(want) == 0 {
		t.Fatal("the fixture has no unoffered verbs")
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Check (-one by one +parallel):\n%s", diff)
	}
	for _, v := range parallel.reg.snapshot() {
		if parallel.cache.lastProjection(v.Name) == nil && v.Path[0][1:] != "" && parallel.opts.Source != nil {
			if tree, _ := parallel.opts.Source(context.Background()); tree.Find(v.Path...) != nil {
				t.Fatalf("%s: no projection cached after Check", v.Name)
			}
		}
	}
}

// BenchmarkCheck5000 checks a fresh 5,000-verb surface: what a server over
// a CLI that size does at start.
func BenchmarkCheck5000(b *testing.B) {
	for b.Loop() {
		b.StopTimer()
		s := largeSurface(b, 5000)
		b.StartTimer()
		s.Check(context.Background())
	}
}

// Check projects every verb but fingerprints none (a 5,000-verb server
// needs no fingerprint to start); the first help computes it, equal to the
// fingerprint of the verb's projected schema, and later ones reuse it.
func TestCheckTakesNoFingerprint(t *testing.T) {
	s := largeSurface(t, 20)
	s.Check(context.Background())
	p := s.cache.lastProjection("big.c0001")
	if p == nil || !p.ok() {
		t.Fatalf("big.c0001 not projected: %+v", p)
	}
	if p.fp.v != "" {
		t.Fatal("Check computed a fingerprint")
	}
	h, ok := s.help(context.Background(), &requestState{}, &helpRequest{verb: "big.c0001"})
	if !ok {
		t.Fatalf("help: %+v", h)
	}
	schema, err := projector.Project(p.cmd)
	if err != nil {
		t.Fatal(err)
	}
	want, err := projector.Fingerprint("big.c0001", schema)
	if err != nil {
		t.Fatal(err)
	}
	if got := h.(*VerbHelp).SchemaFingerprint; got != want || p.fp.v != want {
		t.Fatalf("help's fingerprint %s, cached %s; the schema's is %s", got, p.fp.v, want)
	}
}

// TestCheckCompilesNoValidator: Check leaves a verb's validator to its
// first op, which compiles it once (later ops reuse it) and still
// validates closed; a validator that cannot be compiled is the op's
// internal_error, and the command does not run.
func TestCheckCompilesNoValidator(t *testing.T) {
	ran := 0
	s := largeSurface(t, 20)
	s.opts.Runner = RunnerFunc(func(context.Context, []string) (json.RawMessage, error) {
		ran++
		return json.RawMessage(`{}`), nil
	})
	s.Check(context.Background())
	p := s.cache.lastProjection("big.c0001")
	if p == nil || !p.ok() {
		t.Fatalf("big.c0001 not projected: %+v", p)
	}
	if p.val.v != nil || p.val.err != nil {
		t.Fatal("Check compiled a validator")
	}
	op := func(verb, args string) *Response {
		return s.Handle(context.Background(), json.RawMessage(`{"ops":[{"op":"`+verb+`","args":`+args+`}]}`), nil)
	}
	if resp := op("big.c0001", `{"id":"x","count":2}`); resp.Status != StatusSuccess {
		t.Fatalf("first op: %s", resp.JSON())
	}
	compiled := p.val.v
	if compiled == nil {
		t.Fatal("the first op compiled no validator")
	}
	if resp := op("big.c0001", `{"id":"x","colour":"red"}`); resp.Status == StatusSuccess || !strings.Contains(string(resp.JSON()), CodeInvalidArgs) {
		t.Fatalf("an unknown parameter after the first op: %s", resp.JSON())
	}
	if p.val.v != compiled {
		t.Fatal("the second op compiled the validator again")
	}

	// A projection whose validator fails to compile (a projector bug no
	// schema the projector writes can cause, so it is planted).
	q := s.cache.lastProjection("big.c0002")
	q.val.once.Do(func() { q.val.err = errors.New("verbsurface: verb \"big.c0002\": planted compile failure") })
	before := ran
	resp := op("big.c0002", `{"id":"x"}`)
	if resp.Status == StatusSuccess || !strings.Contains(string(resp.JSON()), CodeInternalError) || !strings.Contains(string(resp.JSON()), "planted compile failure") {
		t.Fatalf("an op on a verb whose validator cannot compile: %s", resp.JSON())
	}
	if ran != before {
		t.Fatal("the command ran without a validator")
	}
}
