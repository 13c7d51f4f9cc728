package fromcobra

import (
	"testing"

	"github.com/verbsurface/verbsurface/projector/internal/goldentree"
)

// TestGoldenFixture pins the schema and fingerprint of every fixture command
// (and the reason of every unavailable one) in testdata/fixture.golden.json.
func TestGoldenFixture(t *testing.T) {
	goldentree.Check(t, fixtureTree(t), "fixture")
}
