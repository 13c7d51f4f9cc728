package fromclick

import (
	"context"
	"strings"
	"sync"
	"testing"

	"github.com/verbsurface/verbsurface/projector"
	"github.com/verbsurface/verbsurface/projector/internal/goldentree"
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
			goldentree.Check(t, all[target], strings.ReplaceAll(target, ":", "_"))
		})
	}
}

func param(cmd *projector.Command, name string) *projector.Param {
	for _, p := range cmd.Params {
		if p.Name == name {
			return p
		}
	}
	return nil
}

// TestWalkStructure pins what the goldens do not show: aliases, hidden and
// deprecated commands, runnable groups, path uses, and defaults that the
// schema must not state.
func TestWalkStructure(t *testing.T) {
	for _, python := range pythonsWith(t, "click") {
		tree := fixtures(t, python)["vsclick:cli"]
		if tree.Program != "cli" || tree.Dialect != projector.DialectClick {
			t.Errorf("%s: program %q dialect %q", python, tree.Program, tree.Dialect)
		}
		if root := tree.Find(); root == nil || root.Runnable || root.Summary != "The fromclick fixture." {
			t.Errorf("%s: root %+v", python, root)
		}
		if ls := tree.Find("sub", "ls"); ls == nil || strings.Join(ls.Path, " ") != "sub list" || len(ls.Aliases) != 1 || ls.Aliases[0] != "ls" {
			t.Errorf("%s: the alias registered with add_command(name=\"ls\") is not folded into sub list: %+v", python, ls)
		}
		if c := tree.Find("secret"); c == nil || !c.Hidden {
			t.Errorf("%s: hidden command %+v", python, c)
		}
		if c := tree.Find("old"); c == nil || !strings.Contains(strings.ToUpper(c.Summary), "DEPRECATED") {
			t.Errorf("%s: deprecated command summary %+v", python, c)
		}
		if c := tree.Find("sub", "deep"); c == nil || !c.Runnable {
			t.Errorf("%s: invoke_without_command group not runnable: %+v", python, c)
		}
		if c := tree.Find("sub"); c == nil || c.Runnable {
			t.Errorf("%s: a plain group is runnable: %+v", python, c)
		}
		paths := tree.Find("paths")
		for name, use := range map[string]projector.PathUse{"src": projector.PathUseRead, "out": projector.PathUseWrite, "workdir": projector.PathUseDir,
			"log": projector.PathUseWrite, "conf": projector.PathUseRead, "inputs": projector.PathUseReadOrDir} {
			if p := param(paths, name); p == nil || p.Path != use {
				t.Errorf("%s: paths %s: %+v, want path use %q", python, name, p, use)
			}
		}
		types := tree.Find("types")
		if p := param(types, "secret_name"); p != nil {
			t.Errorf("%s: the hidden option is a parameter", python)
		}
		for _, name := range []string{"token", "when"} {
			if p := param(types, name); p == nil || p.Default != nil {
				t.Errorf("%s: %s (envvar-backed, callable default) states a default: %+v", python, name, p)
			}
		}
		if p := param(types, "ex"); p == nil || len(p.Options) != 1 || p.Options[0] != "-x" {
			t.Errorf("%s: short-only option %+v", python, p)
		}
	}
}

// TestOperatorOptions: what the operator excludes is recorded, not
// offered; a callback or custom type the operator vouches for is offered.
func TestOperatorOptions(t *testing.T) {
	python := pythonWith(t, "click")
	opts := fixtureOptions(t, python)
	opts.Exclude = []string{"--name", "ident", "--src"}
	opts.Callbacks = []string{"vsclick._validate"}
	opts.StringTypes = []string{"vsclick.Hex"}
	tree, err := Walk(context.Background(), "vsclick:cli", opts)
	if err != nil {
		t.Fatal(err)
	}
	types := tree.Find("types")
	if param(types, "name") != nil || param(types, "ident") != nil || strings.Join(types.Excluded, " ") != "--name --id" {
		t.Errorf("excluded: params %v, excluded %v", types.Params, types.Excluded)
	}
	if _, err := projector.Project(tree.Find("paths")); err == nil || !strings.Contains(err.Error(), "excluded") {
		t.Errorf("excluding the required --src: %v", err)
	}
	for _, path := range []string{"callback", "custom"} {
		if _, err := projector.Project(tree.Find(path)); err != nil {
			t.Errorf("%s with the operator's vouching: %v", path, err)
		}
	}
	if p := param(tree.Find("custom"), "hexval"); p == nil || p.Kind != projector.KindString {
		t.Errorf("vouched custom type: %+v", p)
	}
}
