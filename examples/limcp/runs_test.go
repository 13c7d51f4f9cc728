//go:build unix

package main

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/verbsurface/verbsurface/examples/limcp/internal/store"
)

// auditPath returns "from→to(actor)" for each audit row of id.
func auditPath(t *testing.T, st *store.Store, id string) []string {
	t.Helper()
	rows, err := st.Audit(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, r := range rows {
		out = append(out, fmt.Sprintf("%s→%s(%s)", r.FromStatus, r.ToStatus, r.Actor))
	}
	return out
}

func TestAgentRunLifecycle(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	s := e.submit("agent", "echo", "hello from a test", "--label", "greeting")
	if s.Kind != "invocation" || s.PGID != s.PID {
		t.Fatalf("submit = %+v; want an invocation whose worker leads its own group", s)
	}
	sum := sha256.Sum256([]byte("hello from a test"))
	if s.Prompt.SHA256 != hex.EncodeToString(sum[:]) || s.Prompt.Bytes != 17 {
		t.Fatalf("prompt snapshot = %+v", s.Prompt)
	}
	r := e.waitTerminal(s.ID)
	if r.Status != "completed" || r.ReasonCode != "run.completed.exit_0" || r.Outcome != "succeeded" || r.ExitCode == nil || *r.ExitCode != 0 {
		t.Fatalf("record = %+v", r)
	}
	if r.PID == nil || *r.PID != s.PID || r.PGID == nil || *r.PGID != s.PID || r.StartTime == nil || *r.StartTime == 0 || r.Phase != "started" || r.Label != "greeting" {
		t.Fatalf("record lacks the worker's identity: %+v", r)
	}
	// The record existed (preparing, written by the CLI) before the worker
	// recorded itself: the audit shows creation, then the worker's start.
	want := []string{"→preparing(cli)", "preparing→running(worker)", "running→completed(worker)"}
	if d := cmp.Diff(want, auditPath(t, e.store(), s.ID)); d != "" {
		t.Fatalf("audit (-want +got):\n%s", d)
	}
	var out struct {
		Stdout string `json:"stdout"`
	}
	e.ok(&out, "job", "output", s.ID)
	if out.Stdout != "hello from a test" {
		t.Fatalf("output = %q", out.Stdout)
	}
}

func TestRunEnds(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.writeFile("providers.yaml", `providers:
  - name: upper
    argv: ["tr", "a-z", "A-Z"]
  - name: slowcmd
    argv: ["sh", "-c", "cat >/dev/null; sleep 30"]
  - name: fails
    argv: ["sh", "-c", "cat >/dev/null; echo boom >&2; exit 7"]
`)
	tests := []struct {
		name     string
		args     []string
		status   string
		reason   string
		exit     *int
		stdout   string
		stderrIn string
	}{
		{name: "exit 0 is completed", args: []string{"agent", "echo", "ok"}, status: "completed", reason: "run.completed.exit_0", exit: ptr(0), stdout: "ok"},
		{name: "a non-zero exit is failed with its code", args: []string{"agent", "echo:exit=3,stderr=bad", "x"}, status: "failed", reason: "run.failed.exit_nonzero", exit: ptr(3), stderrIn: "bad"},
		{name: "the deadline is timed_out", args: []string{"agent", "echo:delay=30s", "x", "--timeout", "300ms"}, status: "timed_out", reason: "run.timed_out.deadline"},
		{name: "a command provider reads the prompt on stdin", args: []string{"agent", "upper", "shout this"}, status: "completed", reason: "run.completed.exit_0", exit: ptr(0), stdout: "SHOUT THIS"},
		{name: "a command provider's failure is failed with its code", args: []string{"agent", "fails", "x"}, status: "failed", reason: "run.failed.exit_nonzero", exit: ptr(7), stderrIn: "boom"},
		{name: "a command provider past its deadline is timed_out and its group stopped", args: []string{"agent", "slowcmd", "x", "--timeout", "300ms"}, status: "timed_out", reason: "run.timed_out.deadline"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := &env{t: t, home: e.home}
			s := e.submit(tt.args...)
			r := e.waitTerminal(s.ID)
			if r.Status != tt.status || r.ReasonCode != tt.reason {
				t.Fatalf("ended %s (%s); want %s (%s)", r.Status, r.ReasonCode, tt.status, tt.reason)
			}
			if (tt.exit == nil) != (r.ExitCode == nil) || tt.exit != nil && *tt.exit != *r.ExitCode {
				t.Fatalf("exit code %v; want %v", r.ExitCode, tt.exit)
			}
			var out struct{ Stdout, Stderr string }
			e.ok(&out, "job", "output", s.ID)
			if tt.stdout != "" && out.Stdout != tt.stdout || !strings.Contains(out.Stderr, tt.stderrIn) {
				t.Fatalf("output %+v; want stdout %q, stderr containing %q", out, tt.stdout, tt.stderrIn)
			}
		})
	}
	e.assertNoProcesses(5 * time.Second) // the timed-out provider's group was stopped
}

func ptr[T any](v T) *T { return &v }

func TestFanoutWithSynthesis(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	s := e.submit("fanout", "echo", "same question", "-n", "3", "--with-synthesis", "echo")
	r := e.waitTerminal(s.ID)
	if r.Kind != "session" || r.Status != "completed" || r.ReasonCode != "run.completed.all_steps" {
		t.Fatalf("session = %+v", r)
	}
	if len(r.Children) != 4 {
		t.Fatalf("session has %d children; want 3 invocations and a synthesis", len(r.Children))
	}
	synth := e.status(r.Children[3])
	if synth.Label != "synthesis" || synth.Status != "completed" || synth.Parent == nil || *synth.Parent != s.ID {
		t.Fatalf("synthesis = %+v", synth)
	}
	var out struct{ Stdout string }
	e.ok(&out, "job", "output", synth.ID)
	for _, step := range []string{"1", "2", "3"} {
		if !strings.Contains(out.Stdout, "--- output of "+step+" ---\nsame question") {
			t.Fatalf("synthesis was not fed the output of step %s:\n%s", step, out.Stdout)
		}
	}
}

func TestFlowPassesOutputsAndAbortsDependents(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	spec := e.writeFile("flow.yaml", `steps:
  - id: research
    model: echo
    prompt: "research {{.prompt}}"
  - id: summary
    model: echo
    prompt: "summarise"
    depends_on: [research]
  - id: broken
    model: "echo:exit=1"
    prompt: "fail"
  - id: after_broken
    model: echo
    prompt: "never"
    depends_on: [broken, research]
`)
	s := e.submit("flow", "--spec", spec, "the topic")
	r := e.waitTerminal(s.ID)
	if r.Status != "failed" || r.ReasonCode != "run.failed.step_failed" || len(r.Children) != 4 {
		t.Fatalf("flow session = %+v", r)
	}
	byLabel := map[string]record{}
	for _, id := range r.Children {
		c := e.status(id)
		byLabel[c.Label] = c
	}
	var out struct{ Stdout string }
	e.ok(&out, "job", "output", byLabel["summary"].ID)
	if out.Stdout != "summarise\n\n--- output of research ---\nresearch the topic" {
		t.Fatalf("summary did not get research's output: %q", out.Stdout)
	}
	if a := byLabel["after_broken"]; a.Status != "aborted" || a.ReasonCode != "run.aborted.dependency_failed" || a.PID != nil {
		t.Fatalf("dependent of a failed step = %+v; want aborted without a process", a)
	}
	if b := byLabel["broken"]; b.Status != "failed" {
		t.Fatalf("broken = %+v", b)
	}
}

func TestFlowSpecErrorsNameTheField(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	tests := []struct {
		name, spec, field string
	}{
		{"a cycle", "steps:\n  - {id: a, model: echo, prompt: x, depends_on: [b]}\n  - {id: b, model: echo, prompt: x, depends_on: [a]}\n", "steps"},
		{"an unknown dependency", "steps:\n  - {id: a, model: echo, prompt: x, depends_on: [zz]}\n", "steps[0].depends_on[0]"},
		{"a duplicate id", "steps:\n  - {id: a, model: echo, prompt: x}\n  - {id: a, model: echo, prompt: y}\n", "steps[1].id"},
		{"a missing model", "steps:\n  - {id: a, prompt: x}\n", "steps[0].model"},
		{"an unknown field", "steps:\n  - {id: a, model: echo, prompt: x, dependson: [b]}\n", ""},
		{"a bad template", "steps:\n  - {id: a, model: echo, prompt: '{{.prompt'}\n", "steps[0].prompt"},
		{"an unknown provider", "steps:\n  - {id: a, model: nosuch, prompt: x}\n", "steps[0].model"},
	}
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := &env{t: t, home: e.home}
			path := e.writeFile(fmt.Sprintf("spec%d.yaml", i), tt.spec)
			code := "invalid_flow_spec"
			if tt.name == "an unknown provider" {
				code = "provider_not_found"
			}
			r := e.fail(code, "flow", "--spec", path, "p")
			if !strings.Contains(string(r.Error.Details), `"field":"`+tt.field+`"`) || !strings.Contains(string(r.Error.Details), path) {
				t.Fatalf("details %s do not name file %s and field %q", r.Error.Details, path, tt.field)
			}
		})
	}
}

const auditPlaybook = `description: Audit a target
args:
  - name: depth
    type: int
    default: 2
    help: how deep to look
    choices: [1, 2, 3]
  - name: target
    type: str
    required: true
  - name: strict
    type: bool
flow:
  steps:
    - id: scan
      model: echo
      prompt: "scan {{.args.target}} depth {{.args.depth}} strict {{.args.strict}}: {{.prompt}}"
`

func TestPlayInjectsPlaybookArgs(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	path := e.writeFile("playbooks/audit.playbook.yaml", auditPlaybook)
	content, _ := os.ReadFile(path)
	sum := sha256.Sum256(content)
	wantFP := "pf1-" + hex.EncodeToString(sum[:])[:16]

	var help struct{ Help string }
	e.ok(&help, "play", "audit", "--help")
	for _, flag := range []string{"--depth", "--target", "--strict", "how deep to look (one of 1, 2, 3)"} {
		if !strings.Contains(help.Help, flag) {
			t.Fatalf("play audit --help lacks %q:\n%s", flag, help.Help)
		}
	}
	s := e.submit("play", "audit", "--target", "repo", "--depth=3", "--strict", "--", "look closely")
	if s.Kind != "play" || s.PlaybookFingerprint != wantFP || s.Session == "" {
		t.Fatalf("play submit = %+v; want fingerprint %s", s, wantFP)
	}
	p := e.waitTerminal(s.ID)
	if p.Status != "completed" || len(p.Children) != 1 || p.Children[0] != s.Session {
		t.Fatalf("play = %+v", p)
	}
	sess := e.status(s.Session)
	if sess.Kind != "session" || sess.Status != "completed" || *sess.PID != *p.PID {
		t.Fatalf("session = %+v; want completed, run by the play's worker", sess)
	}
	var out struct{ Stdout string }
	e.ok(&out, "job", "output", sess.Children[0])
	if out.Stdout != "scan repo depth 3 strict true: look closely" {
		t.Fatalf("the step saw %q", out.Stdout)
	}

	e.fail("usage_error", "play", "audit", "go")                                  // --target is required
	e.fail("usage_error", "play", "audit", "--target", "x", "--depth", "7", "go") // not a choice
	e.fail("usage_error", "play", "audit", "--target", "x", "--depth", "deep", "go")
}

func TestPlaybookErrorsNameFileAndField(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	tests := []struct {
		name, content, field string
	}{
		{"malformed YAML", "description: [unclosed\n", ""},
		{"an unknown type", "args:\n  - {name: n, type: list}\nflow: {steps: [{id: a, model: echo, prompt: x}]}\n", "args[0].type"},
		{"a default of the wrong type", "args:\n  - {name: n, type: int, default: many}\nflow: {steps: [{id: a, model: echo, prompt: x}]}\n", "args[0].default"},
		{"a default outside the choices", "args:\n  - {name: n, type: int, default: 5, choices: [1, 2]}\nflow: {steps: [{id: a, model: echo, prompt: x}]}\n", "args[0].default"},
		{"an arg colliding with play's own flag", "args:\n  - {name: timeout, type: str}\nflow: {steps: [{id: a, model: echo, prompt: x}]}\n", "args[0].name"},
		{"an arg colliding with a positional", "args:\n  - {name: prompt, type: str}\nflow: {steps: [{id: a, model: echo, prompt: x}]}\n", "args[0].name"},
		{"an empty flow", "description: nothing\n", "flow.steps"},
		{"a flow cycle", "flow: {steps: [{id: a, model: echo, prompt: x, depends_on: [a]}]}\n", "flow.steps[0].depends_on[0]"},
		{"an unknown top-level field", "descripton: typo\nflow: {steps: [{id: a, model: echo, prompt: x}]}\n", ""},
	}
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := &env{t: t, home: e.home}
			name := fmt.Sprintf("bad%d", i)
			e.writeFile("playbooks/"+name+".playbook.yaml", tt.content)
			r := e.fail("invalid_playbook", "play", name, "go")
			// The file is named relative to the state home: these errors
			// reach MCP callers, who name playbooks, not server paths.
			shown := "playbooks/" + name + ".playbook.yaml"
			details := string(r.Error.Details)
			if !strings.Contains(details, `"field":"`+tt.field+`"`) || !strings.Contains(details, `"file":"`+shown+`"`) || strings.Contains(details, e.home) {
				t.Fatalf("details %s do not name file %s and field %q", details, shown, tt.field)
			}
			if !strings.Contains(r.Error.Message, shown) || strings.Contains(r.Error.Message, e.home) {
				t.Fatalf("message %q does not name the file as %s", r.Error.Message, shown)
			}
		})
	}
}

func TestShowGroupsPlaysAndIsNeverKilled(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.writeFile("playbooks/slow.playbook.yaml", "flow: {steps: [{id: a, model: 'echo:delay=1s', prompt: x}]}\n")
	a := e.submit("play", "slow", "one", "--show", "nightly")
	b := e.submit("play", "slow", "two", "--show", "nightly")
	if a.Show == "" || a.Show != b.Show {
		t.Fatalf("plays of one show have shows %q and %q", a.Show, b.Show)
	}
	r := e.fail("show_kill_unsupported", "kill", a.Show)
	if !strings.Contains(string(r.Error.Details), a.ID) || !strings.Contains(string(r.Error.Details), b.ID) {
		t.Fatalf("refusal does not list the show's plays: %s", r.Error.Details)
	}
	if st := e.status(a.Show); st.Kind != "show" || st.Terminal {
		t.Fatalf("show = %+v; want open while its plays run", st)
	}
	e.waitTerminal(a.ID)
	e.waitTerminal(b.ID)
	sh := e.waitTerminal(a.Show)
	if sh.Status != "completed" || sh.ReasonCode != "show.completed.plays_ended" || len(sh.Children) != 2 {
		t.Fatalf("show after its plays ended = %+v", sh)
	}
}

func TestJobOutputIsBounded(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	prompt := filepath.Join(e.home, "big.txt")
	var b strings.Builder
	for i := 0; b.Len() < 100<<10; i++ {
		fmt.Fprintf(&b, "line %d\n", i)
	}
	if err := os.WriteFile(prompt, []byte(b.String()), 0o600); err != nil {
		t.Fatal(err)
	}
	s := e.submit("agent", "echo", "--prompt-file", prompt)
	e.waitTerminal(s.ID)
	var out struct {
		Stdout      string `json:"stdout"`
		StdoutBytes int    `json:"stdout_bytes"`
		Truncated   bool   `json:"truncated"`
	}
	e.ok(&out, "job", "output", s.ID)
	if len(out.Stdout) != 64<<10 || out.StdoutBytes != b.Len() || !out.Truncated || !strings.HasSuffix(b.String(), out.Stdout) {
		t.Fatalf("bounded output: %d bytes of %d, truncated %v", len(out.Stdout), out.StdoutBytes, out.Truncated)
	}
	e.ok(&out, "job", "output", s.ID, "--tail", "2")
	lines := strings.Split(strings.TrimSuffix(b.String(), "\n"), "\n")
	if want := strings.Join(lines[len(lines)-2:], "\n") + "\n"; out.Stdout != want {
		t.Fatalf("--tail 2 = %q; want %q", out.Stdout, want)
	}
}

func TestJobListPaginates(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	st := e.store()
	want := map[string]bool{}
	for i := 0; i < 25; i++ {
		recs, err := st.Create(context.Background(), store.CreateOptions{}, store.NewRecord{Kind: store.KindInvocation, Label: fmt.Sprint(i)})
		if err != nil {
			t.Fatal(err)
		}
		want[recs[0].ID] = true
	}
	got := map[string]bool{}
	cursor := ""
	for pages := 1; ; pages++ {
		args := []string{"job", "list", "--limit", "10"}
		if cursor != "" {
			args = append(args, "--cursor", cursor)
		}
		var page struct {
			Records    []record `json:"records"`
			NextCursor *string  `json:"next_cursor"`
		}
		e.ok(&page, args...)
		for _, r := range page.Records {
			if got[r.ID] {
				t.Fatalf("record %s on two pages", r.ID)
			}
			got[r.ID] = true
		}
		if page.NextCursor == nil {
			if pages != 3 {
				t.Fatalf("%d pages; want 3", pages)
			}
			break
		}
		cursor = *page.NextCursor
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Fatalf("listed records (-want +got):\n%s", d)
	}
}

// TestOutputOfAContainerShowsItsChildren: job output of a play (or a
// session) returns the outputs of the runs under it, each bounded, in
// creation order; when together they exceed the budget, it lists every
// child with the request that reads it instead of cutting some away.
func TestOutputOfAContainerShowsItsChildren(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.writeFile("playbooks/two.playbook.yaml", "flow: {steps: [{id: a, model: echo, prompt: \"a says {{.prompt}}\"}, {id: b, model: echo, prompt: \"b\", depends_on: [a]}]}\n")
	var play submitted
	e.ok(&play, "play", "two", "hello")
	e.waitTerminal(play.ID)
	type child struct {
		ID       string         `json:"id"`
		Label    string         `json:"label"`
		Stdout   *string        `json:"stdout"`
		ReadWith map[string]any `json:"read_with"`
	}
	var out struct {
		ID             string  `json:"id"`
		Kind           string  `json:"kind"`
		Children       []child `json:"children"`
		ChildrenInline bool    `json:"children_inline"`
	}
	e.ok(&out, "job", "output", play.ID)
	if out.Kind != "play" || !out.ChildrenInline || len(out.Children) != 2 || out.Children[0].Label != "a" ||
		out.Children[0].Stdout == nil || *out.Children[0].Stdout != "a says hello" || !strings.HasPrefix(*out.Children[1].Stdout, "b") {
		t.Fatalf("job output of a play: %+v", out)
	}

	// Five children of 20 KiB each: 16 KiB kept of each would still be
	// 80 KiB together, over the 64 KiB budget.
	var fan submitted
	e.ok(&fan, "fanout", "echo", strings.Repeat("x", 20<<10), "-n", "5")
	e.waitTerminal(fan.ID)
	out.Children, out.ChildrenInline = nil, false
	e.ok(&out, "job", "output", fan.ID)
	if out.ChildrenInline || len(out.Children) != 5 {
		t.Fatalf("job output of a large fanout: inline %v, %d children", out.ChildrenInline, len(out.Children))
	}
	for _, c := range out.Children {
		args, _ := c.ReadWith["args"].(map[string]any)
		if c.Stdout != nil || c.ReadWith["op"] != "job.output" || args["id"] != c.ID {
			t.Errorf("a listed child: %+v", c)
		}
	}
}
