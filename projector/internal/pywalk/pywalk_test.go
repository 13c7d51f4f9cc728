package pywalk

import (
	"context"
	"errors"
	"strings"
	"testing"
)

// TestRunStopsAWalkerThatPrintsTooMuch (issue 36, LOW #17): a walker that
// prints past Config.MaxOutput is stopped, and the failure says so; the
// operator's memory holds at most the cap.
func TestRunStopsAWalkerThatPrintsTooMuch(t *testing.T) {
	source := "import sys\nwhile True:\n    sys.stdout.write('x' * 65536)\n"
	var answer any
	err := Run(context.Background(), Config{MaxOutput: 1 << 20}, source, "walk", map[string]any{}, &answer)
	var f *Failure
	if !errors.As(err, &f) || !strings.Contains(f.Message, "printed more than 1048576 bytes and was stopped") {
		t.Fatalf("Run: %v; want a failure naming the output cap", err)
	}
}
