package fromcobra

import (
	"flag"
	"testing"

	"github.com/verbsurface/verbsurface/projector/internal/golden"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/")

// TestGoldenFixture pins the schema and fingerprint of every fixture command
// (and the reason of every unavailable one) in testdata/fixture.golden.json.
func TestGoldenFixture(t *testing.T) {
	golden.Check(t, fixtureTree(t), "fixture", *update)
}
