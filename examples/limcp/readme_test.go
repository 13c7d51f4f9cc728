//go:build unix

package main

import (
	"os"
	"strings"
	"testing"

	"github.com/verbsurface/verbsurface/examples/limcp/internal/machine"
	"github.com/verbsurface/verbsurface/examples/limcp/internal/provider"
	"github.com/verbsurface/verbsurface/examples/limcp/internal/run"
	"github.com/verbsurface/verbsurface/examples/limcp/internal/store"
)

// TestREADMEDocumentsTheClosedSets: every error code and status, every
// preset (with the page its flags follow) and the agent reason code are in the
// README, so the documented set cannot fall behind the code.
func TestREADMEDocumentsTheClosedSets(t *testing.T) {
	b, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	readme := string(b)
	for _, c := range machine.Codes {
		if !strings.Contains(readme, "`"+string(c)+"`") {
			t.Errorf("README does not document error code %s", c)
		}
	}
	for _, p := range provider.Presets() {
		if !strings.Contains(readme, "`"+p.Name+"[:MODEL]`") || !strings.Contains(readme, p.Doc) {
			t.Errorf("README's \"Run a real agent\" does not document the %s preset and its documentation", p.Name)
		}
	}
	if !strings.Contains(readme, "`"+run.ReasonAgentError+"`") {
		t.Errorf("README does not document reason code %s", run.ReasonAgentError)
	}
	for _, s := range store.Statuses {
		if !strings.Contains(readme, "`"+string(s)+"`") {
			t.Errorf("README does not document status %s", s)
		}
	}
}
