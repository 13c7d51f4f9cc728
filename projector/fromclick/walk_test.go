package fromclick

import (
	"context"
	"strings"
	"sync"
	"testing"

	"github.com/verbsurface/verbsurface/projector"
	"github.com/verbsurface/verbsurface/projector/internal/golden"
)

var fixtureTargets = []string{"vsclick:cli", "vstyper:app"}

var (
	fixtureMu    sync.Mutex
	fixtureTrees = map[string]map[string]*projector.Tree{}
)

// fixtures walks the fixture targets once per interpreter per test binary.
func fixtures(t testing.TB, python string) map[string]*projector.Tree {
	t.Helper()
	fixtureMu.Lock()
	defer fixtureMu.Unlock()
	if trees, ok := fixtureTrees[python]; ok {
		return trees
	}
	targets := []string{"vsclick:cli"}
	if canImport(python, "typer") {
		targets = append(targets, "vstyper:app")
	}
	ts, err := WalkAll(context.Background(), targets, fixtureOptions(t, python))
	if err != nil {
		t.Fatal(err)
	}
	trees := map[string]*projector.Tree{}
	for i, tr := range ts {
		trees[targets[i]] = tr
	}
	fixtureTrees[python] = trees
	return trees
}

// TestGoldenFixture pins the projection of the fixture CLIs (schema and
// fingerprint per command, or why it is unavailable), one command per row
// of the mapping, as Debian's click (and Typer) read them.
func TestGoldenFixture(t *testing.T) {
	python := pythonWith(t, "click", "typer")
	all := fixtures(t, python)
	for _, target := range fixtureTargets {
		t.Run(target, func(t *testing.T) {
			golden.Check(t, all[target], strings.ReplaceAll(target, ":", "_"), *update)
		})
	}
}
