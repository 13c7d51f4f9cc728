package verbsurface

import (
	"context"
	"encoding/json"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/verbsurface/verbsurface/projector"
)

// TestResponseCapCountsTheEncodedBytes: the cap counts a result by its
// length without encoding it, so the length must be the encoded one, byte
// for byte, whatever the CLI printed: indented, with characters
// encoding/json escapes (<, >, &, U+2028), non-ASCII, a bare scalar, nothing
// at all; and with a preparer's info beside it. For each, the size the
// cap counted equals len(json.Marshal) of the result as the response
// carries it.
func TestResponseCapCountsTheEncodedBytes(t *testing.T) {
	outputs := []string{
		`{"a": 1,  "b": [1, 2,
		  3]}`,
		`{"html":"<b>&amp;</b>","sep":"a` + "\u2028" + `b"}`,
		`"héllo — 世界"`,
		`42`,
		``,
		`[{"deep":{"er":{"still":"<&>"}}}]`,
	}
	var call atomic.Int64
	tree := &projector.Tree{Program: "p", Dialect: projector.DialectPflag, Commands: []*projector.Command{
		{Path: []string{}}, {Path: []string{"run"}, Runnable: true, Params: []*projector.Param{}}}}
	for _, withInfo := range []bool{false, true} {
		reg, _ := NewRegistry(nil)
		v := Verb{Name: "p.run", Class: ClassObserve, Path: []string{"run"}}
		if withInfo {
			v.Prepare = func(_ context.Context, args map[string]any) (map[string]any, map[string]any, func(), error) {
				return nil, map[string]any{"snapshot": "<sha256>", "bytes": 12}, nil, nil
			}
		}
		if err := reg.Register(v); err != nil {
			t.Fatal(err)
		}
		s, err := New(reg, &Options{Source: StaticTree(tree), Runner: RunnerFunc(func(context.Context, []string) (json.RawMessage, error) {
			return json.RawMessage(outputs[int(call.Add(1)-1)%len(outputs)]), nil
		})})
		if err != nil {
			t.Fatal(err)
		}
		for range outputs {
			resp := s.Handle(context.Background(), json.RawMessage(`{"ops":[{"op":"p.run"},{"op":"nope"}]}`), nil)
			for _, r := range resp.Results {
				want, err := json.Marshal(r)
				if err != nil {
					t.Fatal(err)
				}
				got, err := encodedSize(r)
				if err != nil || got != len(want) {
					t.Errorf("info %v: encodedSize = %d, %v; the result encodes to %d bytes: %s", withInfo, got, err, len(want), want)
				}
			}
			// And in the whole response, as capResult added it up.
			total := responseOverhead
			for _, r := range resp.Results {
				n, _ := encodedSize(r)
				total += n + 1
			}
			if enc := resp.JSON(); len(enc) > total || !strings.HasPrefix(string(enc), `{"status":`) {
				t.Errorf("the response is %d bytes; the cap counted %d", len(enc), total)
			}
		}
	}
}

// BenchmarkHandleJobStatusCap is one op through Handle and the response
// encoding with the cap on (the default) and off: what counting the
// response costs per op.
func BenchmarkHandleCap(b *testing.B) {
	result := json.RawMessage(`{"records":[{"id":"67b6408c","kind":"invocation","label":"bench","status":"succeeded","phase":"started","reason_code":null,"outcome":"succeeded","pid":4242,"started_at":"2026-12-01T12:00:00.000000001Z","ended_at":"2026-12-01T12:00:01.5Z","exit_code":0,"notify":{"url":null}}]}`)
	tree := &projector.Tree{Program: "p", Dialect: projector.DialectPflag, Commands: []*projector.Command{
		{Path: []string{}}, {Path: []string{"status"}, Runnable: true, Params: []*projector.Param{
			{Name: "ids", Kind: projector.KindString, Arity: projector.ArityOneOrMore, Action: "cobra:positional"}}}}}
	for _, cap := range []int{0, -1} {
		name := map[int]string{0: "cap", -1: "nocap"}[cap]
		b.Run(name, func(b *testing.B) {
			reg, _ := NewRegistry(nil)
			reg.Register(Verb{Name: "job.status", Class: ClassObserve, Path: []string{"status"}})
			s, err := New(reg, &Options{Source: StaticTree(tree), MaxResponseBytes: cap,
				Runner: RunnerFunc(func(context.Context, []string) (json.RawMessage, error) { return result, nil })})
			if err != nil {
				b.Fatal(err)
			}
			req := json.RawMessage(`{"ops":[{"op":"job.status","args":{"ids":["67b6408c"]}}]}`)
			b.ReportAllocs()
			for b.Loop() {
				s.Handle(context.Background(), req, nil).JSON()
			}
		})
	}
}
