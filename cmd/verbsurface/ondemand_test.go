//go:build unix

package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/verbsurface/verbsurface/projector"
)

// synthBin is bench/synthcli (a cobra program of $SYNTH_COMMANDS leaf
// commands, fifty to a group), built once for the tests of reading on
// demand.
var synthBin = sync.OnceValues(func() (string, error) {
	bin := filepath.Join(binDir, "synthcli")
	out, err := exec.Command("go", "build", "-o", bin, "../../bench/synthcli").CombinedOutput()
	if err != nil {
		return "", fmt.Errorf("building bench/synthcli: %v\n%s", err, out)
	}
	return bin, nil
})

// synthFront writes a configuration fronting bench/synthcli of n commands
// through a wrapper that counts its calls, one verb per leaf command
// (gK.cI), and returns the configuration's path and the count's file.
// extra is added to the configuration, and each verb line gets more[name].
func synthFront(t testing.TB, n int, extra string, more map[string]string) (config, calls string) {
	t.Helper()
	bin, err := synthBin()
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	calls = filepath.Join(dir, "calls")
	wrap := filepath.Join(dir, "synth")
	script := "#!/bin/sh\necho x >> " + calls + "\nexec " + bin + " \"$@\"\n"
	if err := os.WriteFile(wrap, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "name: synth\ncommand: [%s]\nmachine: {args: [--json]}\nsource: {cobra: [%s]}\nexclude: [json]\nenv: {pass: [SYNTH_COMMANDS]}\n%sverbs:\n", wrap, wrap, extra)
	for i := range n {
		name := fmt.Sprintf("g%d.c%d", i/50, i)
		fmt.Fprintf(&b, "  - {name: %s, path: [g%d, c%d], class: observe%s}\n", name, i/50, i, more[name])
	}
	config = filepath.Join(dir, "synth.yaml")
	if err := os.WriteFile(config, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Setenv("SYNTH_COMMANDS", fmt.Sprint(n))
	return config, calls
}

// loadFront builds the front of config as serve would, reading the
// cobra program on demand or whole, with its state in a directory of its
// own.
func loadFront(t *testing.T, config string, mode onDemandMode) (*front, *bytes.Buffer) {
	t.Helper()
	t.Setenv("XDG_STATE_HOME", t.TempDir())
	cfg, err := LoadConfig(config)
	if err != nil {
		t.Fatal(err)
	}
	var stderr bytes.Buffer
	cfg.stderr, cfg.readOnDemand = &stderr, mode
	f, err := newFront(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return f, &stderr
}

func handle(t *testing.T, f *front, req string) map[string]any {
	t.Helper()
	var r map[string]any
	if err := json.Unmarshal(f.surface.Handle(context.Background(), json.RawMessage(req), nil).JSON(), &r); err != nil {
		t.Fatal(err)
	}
	return r
}

// Read on demand, a front of sixty verbs answers as a front that read
// them all: the same schema and fingerprint, the same op result; its
// catalog lists the verbs not read yet as NAME(…); and it ran the
// program a fraction of the times.
func TestOnDemandAnswersAsWhole(t *testing.T) {
	config, calls := synthFront(t, 60, "", nil)
	whole, _ := loadFront(t, config, onDemandNever)
	handle(t, whole, `{"help":true}`) // the source is read on the first request
	wholeCalls := countLines(t, calls)
	if err := os.Truncate(calls, 0); err != nil {
		t.Fatal(err)
	}
	lazy, _ := loadFront(t, config, onDemandOnly)
	listing := handle(t, lazy, `{"help":"g1.*"}`)
	if n := countLines(t, calls); n == 0 || n*10 > wholeCalls {
		t.Errorf("listing ran the program %d times, the whole read %d: want a tenth or less (and some)", n, wholeCalls)
	}
	text, _ := json.Marshal(listing)
	if !strings.Contains(string(text), "g1.c55(…)") {
		t.Errorf("listing of commands not read yet has no g1.c55(…):\n%s", text)
	}
	for _, verb := range []string{"g1.c55", "g0.c3"} {
		want := handle(t, whole, `{"help":"`+verb+`"}`)["help"]
		got := handle(t, lazy, `{"help":"`+verb+`"}`)["help"]
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("help %s read on demand differs from the whole read (-whole +on demand):\n%s", verb, diff)
		}
	}
	op := `{"ops":[{"op":"g0.c7","args":{"name":"box","count":3,"tags":["a","b"]}}]}`
	want, got := handle(t, whole, op), handle(t, lazy, op)
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("op read on demand differs from the whole read (-whole +on demand):\n%s", diff)
	}
	if r := got["results"].([]any)[0].(map[string]any); r["ok"] != true {
		t.Errorf("op failed: %v", r)
	}
	if n := countLines(t, calls); n*4 > wholeCalls {
		t.Errorf("on demand, listing, three commands read and one op ran the program %d times, the whole read %d", n, wholeCalls)
	}
	line := func(f *front) string {
		for _, l := range handle(t, f, `{"help":"g1.*"}`)["help"].(map[string]any)["verbs"].([]any) {
			if strings.HasPrefix(l.(string), "g1.c55(") {
				return l.(string)
			}
		}
		return ""
	}
	if w, l := line(whole), line(lazy); w == "" || l != w {
		t.Errorf("g1.c55's line once read: %q; the whole read's: %q", l, w)
	}
}

// Every command read is checked as serve's start checks a whole read: a
// verb whose exclude: or files: names no parameter of it, or whose
// policy rule does, is not offered once read, with the reason, and the
// others are; the policy's rules are compiled with the parameters' types
// once read (a pattern on a list applies to each element).
func TestOnDemandChecksWhatItReads(t *testing.T) {
	dir := t.TempDir()
	pol := filepath.Join(dir, "policy.yaml")
	if err := os.WriteFile(pol, []byte(`version: 1
default: allow
rules:
  - {verbs: [g0.c3], when: {nosuch: {pattern: "x"}}, decision: deny}
  - {verbs: [g0.c4], when: {tags: {pattern: "^ok-"}}, decision: allow}
  - {verbs: [g0.c4], decision: deny, reason: "tags must start ok-"}
`), 0o644); err != nil {
		t.Fatal(err)
	}
	root, elsewhere := filepath.Join(dir, "root"), filepath.Join(dir, "elsewhere")
	for _, d := range []string{root, elsewhere} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	config, _ := synthFront(t, 20, "policy: "+pol+"\nroots: ["+root+"]\n", map[string]string{
		"g0.c1": ", exclude: [--nosuch]",
		"g0.c2": ", files: [nosuch:read]",
		"g0.c6": ", files: [note:read], cwd: " + elsewhere,
	})
	lazy, stderr := loadFront(t, config, onDemandOnly)
	for verb, want := range map[string]string{
		"g0.c1": `--nosuch`,
		"g0.c2": `nosuch`,
		"g0.c3": `rules[0]: when: nosuch: verb g0.c3 has no parameter`,                   // the policy, checked once read
		"g0.c6": `takes paths (note), so the directory it runs in must be inside a root`, // lint, once read
	} {
		h := handle(t, lazy, `{"help":"`+verb+`"}`)
		text, _ := json.Marshal(h)
		if code(h["help"].(map[string]any)) != "unavailable_verb" || !strings.Contains(string(text), want) {
			t.Errorf("help %s: want unavailable_verb naming %s; got:\n%s", verb, want, text)
		}
		if verb != "g0.c1" && verb != "g0.c2" && !strings.Contains(stderr.String(), verb) { // the surface's own findings are its answer
			t.Errorf("stderr does not name %s:\n%s", verb, stderr)
		}
	}
	if h := handle(t, lazy, `{"help":"g0.c5"}`); code(h["help"].(map[string]any)) != "" {
		t.Errorf("help g0.c5 (nothing wrong): %v", h)
	}
	run := func(tags string) map[string]any {
		r := handle(t, lazy, `{"ops":[{"op":"g0.c4","args":{"name":"box","tags":`+tags+`}}]}`)
		return r["results"].([]any)[0].(map[string]any)
	}
	if r := run(`["ok-1","ok-2"]`); r["ok"] != true {
		t.Errorf("g0.c4 with every tag ok-: want allowed by the rule on each element; got %v", r)
	}
	if r := run(`["ok-1","bad"]`); r["ok"] == true {
		t.Errorf("g0.c4 with a tag not ok-: want denied; got %v", r)
	}
}

// serve answers before it reads a large program's commands, reads the
// rest in the background, and keeps the tree once every command is
// read: the next start runs the program not once.
func TestServeReadsInTheBackgroundAndKeeps(t *testing.T) {
	// With a policy, the listing is made while the front is built (the
	// policy is parsed against the verbs), before it can check a read.
	pol := filepath.Join(t.TempDir(), "policy.yaml")
	if err := os.WriteFile(pol, []byte("version: 1\ndefault: allow\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	config, calls := synthFront(t, 60, "policy: "+pol+"\n", nil)
	state := t.TempDir()
	c := serve(t, config, "XDG_STATE_HOME="+state)
	kept := filepath.Join(state, "verbsurface", "synth", cobraCacheFile)
	for deadline := time.Now().Add(3 * time.Minute); ; time.Sleep(100 * time.Millisecond) {
		if _, err := os.Stat(kept); err == nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("no tree kept at %s after 3 minutes", kept)
		}
	}
	text, _ := json.Marshal(c.call(`{"help":"g1.*"}`))
	if strings.Contains(string(text), "(…)") {
		t.Errorf("a command is still not read once the tree is kept:\n%s", text)
	}
	c.cs.Close()

	if err := os.Truncate(calls, 0); err != nil {
		t.Fatal(err)
	}
	c = serve(t, config, "XDG_STATE_HOME="+state)
	if _, fp := c.help("g0.c7"); fp == "" {
		t.Fatal("no fingerprint")
	}
	if r := c.op(`{"op":"g0.c7","args":{"name":"box"}}`); r["ok"] != true {
		t.Errorf("op after a kept start: %v", r)
	}
	if n := countLines(t, calls); n != 1 {
		t.Errorf("a start on the kept tree ran the program %d times for one op; want once (the op)", n)
	}
}

// source.read: all reads every command before serve answers: the first
// catalog has every signature. It applies to source.cobra only.
func TestSourceReadAll(t *testing.T) {
	config, _ := synthFront(t, 60, "", nil)
	b, err := os.ReadFile(config)
	if err != nil {
		t.Fatal(err)
	}
	all := strings.Replace(string(b), "source: {cobra: [", "source: {read: all, cobra: [", 1)
	if err := os.WriteFile(config, []byte(all), 0o644); err != nil {
		t.Fatal(err)
	}
	c := serve(t, config, "XDG_STATE_HOME="+t.TempDir())
	text, _ := json.Marshal(c.call(`{"help":"g1.*"}`))
	if strings.Contains(string(text), "(…)") || !strings.Contains(string(text), "g1.c55(") {
		t.Errorf("read: all, the first listing:\n%s", text)
	}
	for _, tc := range []struct{ yaml, want string }{
		{"source: {read: all, tree_file: t.json}", "source.read: applies to source.cobra only"},
		{"source: {read: lazy, cobra: [x]}", `source.read: "lazy" is neither on_demand nor all`},
	} {
		file := filepath.Join(t.TempDir(), "c.yaml")
		if err := os.WriteFile(file, []byte("name: x\ncommand: [x]\n"+tc.yaml+"\nverbs: []\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		if _, err := LoadConfig(file); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %v; want %q", tc.yaml, err, tc.want)
		}
	}
}

// A top-level exclude: name that no command read so far has refuses a
// command read with a parameter one edit from it (the parameter meant
// would be offered), and once every command is read and it matched none,
// no verb is offered, as a whole read would not have started.
func TestOnDemandMisspeltExclude(t *testing.T) {
	config, _ := synthFront(t, 20, "", nil)
	b, err := os.ReadFile(config)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(config, []byte(strings.Replace(string(b), "exclude: [json]", "exclude: [json, nme]", 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	lazy, stderr := loadFront(t, config, onDemandOnly)
	h := handle(t, lazy, `{"help":"g0.c3"}`)
	text, _ := json.Marshal(h)
	if code(h["help"].(map[string]any)) != "unavailable_verb" || !strings.Contains(string(text), `exclude: \"nme\" names no parameter of a command read so far`) {
		t.Errorf("help g0.c3 with exclude: [nme] beside --name: %s", text)
	}
	if !strings.Contains(stderr.String(), `"nme"`) {
		t.Errorf("stderr does not name the exclusion:\n%s", stderr)
	}
	// Every command read: nme matched none.
	for i := range 20 {
		handle(t, lazy, fmt.Sprintf(`{"help":"g0.c%d"}`, i))
	}
	if !strings.Contains(stderr.String(), `exclude: "nme" names no parameter of any command of synth; no verb is offered`) {
		t.Errorf("once every command is read, stderr:\n%s", stderr)
	}
	if h := handle(t, lazy, `{"help":"g0.c19"}`); code(h["help"].(map[string]any)) != "unavailable_verb" {
		t.Errorf("help g0.c19 once every command is read: %v", h)
	}
}

// A refusal for a name one edit away is lifted once the name is found on
// a command read later (exclude: [tag] beside --tags, where another
// command has --tag).
func TestOnDemandNearMissLifted(t *testing.T) {
	config, _ := synthFront(t, 2, "", nil)
	b, err := os.ReadFile(config)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(config, []byte(strings.Replace(string(b), "exclude: [json]", "exclude: [tag]", 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	cfg, err := LoadConfig(config)
	if err != nil {
		t.Fatal(err)
	}
	f := &front{cfg: cfg, gates: &gates{}}
	f.gates.failed, f.gates.near, f.gates.unresolved = map[string]string{}, map[string]nearMiss{}, []string{"tag"}
	tags := &projector.Command{Path: []string{"a"}, Params: []*projector.Param{{Name: "tags", Options: []string{"--tags"}}}}
	tag := &projector.Command{Path: []string{"b"}, Params: []*projector.Param{{Name: "tag", Options: []string{"--tag"}}}}
	tree := &projector.Tree{Program: "p", Commands: []*projector.Command{{Path: []string{}}, tags, {Path: []string{"b"}, Unread: true}}}
	f.checkExcludes(tree, [][]string{{"a"}})
	if f.gates.near["a"].why == "" {
		t.Fatalf("--tags beside exclude: [tag] not refused: %v", f.gates.near)
	}
	tree = projector.Spliced(tree, []string{"b"}, []*projector.Command{tag})
	f.checkExcludes(tree, [][]string{{"b"}})
	if len(f.gates.near) != 0 || len(f.gates.unresolved) != 0 || f.gates.unmatched != "" {
		t.Errorf("once --tag is read: near %v, unresolved %v, unmatched %q; want none", f.gates.near, f.gates.unresolved, f.gates.unmatched)
	}
}

// Concurrent requests for the same commands read each once, and every
// one gets the command's real schema.
func TestOnDemandConcurrentReadsOnce(t *testing.T) {
	config, calls := synthFront(t, 60, "", nil)
	lazy, _ := loadFront(t, config, onDemandOnly)
	handle(t, lazy, `{"help":true}`)
	listed := countLines(t, calls)
	handle(t, lazy, `{"help":"g0.c0"}`)
	perRead := countLines(t, calls) - listed
	if perRead <= 0 {
		t.Fatal("reading a command ran nothing: the test proves nothing")
	}
	var wg sync.WaitGroup
	fps := make([]string, 40)
	for i := range 40 {
		wg.Go(func() {
			h := handle(t, lazy, fmt.Sprintf(`{"help":"g1.c%d"}`, 50+i%10))["help"].(map[string]any)
			fps[i], _ = h["schema_fingerprint"].(string)
		})
	}
	wg.Wait()
	for i, fp := range fps {
		if fp == "" {
			t.Errorf("request %d got no schema", i)
		}
	}
	if got, want := countLines(t, calls)-listed-perRead, 10*perRead; got > want {
		t.Errorf("40 requests for 10 commands ran the program %d times; reading each once is %d", got, want)
	}
}
