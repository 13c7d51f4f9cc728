//go:build unix

package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// The parity tests hold the generic front, `verbsurface serve -c
// verbsurface.yaml`, equal to `limcp mcp` on the same state home: both real
// binaries, both over stdio with real go-sdk clients. What the YAML cannot
// say (synonyms, play.submit's dynamic parameter, prompt snapshots, the
// wait's early wake: listed in verbsurface.yaml) is not compared.

var (
	vsOnce sync.Once
	vsBin  string
	vsErr  error
)

// verbsurfaceBin builds cmd/verbsurface once per test binary.
func verbsurfaceBin(t *testing.T) string {
	t.Helper()
	vsOnce.Do(func() {
		dir, err := os.MkdirTemp("", "verbsurface-parity-")
		if err != nil {
			vsErr = err
			return
		}
		vsBin = filepath.Join(dir, "verbsurface")
		build := exec.Command("go", "build", "-o", vsBin, "github.com/verbsurface/verbsurface/cmd/verbsurface")
		build.Env = append(os.Environ(), "CGO_ENABLED=0")
		if out, err := build.CombinedOutput(); err != nil {
			vsErr = &buildError{err: err, out: string(out)}
		}
	})
	if vsErr != nil {
		t.Fatalf("building verbsurface: %v", vsErr)
	}
	return vsBin
}

type buildError struct {
	err error
	out string
}

func (e *buildError) Error() string { return e.err.Error() + "\n" + e.out }

// parityPair is one limcp mcp and one verbsurface serve on e's home, with
// limcp found on PATH by the front (command: [limcp]).
func parityPair(t *testing.T, e *env, limcpArgs ...string) (limcpMCP, front *mcpClient) {
	t.Helper()
	path := "PATH=" + filepath.Dir(limcpBin) + string(os.PathListSeparator) + os.Getenv("PATH")
	return e.dialStdio(nil, []string{path}, limcpArgs...), startFront(t, e, "")
}

// startFront serves the shipped verbsurface.yaml, with extra appended
// (more top-level keys), on e's home.
func startFront(t *testing.T, e *env, extra string) *mcpClient {
	t.Helper()
	path := "PATH=" + filepath.Dir(limcpBin) + string(os.PathListSeparator) + os.Getenv("PATH")
	b, err := os.ReadFile("verbsurface.yaml")
	if err != nil {
		t.Fatal(err)
	}
	// The test's tag must reach every process the front starts, so the
	// harness can prove none survives.
	const pass = "env: {pass: [LIMCP_HOME]}"
	if !strings.Contains(string(b), pass) {
		t.Fatalf("verbsurface.yaml no longer says %q", pass)
	}
	cfg := filepath.Join(t.TempDir(), "verbsurface.yaml")
	if err := os.WriteFile(cfg, []byte(strings.Replace(string(b), pass, "env: {pass: [LIMCP_HOME, "+tagVar+"]}", 1)+extra), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(verbsurfaceBin(t), "serve", "-c", cfg)
	cmd.Env = append(e.environ(), path, "LIMCP_HOME="+e.home)
	log := &serverLog{}
	cmd.Stderr = log
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "parity", Version: "v0"}, nil).
		Connect(context.Background(), &mcp.CommandTransport{Command: cmd, TerminateDuration: 2 * time.Second}, nil)
	if err != nil {
		t.Fatalf("starting verbsurface serve: %v\n%s", err, log)
	}
	t.Cleanup(func() { cs.Close() })
	return &mcpClient{t: t, cs: cs, home: e.home}
}

// helpOf is what help says about a verb that parity compares.
type helpOf struct {
	Class             string          `json:"class"`
	Summary           string          `json:"summary"`
	Schema            json.RawMessage `json:"schema"`
	SchemaFingerprint string          `json:"schema_fingerprint"`
}

// TestParityHelp: both servers offer the same verbs, and for every verb
// help gives the same class, summary, schema and fingerprint, with the
// live model descriptions of a providers.yaml in the home included.
func TestParityHelp(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.writeFile("providers.yaml", slowProviders)
	e.writeFile("playbooks/one.playbook.yaml", "description: one step\nflow:\n  steps:\n    - {id: a, model: echo, prompt: \"{{.prompt}}\"}\n")
	l, f := parityPair(t, e)

	// A catalog line is "verb(params) — summary"; play.submit's says
	// "+playbook args" only where its dynamic parameter exists.
	names := func(c *mcpClient) []string {
		var out []string
		for _, line := range c.catalog().Verbs {
			name, _, _ := strings.Cut(line, "(")
			out = append(out, name)
		}
		return slices.Sorted(slices.Values(out))
	}
	lv, fv := names(l), names(f)
	if !slices.Equal(lv, fv) || len(lv) != 23 {
		t.Fatalf("verbs differ:\nlimcp mcp:        %q\nverbsurface serve: %q", lv, fv)
	}
	for _, verb := range lv {
		var lh, fh helpOf
		lr, fr := l.request(map[string]any{"help": verb}), f.request(map[string]any{"help": verb})
		if json.Unmarshal(lr.Help, &lh) != nil || json.Unmarshal(fr.Help, &fh) != nil || lh.SchemaFingerprint == "" {
			t.Fatalf("help %s:\n%s\n%s", verb, lr.raw, fr.raw)
		}
		if lh.SchemaFingerprint != fh.SchemaFingerprint || !jsonEqual(lh.Schema, fh.Schema) || lh.Class != fh.Class || lh.Summary != fh.Summary {
			t.Errorf("help %s differs:\nlimcp mcp:         %s\nverbsurface serve: %s", verb, lr.Help, fr.Help)
		}
	}
	if !strings.Contains(string(l.request(map[string]any{"help": "agent.submit"}).Help), "slow") {
		t.Fatal("the live model description (providers.yaml's slow) is not in agent.submit's schema: the comparison proves less than it says")
	}
}

// stableKeys are the members whose values a journey compares as they are;
// every other string or number is compared by kind only (ids, times,
// pids, paths differ between two runs).
var stableKeys = map[string]bool{
	"status": true, "kind": true, "outcome": true, "code": true, "action": true, "rule": true,
	"terminal": true, "all_terminal": true, "timed_out": true, "ok": true, "phase": true, "class": true, "op": true,
}

// shape is v with every unstable scalar replaced by its JSON kind.
func shape(v any, key string) any {
	switch x := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, vv := range x {
			out[k] = shape(vv, k)
		}
		return out
	case []any:
		out := make([]any, len(x))
		for i, vv := range x {
			out[i] = shape(vv, key)
		}
		return out
	case string:
		if stableKeys[key] {
			return x
		}
		return "<string>"
	case float64:
		if stableKeys[key] {
			return x
		}
		return "<number>"
	}
	return v
}

func shapeJSON(t *testing.T, raw json.RawMessage) string {
	t.Helper()
	var v any
	if err := json.Unmarshal(raw, &v); err != nil {
		t.Fatalf("%v: %s", err, raw)
	}
	b, _ := json.Marshal(shape(v, ""))
	return string(b)
}

// journey runs submit → wait → output → kill → wait through c and returns
// the shape of every step's result (or error).
func journey(t *testing.T, c *mcpClient) []string {
	t.Helper()
	var steps []string
	step := func(o *mcpOp) {
		if o.OK {
			steps = append(steps, shapeJSON(t, o.Result))
			return
		}
		b, _ := json.Marshal(map[string]any{"code": o.Error.Code, "details_code": o.Error.Details["code"]})
		steps = append(steps, "error "+string(b))
	}
	fp := c.help("agent.submit").SchemaFingerprint
	var done submitted
	o := c.must(&done, "agent.submit", map[string]any{"model": "echo", "prompt": "parity"}, fp)
	step(o)
	var w waitData
	step(c.must(&w, "job.wait", map[string]any{"ids": []any{done.ID}, "max_wait_seconds": 60.0, "poll_interval_seconds": 0.1}, ""))
	if !w.AllTerminal || w.Entries[0].Outcome != "succeeded" {
		t.Fatalf("job.wait of an echo run: %+v", w)
	}
	step(c.must(nil, "job.output", map[string]any{"id": done.ID}, ""))

	var slow submitted
	step(c.must(&slow, "agent.submit", map[string]any{"model": "slow", "prompt": "stop me"}, fp))
	e := &env{t: t, home: c.home}
	e.waitStarted(slow.ID)
	step(c.must(nil, "job.kill", map[string]any{"id": slow.ID[:8], "grace": "1s"}, ""))
	step(c.must(&w, "job.wait", map[string]any{"ids": []any{slow.ID, "0000000000000000"}, "max_wait_seconds": 30.0}, ""))
	if w.Entries[0].Outcome != "cancelled" || w.Entries[1].Error == nil {
		t.Fatalf("job.wait of a killed run and an unknown id: %+v", w)
	}
	step(c.op("job.kill", map[string]any{"id": "0000000000000000"}, ""))
	step(c.op("job.kill", map[string]any{"id": slow.ID, "grace": "soon"}, ""))
	step(c.op("job.wait", map[string]any{"ids": []any{}}, ""))
	return steps
}

// TestParityJourney: submit → wait → output → kill, a wait on the killed
// run and an unknown id, and three refusals give the same results (shapes,
// statuses, outcomes, codes; not ids or times) through both servers.
// limcp mcp runs with --no-notify: its notify endpoint (a run's record
// then names the URL) is one of its Go-only extras.
func TestParityJourney(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.writeFile("providers.yaml", slowProviders)
	l, f := parityPair(t, e, "--no-notify")
	ls, fs := journey(t, l), journey(t, f)
	for i, s := range fs {
		t.Logf("step %d: %.300s", i, s)
	}
	names := []string{"submit", "wait", "output", "submit slow", "kill", "wait killed", "kill unknown", "kill bad grace", "wait no ids"}
	for i := range ls {
		if ls[i] != fs[i] {
			t.Errorf("%s differs:\nlimcp mcp:         %s\nverbsurface serve: %s", names[i], ls[i], fs[i])
		}
	}
	if len(ls) != len(names) || len(fs) != len(names) {
		t.Fatalf("journeys of %d and %d steps; want %d", len(ls), len(fs), len(names))
	}
	l.cs.Close()
	f.cs.Close()
	e.assertNoProcesses(10 * time.Second)
}

// TestParityStoredCommandGuard: a schedule whose stored command names a
// file (issue 25's read of /etc/shadow through a tick) is refused through
// both fronts and stored by neither; so is one setting an excluded flag;
// a plain one is stored by both.
func TestParityStoredCommandGuard(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	l, f := parityPair(t, e, "--no-notify")
	for i, tc := range []struct {
		name    string
		command []any
		refused bool
	}{
		{"a stored command naming a file", []any{"agent", "--prompt-file", "/etc/shadow", "--cwd=/", "echo"}, true},
		{"a stored command naming a directory", []any{"agent", "--cwd=/", "echo", "hi"}, true},
		{"a stored command setting an excluded flag", []any{"agent", "--home=/tmp/elsewhere", "echo", "hi"}, true},
		{"a stored command that is not a spawn command", []any{"kill", "abcdefgh"}, true},
		{"a plain stored command", []any{"agent", "echo", "hi"}, false},
	} {
		for _, side := range []struct {
			name string
			c    *mcpClient
		}{{"limcp mcp", l}, {"verbsurface serve", f}} {
			name := fmt.Sprintf("s%d-%s", i, strings.Fields(side.name)[0])
			o := side.c.op("schedule.add", map[string]any{"name": name, "cron": "0 3 * * *", "command": tc.command}, "")
			if tc.refused == o.OK {
				t.Errorf("%s through %s: ok=%v %s", tc.name, side.name, o.OK, o.raw)
			}
			if o.OK == tc.refused {
				continue
			}
			var list struct {
				Schedules []struct{ Name string } `json:"schedules"`
			}
			side.c.must(&list, "schedule.list", map[string]any{}, "")
			stored := false
			for _, s := range list.Schedules {
				stored = stored || s.Name == name
			}
			if stored == tc.refused {
				t.Errorf("%s through %s: stored=%v", tc.name, side.name, stored)
			}
		}
	}
}
