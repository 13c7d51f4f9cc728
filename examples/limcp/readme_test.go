//go:build unix

package main

import (
	"os"
	"strings"
	"testing"

	"github.com/verbsurface/verbsurface/examples/limcp/internal/machine"
	"github.com/verbsurface/verbsurface/examples/limcp/internal/store"
)

// TestREADMEDocumentsTheClosedSets: every error code and status is in the
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
	for _, s := range store.Statuses {
		if !strings.Contains(readme, "`"+string(s)+"`") {
			t.Errorf("README does not document status %s", s)
		}
	}
}
