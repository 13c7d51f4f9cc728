package flow

import (
	"errors"
	"strings"
	"testing"
)

// TestRenderWithinStopsAtTheTotal: rendering stops at the step whose
// prompt takes the total past the bound, and says how far it got; under
// the bound, or with none, every step renders.
func TestRenderWithinStopsAtTheTotal(t *testing.T) {
	s := Spec{Steps: []Step{{ID: "a", Prompt: "{{.prompt}}{{.prompt}}"}, {ID: "b", Prompt: "{{.prompt}}"}, {ID: "c", Prompt: "{{.prompt}}"}}}
	prompt := strings.Repeat("p", 100)
	var te *TotalError
	_, err := s.RenderWithin(prompt, nil, 250)
	if !errors.As(err, &te) || te.Step != 1 || te.Rendered != 300 || te.Total != 250 {
		t.Fatalf("RenderWithin(250) = %v; want a TotalError at steps[1], 300 bytes", err)
	}
	for _, total := range []int64{400, -1} {
		out, err := s.RenderWithin(prompt, nil, total)
		if err != nil || len(out.Steps[2].Prompt) != 100 {
			t.Fatalf("RenderWithin(%d) = %v; want every step rendered", total, err)
		}
	}
}
