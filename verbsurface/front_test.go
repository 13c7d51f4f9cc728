//go:build unix

package verbsurface

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/verbsurface/verbsurface/projector"
	"github.com/verbsurface/verbsurface/verbsurface/internal/testcli"
)

// fixtureTree walks the fixture CLI's tree once, outside any fixture.
func fixtureTree(t *testing.T) *projector.Tree {
	t.Helper()
	tr, err := testcli.Tree(testcli.Env{State: t.TempDir(), Playbooks: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	return tr
}

// A tree tied to its executable stops being served once the file changes:
// the verb is unavailable saying to restart, rather than offering the old
// schema to a binary that may parse differently (StaticTree keeps lying).
func TestExecutableTreeRefusesAChangedExecutable(t *testing.T) {
	exe := filepath.Join(t.TempDir(), "cli")
	if err := os.WriteFile(exe, []byte("v1"), 0o755); err != nil {
		t.Fatal(err)
	}
	src, err := ExecutableTree(fixtureTree(t), exe)
	if err != nil {
		t.Fatal(err)
	}
	fx := newFixture(t, func(c *fixtureConfig) { c.opts.Source = src })
	if r := result(t, fx.do(t, `{"ops":[{"op":"job.list"}]}`), 0); r["ok"] != true {
		t.Fatalf("before the change: %v", r)
	}
	later := time.Now().Add(time.Hour)
	if err := os.Chtimes(exe, later, later); err != nil {
		t.Fatal(err)
	}
	r := result(t, fx.do(t, `{"ops":[{"op":"job.list"}]}`), 0)
	e, _ := r["error"].(map[string]any)
	if errCode(r) != CodeUnavailableVerb || !strings.Contains(e["message"].(string), "restart the server") {
		t.Errorf("after the change: %v", r)
	}
	if _, err := ExecutableTree(fixtureTree(t), filepath.Join(t.TempDir(), "missing")); err == nil {
		t.Error("a missing executable was accepted")
	}
}

// CacheByFile reloads when any of the files it is keyed on changes: the
// Python module holding the parser, not only the interpreter.
func TestCacheByFileSeveralFiles(t *testing.T) {
	dir := t.TempDir()
	exe, mod := filepath.Join(dir, "python3"), filepath.Join(dir, "notes.py")
	for _, f := range []string{exe, mod} {
		if err := os.WriteFile(f, []byte("v1"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	loads := 0
	src := CacheByFile(exe, func(context.Context) (*projector.Tree, error) {
		loads++
		return &projector.Tree{}, nil
	}, mod)
	src(context.Background())
	src(context.Background())
	if loads != 1 {
		t.Fatalf("%d loads of unchanged files", loads)
	}
	if err := os.WriteFile(mod, []byte("v2 edited"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := src(context.Background()); err != nil || loads != 2 {
		t.Errorf("loads %d after the module changed (%v)", loads, err)
	}
}

// Any verb can require the fingerprint; a control verb without the flag
// still runs without one.
func TestRequireFingerprintOnControlVerb(t *testing.T) {
	fx := newFixture(t, func(c *fixtureConfig) {
		c.verbs = func(fx *fixture) []Verb {
			vs := fixtureVerbs(fx)
			for i := range vs {
				if vs[i].Name == "job.tag" {
					vs[i].RequireFingerprint = true
				}
			}
			return vs
		}
	})
	r := result(t, fx.do(t, `{"ops":[{"op":"job.tag","args":{"id":"j1","tags":["x"]}}]}`), 0)
	if errCode(r) != CodeMissingFingerprint {
		t.Fatalf("control verb with RequireFingerprint ran without one: %v", r)
	}
	if msg := r["error"].(map[string]any)["message"].(string); strings.Contains(msg, "starts work") {
		t.Errorf("message calls a control verb a spawn: %s", msg)
	}
	r = result(t, fx.do(t, `{"ops":[{"op":"job.tag","args":{"id":"j1","tags":["x"]},"fingerprint":"sha256:0000"}]}`), 0)
	if errCode(r) != CodeStaleFingerprint {
		t.Errorf("wrong fingerprint: %v", r)
	}
	fp := fx.fingerprint(t, "job.tag")
	r = result(t, fx.do(t, `{"ops":[{"op":"job.tag","args":{"id":"j1","tags":["x"]},"fingerprint":"`+fp+`"}]}`), 0)
	if c := errCode(r); c == CodeMissingFingerprint || c == CodeStaleFingerprint {
		t.Errorf("right fingerprint refused: %v", r)
	}
	if c := errCode(result(t, fx.do(t, `{"ops":[{"op":"mode.set","args":{"mode":"fast"}}]}`), 0)); c == CodeMissingFingerprint {
		t.Error("a control verb without RequireFingerprint demanded one")
	}
}

// A caller who types the CLI's words gets the verb: its path, its last
// element, an alias.
func TestUnknownVerbMatchesCommandPathsAndAliases(t *testing.T) {
	fx := newFixture(t, func(c *fixtureConfig) {
		c.opts.Source = func(context.Context) (*projector.Tree, error) {
			tr, err := testcli.Tree(testcli.Env{State: os.TempDir(), Playbooks: os.TempDir()})
			if err == nil {
				tr.Find("job", "list").Aliases = []string{"ls"}
			}
			return tr, err
		}
	})
	fx.do(t, `{"help":"job.list"}`) // the projection that records the alias
	for _, name := range []string{"list", "job list", "ls", "job ls", "kill"} {
		r := result(t, fx.do(t, `{"ops":[{"op":"`+name+`"}]}`), 0)
		e := r["error"].(map[string]any)
		m, _ := e["matches"].([]any)
		want := "job.list"
		if name == "kill" {
			want = "job.kill"
		}
		if errCode(r) != CodeUnknownVerb || len(m) == 0 || m[0] != want {
			t.Errorf("%q: %v, want first match %s", name, e, want)
		}
	}
}

// Check names every verb that cannot be offered, and why; a registry of
// good verbs checks clean.
func TestCheckListsUnofferedVerbs(t *testing.T) {
	fx := newFixture(t, func(c *fixtureConfig) {
		c.verbs = func(fx *fixture) []Verb {
			return append(fixtureVerbs(fx), Verb{Name: "job.lst", Class: ClassObserve, Path: []string{"job", "lst"}})
		}
	})
	got := map[string]Unoffered{}
	for _, u := range fx.surface.Check(context.Background()) {
		got[u.Verb] = u
	}
	if u := got["job.lst"]; u.Code != CodeUnavailableVerb || !strings.Contains(u.Reason, `no command "job lst"`) {
		t.Errorf("path typo: %+v", u)
	}
	if u := got["job.group"]; !strings.Contains(u.Reason, "group of commands") {
		t.Errorf("group: %+v", u)
	}
	if _, ok := got["job.list"]; ok {
		t.Errorf("a good verb reported: %v", got)
	}
	good := newFixture(t, func(c *fixtureConfig) {
		c.verbs = func(fx *fixture) []Verb {
			return slices.DeleteFunc(fixtureVerbs(fx), func(v Verb) bool { _, bad := got[v.Name]; return bad })
		}
	})
	if u := good.surface.Check(context.Background()); len(u) != 0 {
		t.Errorf("good verbs reported: %+v", u)
	}
	broken := newFixture(t, func(c *fixtureConfig) {
		c.opts.Source = func(context.Context) (*projector.Tree, error) { return nil, errorString("bad target notes:nope") }
	})
	if u := broken.surface.Check(context.Background()); len(u) != 12 || !strings.Contains(u[0].Reason, "notes:nope") {
		t.Errorf("unreadable parser: %+v", u)
	}
}

// rootOnlyJSON is the fixture's tree as an argparse-style CLI would have
// it: --json accepted by the root parser only.
func rootOnlyJSON(t *testing.T) func(context.Context) (*projector.Tree, error) {
	return func(context.Context) (*projector.Tree, error) {
		tr, err := testcli.Tree(testcli.Env{State: os.TempDir(), Playbooks: os.TempDir()})
		if err != nil {
			return nil, err
		}
		for _, c := range tr.Commands {
			if len(c.Path) > 0 {
				c.Excluded = slices.DeleteFunc(c.Excluded, func(o string) bool { return o == "--json" })
			}
		}
		return tr, nil
	}
}

// Machine mode at the root: the leaf position names the fix; the root
// position passes the seam check and renders the option before the path.
func TestMachineAtRoot(t *testing.T) {
	leaf := newFixture(t, func(c *fixtureConfig) { c.opts.Source = rootOnlyJSON(t) })
	r := result(t, leaf.do(t, `{"ops":[{"op":"job.list"}]}`), 0)
	if msg, _ := r["error"].(map[string]any)["message"].(string); errCode(r) != CodeUnavailableVerb ||
		!strings.Contains(msg, "no machine-result seam") || !strings.Contains(msg, "machine.at: root") {
		t.Errorf("leaf position on a root-only flag: %v", r)
	}
	rec, wrap := recordCalls(nil)
	root := newFixture(t, wrap, func(c *fixtureConfig) {
		c.opts.Source = rootOnlyJSON(t)
		c.opts.Machine = Machine{Args: []string{"--json"}, At: MachineAtRoot}
	})
	if r := result(t, root.do(t, `{"ops":[{"op":"job.list"}]}`), 0); r["ok"] != true {
		t.Fatalf("root position: %v", r)
	}
	if c := rec.next(t, 10*time.Second); !slices.Equal(c.argv[:3], []string{"--json", "job", "list"}) {
		t.Errorf("argv %q", c.argv)
	}
}

// Machine mode with an attached value, after the path; an option the CLI
// lacks makes every verb unavailable naming the option to set.
func TestMachineArgsShapes(t *testing.T) {
	rec, wrap := recordCalls(nil)
	fx := newFixture(t, wrap, func(c *fixtureConfig) { c.opts.Machine = Machine{Args: []string{"--json=true"}} })
	if r := result(t, fx.do(t, `{"ops":[{"op":"job.list"}]}`), 0); r["ok"] != true {
		t.Fatalf("--json=true: %v", r)
	}
	if c := rec.next(t, 10*time.Second); !slices.Equal(c.argv[:3], []string{"job", "list", "--json=true"}) {
		t.Errorf("argv %q", c.argv)
	}
	bad := newFixture(t, func(c *fixtureConfig) { c.opts.Machine = Machine{Args: []string{"--format=json"}} })
	r := result(t, bad.do(t, `{"ops":[{"op":"job.list"}]}`), 0)
	if msg, _ := r["error"].(map[string]any)["message"].(string); !strings.Contains(msg, "--format") || !strings.Contains(msg, "machine.args") {
		t.Errorf("missing option: %v", r)
	}
	if _, err := New(bad.reg, &Options{Source: StaticTree(&projector.Tree{}), Runner: bad.runner, Machine: Machine{At: "middle"}}); err == nil {
		t.Error("an unknown position was accepted")
	}
}
