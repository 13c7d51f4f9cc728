//go:build unix

package verbsurface

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/verbsurface/verbsurface/projector"
	"github.com/verbsurface/verbsurface/verbsurface/internal/testcli"
)

// twentyParamSchema and twentyParamArgs: a 20-parameter verb with every
// parameter given (the validator's worst ordinary case).
func twentyParamSchema(b testing.TB) (*Validator, map[string]any) {
	var props, args []string
	for i := range 20 {
		name := fmt.Sprintf("p%02d", i)
		switch i % 5 {
		case 0:
			props = append(props, fmt.Sprintf(`%q:{"type":"string","pattern":"^[^\\x00]*$"}`, name))
			args = append(args, fmt.Sprintf(`%q:"value %d"`, name, i))
		case 1:
			props = append(props, fmt.Sprintf(`%q:{"type":"integer","minimum":-9007199254740991,"maximum":9007199254740991}`, name))
			args = append(args, fmt.Sprintf(`%q:%d`, name, i*1000))
		case 2:
			props = append(props, fmt.Sprintf(`%q:{"type":"boolean"}`, name))
			args = append(args, fmt.Sprintf(`%q:true`, name))
		case 3:
			props = append(props, fmt.Sprintf(`%q:{"type":"string","enum":["a","b","c","d"]}`, name))
			args = append(args, fmt.Sprintf(`%q:"c"`, name))
		case 4:
			props = append(props, fmt.Sprintf(`%q:{"type":"array","items":{"type":"string","pattern":"^[^\\x00\\r]*$"},"minItems":1}`, name))
			args = append(args, fmt.Sprintf(`%q:["x","y","z"]`, name))
		}
	}
	schema := mustSchema(b, `{"type":"object","properties":{`+strings.Join(props, ",")+`},"required":["p00","p01"],"additionalProperties":false,`+
		`"allOf":[{"not":{"required":["p02","p07"]}},{"anyOf":[{"required":["p00"]},{"required":["p05"]}]}]}`, nil)
	v, err := CompileValidator(schema)
	if err != nil {
		b.Fatal(err)
	}
	return v, decodeArgs(b, "{"+strings.Join(args, ",")+"}")
}

func BenchmarkValidate20Params(b *testing.B) {
	v, args := twentyParamSchema(b)
	delete(args, "p07") // keep the exclusive pair satisfied
	if ps := v.Validate(args); ps != nil {
		b.Fatal(ps)
	}
	b.ReportAllocs()
	for b.Loop() {
		if v.Validate(args) != nil {
			b.Fatal("invalid")
		}
	}
}

// sixtyVerbSurface is a 60-verb surface over a static synthetic tree whose
// commands have eight parameters each.
func sixtyVerbSurface(b testing.TB) *Surface {
	tree := &projector.Tree{Program: "big", Dialect: projector.DialectPflag}
	tree.Commands = append(tree.Commands, &projector.Command{Path: []string{}, Params: []*projector.Param{}})
	reg, err := NewRegistry(nil)
	if err != nil {
		b.Fatal(err)
	}
	for i := range 60 {
		name := fmt.Sprintf("cmd%02d", i)
		cmd := &projector.Command{Path: []string{name}, Runnable: true, Summary: "do the thing number " + name, Params: []*projector.Param{
			{Name: "id", Kind: projector.KindString, Arity: projector.ArityOne, Required: true, Action: "cobra:positional"},
		}}
		for j := range 7 {
			cmd.Params = append(cmd.Params, &projector.Param{Name: fmt.Sprintf("opt_%d", j), Options: []string{fmt.Sprintf("--opt-%d", j)},
				Kind: projector.KindInteger, Arity: projector.ArityOne, Action: "pflag:int", Type: "int", Help: "an option"})
		}
		tree.Commands = append(tree.Commands, cmd)
		if err := reg.Register(Verb{Name: "big." + name, Class: ClassObserve, Path: []string{name}, Summary: cmd.Summary}); err != nil {
			b.Fatal(err)
		}
	}
	s, err := New(reg, &Options{Source: StaticTree(tree), Runner: RunnerFunc(func(context.Context, []string) (json.RawMessage, error) {
		return json.RawMessage(`{}`), nil
	})})
	if err != nil {
		b.Fatal(err)
	}
	return s
}

func BenchmarkCatalog60Verbs(b *testing.B) {
	s := sixtyVerbSurface(b)
	req := json.RawMessage(`{"help":true}`)
	warm := s.Handle(context.Background(), req, nil) // projection warm
	if n := len(warm.Help.(*Catalog).Verbs); n != 60 {
		b.Fatalf("%d verbs in the catalog", n)
	}
	b.ReportAllocs()
	for b.Loop() {
		resp := s.Handle(context.Background(), req, nil)
		_ = resp.JSON() // the bytes the binding sends
	}
}

// opOverheadSurface is the fixture's surface over its tree walked once,
// with an in-process runner that answers at once: what remains is the
// surface's own cost per op (envelope, resolve, projection lookup,
// validation, policy, fingerprint, normalisation, rendering, response).
func opOverheadSurface(b *testing.B, live bool) (*Surface, json.RawMessage) {
	env := testcli.Env{}
	tree, err := testcli.Tree(env)
	if err != nil {
		b.Fatal(err)
	}
	src := StaticTree(tree)
	if live {
		src = func(context.Context) (*projector.Tree, error) { return testcli.Tree(env) }
	}
	reg, _ := NewRegistry(nil)
	if err := reg.Register(Verb{Name: "agent.submit", Class: ClassSpawn, Path: []string{"agent", "submit"}, Summary: "start one agent run"}); err != nil {
		b.Fatal(err)
	}
	canned := json.RawMessage(`{"job_id":"j-1"}`)
	// The response cap and the in-flight slots keep their defaults (their
	// cost is part of every op); the spawn rate is off, or every op past
	// the 60th would measure the refusal instead.
	s, err := New(reg, &Options{Source: src, Machine: Machine{Args: []string{"--json"}}, Policy: benchPolicy, SpawnsPerMinute: -1,
		Runner: RunnerFunc(func(_ context.Context, argv []string) (json.RawMessage, error) { return canned, nil })})
	if err != nil {
		b.Fatal(err)
	}
	h := s.Handle(context.Background(), json.RawMessage(`{"help":"agent.submit"}`), nil).Help.(*VerbHelp)
	req := json.RawMessage(`{"ops":[{"op":"agent.submit","fingerprint":"` + h.SchemaFingerprint + `","args":{` +
		`"model":"m","prompt":"review the diff","max_turns":12,"temperature":0.2,"tag":["a","b"],"timeout":"30m","dry_run":true}}]}`)
	if resp := s.Handle(context.Background(), req, nil); resp.Status != StatusSuccess {
		b.Fatalf("%s", resp.JSON())
	}
	return s, req
}

// benchPolicy is a trivial payload-aware policy, so the
// benchmark pays for the policy call too.
func benchPolicy(_ context.Context, op PolicyOp) error {
	if op.Class == ClassControl {
		return errorString("no control")
	}
	return nil
}

func BenchmarkOpOverhead(b *testing.B) {
	s, req := opOverheadSurface(b, false)
	b.ReportAllocs()
	for b.Loop() {
		_ = s.Handle(context.Background(), req, nil).JSON()
	}
}

// BenchmarkOpOverheadLiveWalk is BenchmarkOpOverhead with the cobra tree
// walked on every request (a TreeSource that does not cache), for scale.
func BenchmarkOpOverheadLiveWalk(b *testing.B) {
	s, req := opOverheadSurface(b, true)
	b.ReportAllocs()
	for b.Loop() {
		_ = s.Handle(context.Background(), req, nil).JSON()
	}
}

// BenchmarkDispatchedOp runs job.list end to end through the surface and a
// real dispatch.Runner subprocess of the fixture CLI, for scale against
// BenchmarkOpOverhead.
func BenchmarkDispatchedOp(b *testing.B) {
	fx := newFixture(b)
	req := json.RawMessage(`{"ops":[{"op":"job.list","args":{"limit":5}}]}`)
	if resp := fx.surface.Handle(context.Background(), req, nil); resp.Status != StatusSuccess {
		b.Fatalf("%s", resp.JSON())
	}
	for b.Loop() {
		_ = fx.surface.Handle(context.Background(), req, nil).JSON()
	}
}
