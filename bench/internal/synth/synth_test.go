//go:build unix

package synth

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/verbsurface/verbsurface/verbsurface"
)

// surface is the synthetic CLI's surface in process, with a runner that
// records the argv it is given and answers at once.
func surface(t testing.TB, n int, argv *[]string) *verbsurface.Surface {
	tree, err := Walk(n)
	if err != nil {
		t.Fatal(err)
	}
	reg, err := Registry(tree)
	if err != nil {
		t.Fatal(err)
	}
	// No help budget: the test reads every verb's catalog line at once.
	s, err := verbsurface.New(reg, &verbsurface.Options{Source: verbsurface.StaticTree(tree), Machine: verbsurface.Machine{Args: []string{"--json"}}, HelpBudget: -1,
		Runner: verbsurface.RunnerFunc(func(_ context.Context, a []string) (json.RawMessage, error) {
			if argv != nil {
				*argv = a
			}
			return json.RawMessage(`{}`), nil
		})})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// The growth figures are only figures if every verb of the synthetic CLI
// is offered and its op renders what the CLI parses: 120 commands (three
// groups), all offered, and the op the bench times renders the flags.
func TestSyntheticCLIIsFullyOffered(t *testing.T) {
	var argv []string
	s := surface(t, 120, &argv)
	if bad := s.Check(context.Background()); len(bad) > 0 {
		t.Fatalf("%d verbs not offered, the first: %+v", len(bad), bad[0])
	}
	cat := s.Handle(context.Background(), json.RawMessage(`{"help":true}`), nil).Help.(*verbsurface.Catalog)
	if len(cat.Verbs) != 120 || !strings.HasPrefix(cat.Verbs[119], "g2.c119(name, +7)") {
		t.Fatalf("catalog: %d verbs, last %q", len(cat.Verbs), cat.Verbs[len(cat.Verbs)-1])
	}
	resp := s.Handle(context.Background(), json.RawMessage(`{"ops":[{"op":"g2.c119","args":{"name":"abc","count":3,"verbose":true,"tags":["a","b"],"timeout":"30s","note":"a note"}}]}`), nil)
	if resp.Status != verbsurface.StatusSuccess {
		t.Fatalf("%s", resp.JSON())
	}
	root := NewRoot(120)
	var out strings.Builder
	root.SetOut(&out)
	root.SetArgs(argv)
	if err := root.Execute(); err != nil {
		t.Fatalf("the CLI refused %q: %v", argv, err)
	}
	if want := `{"result_version":1,"ok":true,"data":{"command":"synth g2 c119","count":3,"name":"abc"}}`; strings.TrimSpace(out.String()) != want {
		t.Fatalf("the CLI answered %s to %q, want %s", out.String(), argv, want)
	}
}

// BenchmarkCheck5000 is the surface's part of a 5,000-command server's
// start: walk, register, check every verb.
func BenchmarkCheck5000(b *testing.B) {
	for b.Loop() {
		if bad := surface(b, 5000, nil).Check(context.Background()); len(bad) > 0 {
			b.Fatal(bad[0])
		}
	}
}

// BenchmarkRegister5000 registers a walked 5,000-command tree's verbs:
// every name against the fence, near misses included.
func BenchmarkRegister5000(b *testing.B) {
	t, err := Walk(5000)
	if err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		if _, err := Registry(t); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkCatalog5000 answers {"help": true} for 5,000 cached verbs and
// encodes the tool result as the binding sends it.
func BenchmarkCatalog5000(b *testing.B) {
	s := surface(b, 5000, nil)
	s.Check(context.Background())
	req := json.RawMessage(`{"help":true}`)
	for b.Loop() {
		if _, err := json.Marshal(verbsurface.ToolResult(s.Handle(context.Background(), req, nil))); err != nil {
			b.Fatal(err)
		}
	}
}
