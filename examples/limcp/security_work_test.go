//go:build unix

package main

// End-to-end tests of issue 25's findings about unbounded work (6) and
// unbounded disk (7), each the attack against the built binary.

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/verbsurface/verbsurface/examples/limcp/internal/quota"
)

// runData is the size of the home's run data.
func (e *env) runData() int64 {
	e.t.Helper()
	n, err := quota.DirBytes(filepath.Join(e.home, "runs"))
	if err != nil {
		e.t.Fatal(err)
	}
	return n
}

// TestFlowTemplateWorkIsBounded: a flow spec whose prompt is
// {{range 100000000}}{{range 100000000}}{{end}}{{end}}x held a CPU until
// the 30 s command timeout, with other ops queued behind it. Now the spec
// is refused when it is read, naming the step and the feature, and so is
// a printf that asks for any width; nothing is started.
func TestFlowTemplateWorkIsBounded(t *testing.T) {
	e := newEnv(t)
	root := t.TempDir() // beside the home: no root may hold it
	c := e.dialStdio(nil, nil, "--root", root)
	fp := c.help("flow.submit").SchemaFingerprint
	for _, tt := range []struct{ prompt, refusal string }{
		{"{{range 100000000}}{{range 100000000}}{{end}}{{end}}x", "{{range}} is not allowed"},
		{`{{printf "%0999999999d" 0}}`, "the function printf is not allowed"},
	} {
		spec := writeIn(t, root, "bomb.yaml", "steps:\n  - id: a\n    model: echo\n    prompt: '"+tt.prompt+"'\n")
		o := c.fail("cli_error", "flow.submit", map[string]any{"spec": spec, "prompt": "p"}, fp)
		if o.Error.Details["code"] != "invalid_flow_spec" || !strings.Contains(o.Error.Message, "steps[0].prompt") || !strings.Contains(o.Error.Message, tt.refusal) {
			t.Errorf("%s: %s; want invalid_flow_spec on steps[0].prompt saying %q", tt.prompt, o.raw, tt.refusal)
		}
	}
	if n := e.recordCount(); n != 0 {
		t.Fatalf("%d records; a refused spec started something", n)
	}
}

// TestRunDataIsBounded: one fanout.submit of a 1 MiB prompt, count 16,
// grew the home by 48 MB, and an 8-step flow quoting the prompt by 94 MB;
// nothing capped run data. Now a run whose prompts, rendered, take more
// than limits.run_bytes (16 MiB) is refused whole, and a home whose run
// data would pass limits.home_bytes refuses new runs: limit_reached,
// nothing written.
func TestRunDataIsBounded(t *testing.T) {
	e := newEnv(t)
	root := t.TempDir() // beside the home: no root may hold it
	c := e.dialStdio(nil, nil, "--root", root)
	big := strings.Repeat("p", 1<<20)
	o := c.fail("cli_error", "fanout.submit", map[string]any{"model": "echo", "prompt": big, "count": 16}, c.help("fanout.submit").SchemaFingerprint)
	if o.Error.Details["code"] != "limit_reached" || !strings.Contains(o.Error.Message, "run_bytes") {
		t.Fatalf("fanout of 16 x 1 MiB: %.400s; want limit_reached naming run_bytes", o.raw)
	}
	steps := "steps:\n"
	for _, id := range []string{"a", "b", "c", "d", "e", "f", "g", "h"} {
		steps += "  - {id: " + id + ", model: echo, prompt: '{{.prompt}}{{.prompt}}'}\n"
	}
	spec := writeIn(t, root, "eight.yaml", steps)
	o = c.fail("cli_error", "flow.submit", map[string]any{"spec": spec, "prompt": big}, c.help("flow.submit").SchemaFingerprint)
	if o.Error.Details["code"] != "limit_reached" {
		t.Fatalf("8-step flow: %.400s; want limit_reached", o.raw)
	}
	if n := e.runData(); n != 0 || e.recordCount() != 0 {
		t.Fatalf("refused runs wrote %d bytes and %d records", n, e.recordCount())
	}

	// A home of 1 MiB of run data: the first 600 KiB run fits, and once
	// it has written its output the home is full.
	e.writeFile("config.yaml", "limits: {home_bytes: 1MiB}\n")
	fp := c.help("agent.submit").SchemaFingerprint
	var s submitted
	c.must(&s, "agent.submit", map[string]any{"model": "echo", "prompt": strings.Repeat("q", 600<<10)}, fp)
	e.waitTerminal(s.ID)
	o = c.fail("cli_error", "agent.submit", map[string]any{"model": "echo", "prompt": strings.Repeat("r", 600<<10)}, fp)
	if o.Error.Details["code"] != "limit_reached" || !strings.Contains(o.Error.Message, "home_bytes") {
		t.Fatalf("second run: %.400s; want limit_reached naming home_bytes", o.raw)
	}
	if n := e.recordCount(); n != 1 {
		t.Fatalf("%d records; want the one that fitted", n)
	}
}

// writeIn writes a file in dir and returns its path.
func writeIn(t *testing.T, dir, name, body string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}
