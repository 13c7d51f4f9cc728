package fromcobrabin_test

import (
	"context"
	"testing"

	"github.com/verbsurface/verbsurface/projector/fromcobrabin"
)

// BenchmarkWalkFixture reads the fixture's whole tree (15 command paths,
// placeholders probed) from its binary: the cost of a cold load, which a
// front pays again only when the binary changes.
func BenchmarkWalkFixture(b *testing.B) {
	for b.Loop() {
		if _, err := fromcobrabin.Walk(context.Background(), []string{fixtureBin}, nil); err != nil {
			b.Fatal(err)
		}
	}
}
