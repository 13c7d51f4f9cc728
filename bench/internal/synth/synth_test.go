//go:build unix

package synth

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/verbsurface/verbsurface/projector"
	"github.com/verbsurface/verbsurface/verbsurface"
)

func BenchmarkStartParts(b *testing.B) {
	for b.Loop() {
		t0 := time.Now()
		root := NewRoot(5000)
		t1 := time.Now()
		t, err := walkRoot(root)
		if err != nil {
			b.Fatal(err)
		}
		t2 := time.Now()
		reg, _ := Registry(t)
		t3 := time.Now()
		s, _ := verbsurface.New(reg, &verbsurface.Options{Source: verbsurface.StaticTree(t), Machine: verbsurface.Machine{Args: []string{"--json"}},
			Runner: verbsurface.RunnerFunc(func(context.Context, []string) (json.RawMessage, error) { return nil, nil })})
		s.Check(context.Background())
		t4 := time.Now()
		s.Handle(context.Background(), json.RawMessage(`{"help":true}`), nil).JSON()
		t5 := time.Now()
		b.Logf("build %v walk %v registry %v check %v catalog %v", t1.Sub(t0), t2.Sub(t1), t3.Sub(t2), t4.Sub(t3), t5.Sub(t4))
	}
}

var keep any

func TestHeapOfCheck(t *testing.T) {
	tr, _ := Walk(5000)
	reg, _ := Registry(tr)
	s, _ := verbsurface.New(reg, &verbsurface.Options{Source: verbsurface.StaticTree(tr), Machine: verbsurface.Machine{Args: []string{"--json"}},
		Runner: verbsurface.RunnerFunc(func(context.Context, []string) (json.RawMessage, error) { return nil, nil })})
	s.Check(context.Background())
	keep = s
}

func BenchmarkPieces(b *testing.B) {
	tr, _ := Walk(10)
	cmd := tr.Find("g0", "c3")
	b.Run("project", func(b *testing.B) {
		for b.Loop() {
			projector.Project(cmd)
		}
	})
	s, _ := projector.Project(cmd)
	b.Run("fingerprint", func(b *testing.B) {
		for b.Loop() {
			projector.Fingerprint("g0.c3", s)
		}
	})
	b.Run("compile", func(b *testing.B) {
		for b.Loop() {
			verbsurface.CompileValidator(s)
		}
	})
	b.Run("keymarshal", func(b *testing.B) {
		for b.Loop() {
			json.Marshal(cmd)
		}
	})
	b.Run("schemamarshal", func(b *testing.B) {
		for b.Loop() {
			json.Marshal(s)
		}
	})
}

func BenchmarkCatalog5000(b *testing.B) {
	tr, _ := Walk(5000)
	reg, _ := Registry(tr)
	s, _ := verbsurface.New(reg, &verbsurface.Options{Source: verbsurface.StaticTree(tr), Machine: verbsurface.Machine{Args: []string{"--json"}},
		Runner: verbsurface.RunnerFunc(func(context.Context, []string) (json.RawMessage, error) { return nil, nil })})
	s.Check(context.Background())
	req := json.RawMessage(`{"help":true}`)
	b.Run("handle", func(b *testing.B) {
		for b.Loop() {
			s.Handle(context.Background(), req, nil)
		}
	})
	b.Run("handle+json", func(b *testing.B) {
		for b.Loop() {
			s.Handle(context.Background(), req, nil).JSON()
		}
	})
	b.Run("toolresult+marshal", func(b *testing.B) {
		for b.Loop() {
			r := verbsurface.ToolResult(s.Handle(context.Background(), req, nil))
			json.Marshal(r)
		}
	})
}

func BenchmarkWalk5000(b *testing.B) {
	for b.Loop() {
		b.StopTimer()
		root := NewRoot(5000)
		b.StartTimer()
		walkRoot(root)
	}
}
