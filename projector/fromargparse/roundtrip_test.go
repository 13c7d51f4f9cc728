package fromargparse

import (
	"context"
	"encoding/json"
	"math"
	"math/rand"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/verbsurface/verbsurface/projector"
	"github.com/verbsurface/verbsurface/projector/internal/argsgen"
	"github.com/verbsurface/verbsurface/projector/internal/pywalk"
)

// stdlibTargets are real argparse programs that ship with Python; their
// parsers are code nobody here wrote.
var stdlibTargets = []string{
	"json.tool:main", "zipfile:main", "tarfile:main", "calendar:__main__", "py_compile:main",
	"ast:main", "http.server:__main__", "unittest:__main__",
}

var fixtureTargets = []string{"vsfixture:build", "vsfixture:main", "vsfixture:odd", "vsfixture:edges", "vsfixture:readers"}

func testOptions(t testing.TB) *Options {
	dir, err := filepath.Abs(filepath.Join("testdata", "pyfixture"))
	if err != nil {
		t.Fatal(err)
	}
	// Dir "/" pins defaults computed from the working directory
	// (http.server's --directory) so the goldens do not depend on where
	// the tests run.
	return &Options{PythonPath: []string{dir}, Dir: "/"}
}

var (
	walkOnce  sync.Once
	walkTrees map[string]*projector.Tree
	walkErr   error
)

// trees walks every test target once per test binary (one Python process).
func trees(t testing.TB) map[string]*projector.Tree {
	t.Helper()
	walkOnce.Do(func() {
		targets := append(append([]string(nil), stdlibTargets...), fixtureTargets...)
		var ts []*projector.Tree
		ts, walkErr = WalkAll(context.Background(), targets, testOptions(t))
		walkTrees = map[string]*projector.Tree{}
		for i, tr := range ts {
			walkTrees[targets[i]] = tr
		}
	})
	if walkErr != nil {
		t.Fatal(walkErr)
	}
	return walkTrees
}

type parseRequest struct {
	Target string   `json:"target"`
	Argv   []string `json:"argv"`
}

type parseResult struct {
	OK        bool           `json:"ok"`
	Namespace map[string]any `json:"namespace"`
	Error     string         `json:"error"`
}

// parseBatch parses every argv with the target's real parser, in one Python
// process, and returns the namespaces.
func parseBatch(t testing.TB, reqs []parseRequest) []parseResult {
	t.Helper()
	var answer struct {
		Results []parseResult `json:"results"`
	}
	if err := runWalker(context.Background(), testOptions(t), "parse", map[string]any{"requests": reqs}, &answer); err != nil {
		t.Fatal(err)
	}
	if len(answer.Results) != len(reqs) {
		t.Fatalf("%d results for %d requests", len(answer.Results), len(reqs))
	}
	return answer.Results
}

// sameJSON compares a given (decoded-JSON) value with what Python parsed
// (decoded with UseNumber), numerically for numbers.
func sameJSON(kind projector.Kind, given, parsed any) bool {
	switch g := given.(type) {
	case []any:
		p, ok := parsed.([]any)
		if !ok || len(p) != len(g) {
			return false
		}
		for i := range g {
			if !sameJSON(kind, g[i], p[i]) {
				return false
			}
		}
		return true
	case float64:
		n, ok := parsed.(json.Number)
		if !ok {
			return false
		}
		f, err := n.Float64()
		return err == nil && f == g
	case int64:
		return sameJSON(kind, float64(g), parsed)
	}
	return given == parsed
}

// destSetByOther reports whether a given flag split from a shared dest
// stores into dest, so that an omitted parameter of that name does not hold
// its default.
func destSetByOther(cmd *projector.Command, args map[string]any, dest string) bool {
	for _, p := range cmd.Params {
		if v, ok := args[p.Name]; ok && p.Dest == dest && v == true {
			return true
		}
	}
	return false
}

// checkConstForms checks the values that do not parse to themselves: a
// store_const/append_const flag (true stores const, or appends it), a bare
// option (true stores const) and a count (n is stored as n, 0 as the
// default None). handled is false for every other parameter and value.
func checkConstForms(p *projector.Param, v any, given bool, ns map[string]any) (ok, handled bool) {
	key := p.Name
	if p.Dest != "" {
		key = p.Dest
	}
	got, present := ns[key]
	switch {
	case p.Dest != "":
		// A flag split from a shared dest: given, the dest holds its
		// const; otherwise another member (or the default) decides.
		return !given || v == false || present && sameJSONPlain(got, p.Const), true
	case p.Arity == projector.ArityNone && (p.Action == "store_const" || p.Action == "append_const"):
		if !given || v == false {
			// Omitted: the parser's own default, which the schema does
			// not state; it is at least not the const the flag stores.
			return p.Const == nil || p.Action == "append_const" || !sameJSONPlain(got, p.Const), true
		}
		want := p.Const
		if p.Action == "append_const" {
			want = []any{p.Const}
		}
		return present && (p.Const == nil || sameJSONPlain(got, want)), true
	case p.Bare && v == true:
		return present && (p.Const == nil && got == nil || sameJSONPlain(got, p.Const)), true
	case p.Arity == projector.ArityCount:
		n := 0.0
		if given {
			n, _ = v.(float64)
		}
		if got == nil {
			return n == 0, true
		}
		f, err := got.(json.Number).Float64()
		return err == nil && f == n, true
	}
	return false, false
}

// checkBatch renders every case, parses them all with Python in one batch,
// and requires each namespace to hold exactly the given values (and the
// schema's defaults for omitted parameters that have one).
func checkBatch(t *testing.T, cases []argsgen.Case) {
	t.Helper()
	reqs := make([]parseRequest, len(cases))
	for i, c := range cases {
		reqs[i] = parseRequest{Target: c.Target, Argv: append(append([]string{}, c.Cmd.Path...), c.Argv...)}
	}
	results := parseBatch(t, reqs)
	for i, c := range cases {
		r := results[i]
		if !r.OK {
			t.Errorf("%s %v: argparse rejected rendered argv %s: %s\nargs: %s", c.Target, c.Cmd.Path, argsgen.Short(c.Argv), r.Error, argsgen.Short(c.Args))
			continue
		}
		for _, p := range c.Cmd.Params {
			v, given := c.Args[p.Name]
			if ok, handled := checkConstForms(p, v, given, r.Namespace); handled {
				if !ok {
					t.Errorf("%s %v: parameter %s: rendered %s, argparse parsed %s for %s (const %s)", c.Target, c.Cmd.Path, p.Name, argsgen.Short(c.Argv), argsgen.Short(r.Namespace[p.Name]), argsgen.Short(v), argsgen.Short(p.Const))
				}
				continue
			}
			if !given {
				if p.Default == nil || destSetByOther(c.Cmd, c.Args, p.Name) {
					continue
				}
				raw, _ := json.Marshal(p.Default)
				_ = json.Unmarshal(raw, &v)
			}
			got, present := r.Namespace[p.Name]
			if s, ok := v.(string); ok && strings.Contains(p.Type, "Path") {
				v = pywalk.PurePosixPath(s) // what pathlib makes of the string: the same file
			}
			if !present || !sameJSON(p.Kind, v, got) {
				t.Errorf("%s %v: parameter %s: rendered %s, argparse parsed %s, want %s", c.Target, c.Cmd.Path, p.Name, argsgen.Short(c.Argv), argsgen.Short(got), argsgen.Short(v))
			}
		}
	}
}

// TestRoundTripArgparse is the round-trip property over random, mostly
// valid, often hostile argument objects for every available command of the
// fixture and of the stdlib programs: validation (jsonschema-go) accepts
// exactly what RenderArgv renders, and Python's argparse parses each rendered
// argv back to exactly the given values. All argvs go to one Python process.
func TestRoundTripArgparse(t *testing.T) {
	iterations := 120
	if testing.Short() {
		iterations = 30
	}
	if n := roundTripTrees(t, trees(t), iterations); n < 8 {
		t.Fatalf("only %d commands available", n)
	}
}

// roundTripTrees runs the round-trip property over every command of trees
// that projects and returns how many commands that was.
func roundTripTrees(t *testing.T, trees map[string]*projector.Tree, iterations int) int {
	t.Helper()
	cases, commands := argsgen.ValidCases(t, trees, projector.DialectArgparse, iterations, func(r *rand.Rand) *argsgen.Gen {
		return &argsgen.Gen{R: r, Invalid: 0.1}
	})
	checkBatch(t, cases)
	t.Logf("%d argument objects over %d commands round-tripped", len(cases), commands)
	return commands
}

// TestRoundTripArgparseHostile renders the hostile corpus itself into every
// string position of the fixture's "types" command.
func TestRoundTripArgparseHostile(t *testing.T) {
	tree := trees(t)["vsfixture:build"]
	cmd := tree.Find("types")
	s, err := projector.Project(cmd)
	if err != nil {
		t.Fatal(err)
	}
	rs, _ := s.Resolve(nil)
	var cases []argsgen.Case
	rejected := 0
	for i, h := range argsgen.Hostile {
		next := argsgen.Hostile[(i+1)%len(argsgen.Hostile)]
		args := map[string]any{
			"token": h, "name": next, "model": h, "prompt": next, "k": h, "maybe": h,
			"files": []any{h, next}, "one": []any{h}, "tag": []any{h, next}, "word": []any{next},
			"nums": []any{-1e-7, math.Copysign(0, -1), -1e21, float64(i)}, "pair": []any{float64(-i), 7.0},
		}
		var raw map[string]any
		b, _ := json.Marshal(args)
		_ = json.Unmarshal(b, &raw)
		// Drop what the schema refuses, one parameter at a time, so each
		// remaining hostile value is exercised.
		for name := range raw {
			probe := map[string]any{"token": "t", "model": "m", name: raw[name]}
			if rs.Validate(probe) != nil {
				delete(raw, name)
				rejected++
			}
		}
		if _, ok := raw["token"]; !ok {
			raw["token"] = "t"
		}
		if _, ok := raw["model"]; !ok {
			raw["model"] = "m"
		}
		if err := rs.Validate(raw); err != nil {
			t.Fatalf("%v: %v", raw, err)
		}
		argv, err := projector.RenderArgv(projector.DialectArgparse, cmd, raw)
		if err != nil {
			t.Fatalf("validated args do not render: %v", err)
		}
		cases = append(cases, argsgen.Case{Target: "vsfixture:build", Cmd: cmd, Args: raw, Argv: argv})
	}
	checkBatch(t, cases)
	if rejected == 0 {
		t.Error("the schema refused no hostile value; the corpus holds values it must refuse (\"--\", NUL)")
	}
}

// TestRealArgv runs a few rendered argvs through a real Python process's own
// sys.argv (not a JSON-carried list), so the operating system and Python's
// argv decoding are part of the round trip for unicode, newlines and
// dash-leading values.
func TestRealArgv(t *testing.T) {
	tree := trees(t)["vsfixture:build"]
	cmd := tree.Find("types")
	args := map[string]any{"token": "--help", "name": "-x\nline two é😀", "model": "-", "prompt": "--json", "files": []any{"ok", "a b"}, "tag": []any{"=", "{}"}}
	argv, err := projector.RenderArgv(projector.DialectArgparse, cmd, args)
	if err != nil {
		t.Fatal(err)
	}
	script := `import sys, json, vsfixture; ns = vsfixture.build().parse_args(sys.argv[1:]); print(json.dumps(vars(ns)))`
	full := append([]string{"-c", script}, append(append([]string(nil), cmd.Path...), argv...)...)
	out, err := pythonCommand(t, full...).Output()
	if err != nil {
		t.Fatalf("python: %v", err)
	}
	var ns map[string]any
	if err := json.Unmarshal(out, &ns); err != nil {
		t.Fatalf("%s: %v", out, err)
	}
	for k, v := range args {
		if !sameJSONPlain(v, ns[k]) {
			t.Errorf("%s: got %q, want %q (argv %q)", k, ns[k], v, argv)
		}
	}
}

func sameJSONPlain(a, b any) bool {
	x, _ := json.Marshal(a)
	y, _ := json.Marshal(b)
	return string(x) == string(y)
}

func pythonCommand(t *testing.T, args ...string) *exec.Cmd {
	t.Helper()
	c := exec.Command("python3", args...)
	c.Env = pywalk.Env(testOptions(t).PythonPath)
	return c
}
