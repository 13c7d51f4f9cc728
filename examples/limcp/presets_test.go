//go:build unix

package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/verbsurface/verbsurface/examples/limcp/internal/e2e"
	"github.com/verbsurface/verbsurface/examples/limcp/internal/run"
	"github.com/verbsurface/verbsurface/internal/clientconfig/clienttest"
)

// The preset tests run the built limcp against stand-ins for the agent
// programs (internal/fakeagent, linked as claude, codex and gemini on
// PATH): each checks its argv as the real one does, reads the prompt from
// stdin, answers in the real format, spawns a child and honours SIGTERM
// slowly. TestPresetsAgainstRealPrograms runs the same through the real
// programs, only when VERBSURFACE_TEST_REAL_AGENTS=1 asks for it
// (gating_test.go proves the default suite never starts them).

var (
	fakeOnce sync.Once
	fakeDir  string
	fakeErr  error
)

// fakeAgents returns the directory holding the stand-ins (built once).
func fakeAgents(t *testing.T) string {
	t.Helper()
	fakeOnce.Do(func() {
		if fakeDir, fakeErr = os.MkdirTemp("", "limcp-fakeagent-"); fakeErr == nil {
			fakeErr = e2e.BuildFakeAgents(fakeDir)
		}
	})
	if fakeErr != nil {
		t.Fatal(fakeErr)
	}
	return fakeDir
}

func cleanupFakeAgents() {
	if fakeDir != "" {
		os.RemoveAll(fakeDir)
	}
}

// agentEnv is an env whose limcp commands see extra variables: the PATH
// with the stand-ins first and the directory they log to.
type agentEnv struct {
	*env
	extra []string
	log   string // where the stand-ins log their invocations
	repo  string // a Git working tree to run in (codex requires one)
}

func newAgentEnv(t *testing.T, path string) *agentEnv {
	e := &agentEnv{env: newEnv(t), log: t.TempDir(), repo: t.TempDir()}
	if err := os.Mkdir(filepath.Join(e.repo, ".git"), 0o700); err != nil {
		t.Fatal(err)
	}
	e.extra = []string{"PATH=" + path, "LIMCP_FAKEAGENT_LOG=" + e.log, "ANTHROPIC_API_KEY=key-for-claude", "CANARY_SECRET=canary-presets"}
	return e
}

func withFakes(t *testing.T) *agentEnv {
	return newAgentEnv(t, fakeAgents(t)+":"+os.Getenv("PATH"))
}

// machine runs limcp --json --home HOME args... with the extra variables.
func (e *agentEnv) machine(args ...string) result {
	e.t.Helper()
	cmd := execLimcp(e.env, e.extra, append([]string{"--json", "--home", e.home}, args...)...)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	var r result
	if jerr := json.Unmarshal(out, &r); jerr != nil {
		e.t.Fatalf("limcp %v: %v (%v)\n%s\n%s", args, jerr, err, out, stderr.String())
	}
	r.stderr = stderr.String()
	return r
}

func (e *agentEnv) ok(v any, args ...string) {
	e.t.Helper()
	r := e.machine(args...)
	if !r.OK {
		e.t.Fatalf("limcp %v failed: %s: %s", args, r.Error.Code, r.Error.Message)
	}
	if v != nil {
		if err := json.Unmarshal(r.Data, v); err != nil {
			e.t.Fatal(err)
		}
	}
}

type jobOutput struct {
	Stdout string `json:"stdout"`
	Stderr string `json:"stderr"`
	Error  string `json:"error"`
}

func (e *agentEnv) output(id string) jobOutput {
	e.t.Helper()
	var o jobOutput
	e.ok(&o, "job", "output", id)
	return o
}

type invocation struct {
	Program  string            `json:"program"`
	Argv     []string          `json:"argv"`
	Stdin    string            `json:"stdin"`
	Cwd      string            `json:"cwd"`
	Env      map[string]string `json:"env"`
	PID      int               `json:"pid"`
	ChildPID int               `json:"child_pid"`
}

// invocations waits until n stand-ins have logged and returns their logs.
func (e *agentEnv) invocations(n int) []invocation {
	e.t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		// [0-9]*: the stand-in writes .PID.json and renames it to
		// PID.json once complete; a half-written log is not read.
		files, _ := filepath.Glob(filepath.Join(e.log, "[0-9]*.json"))
		if len(files) >= n {
			var out []invocation
			for _, f := range files {
				b, err := os.ReadFile(f)
				if err != nil {
					e.t.Fatal(err)
				}
				var inv invocation
				if err := json.Unmarshal(b, &inv); err != nil {
					e.t.Fatal(err)
				}
				out = append(out, inv)
			}
			return out
		}
		if time.Now().After(deadline) {
			e.t.Fatalf("%d agent invocations logged; want %d", len(files), n)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// presetCases pin each preset's argv as the program receives it.
var presetCases = []struct {
	model  string
	argv   []string // after argv[0]
	answer string
}{
	{"claude:sonnet", []string{"-p", "--output-format", "json", "--model", "sonnet"}, "claude (model sonnet): fix the failing test"},
	{"codex:gpt-5-codex", []string{"exec", "--json", "--model", "gpt-5-codex", "-"}, "codex (model gpt-5-codex): fix the failing test"},
	{"gemini:gemini-2.5-pro", []string{"--output-format", "json", "--model", "gemini-2.5-pro"}, "gemini (model gemini-2.5-pro): fix the failing test"},
	{"claude", []string{"-p", "--output-format", "json"}, "claude (model default): fix the failing test"},
}

// TestPresetRunsTheAgent: `limcp agent NAME:MODEL "…"` starts the
// program with exactly the preset's argv, the prompt on stdin, in --cwd,
// with the preset's pass-through and no other secret; the run's output is
// the answer extracted from the program's JSON, which is kept as written.
func TestPresetRunsTheAgent(t *testing.T) {
	for _, tc := range presetCases {
		t.Run(tc.model, func(t *testing.T) {
			e := withFakes(t)
			var s submitted
			e.ok(&s, "agent", tc.model, "fix the failing test", "--cwd", e.repo)
			rec := e.waitTerminal(s.ID)
			if rec.Status != "completed" || rec.ReasonCode != "run.completed.exit_0" {
				t.Fatalf("run ended %s %s; stderr: %q", rec.Status, rec.ReasonCode, e.output(s.ID).Stderr)
			}
			if o := e.output(s.ID); o.Stdout != tc.answer || o.Error != "" {
				t.Fatalf("output %+v; want the answer %q", o, tc.answer)
			}
			inv := e.invocations(1)[0]
			name, _, _ := strings.Cut(tc.model, ":")
			if inv.Program != name || inv.Stdin != "fix the failing test" || inv.Cwd != e.repo {
				t.Fatalf("invocation %s, stdin %q, cwd %q", inv.Program, inv.Stdin, inv.Cwd)
			}
			if d := cmp.Diff(tc.argv, inv.Argv); d != "" {
				t.Fatalf("argv (-want +got):\n%s", d)
			}
			if _, ok := inv.Env["CANARY_SECRET"]; ok {
				t.Error("the agent sees a secret no provider passes through")
			}
			if got := inv.Env["ANTHROPIC_API_KEY"]; (name == "claude") != (got == "key-for-claude") {
				t.Errorf("ANTHROPIC_API_KEY=%q reaches %s; only claude's preset passes it through", got, name)
			}
			raw, err := os.ReadFile(filepath.Join(e.home, run.RunsDir, s.ID, run.AgentOutputFile))
			if err != nil || !strings.Contains(string(raw), tc.answer) || !strings.Contains(string(raw), "{") {
				t.Fatalf("the program's JSON is not kept as written: %v\n%s", err, raw)
			}
		})
	}
}

// TestPresetFailures: a non-zero exit is failed with its stderr tail; the
// program's JSON error becomes the run's error text (job output's error
// and the last stderr line); an error reported with exit 0 is still a
// failed run; codex outside a Git repository fails as the real one does.
func TestPresetFailures(t *testing.T) {
	tests := []struct {
		name, model, prompt string
		cwdRepo             bool
		reason              string
		exit                int
		errText             string // job output's error
		stderr              string // in the stderr tail
	}{
		{"a crash is failed with its stderr", "claude:sonnet", "[[crash 3]] go", true, "run.failed.exit_nonzero", 3, "", "panic: the fake claude crashed"},
		{"claude's JSON error is the error text", "claude:sonnet", "[[error Credit balance is too low]] go", true, "run.failed.exit_nonzero", 1, "Credit balance is too low", "claude: Credit balance is too low"},
		{"codex's turn.failed is the error text", "codex:gpt-5", "[[error usage limit reached]] go", true, "run.failed.exit_nonzero", 1, "usage limit reached", "codex: usage limit reached"},
		{"gemini's error object on stderr is the error text", "gemini:gemini-2.5-flash", "[[error Please set an Auth method]] go", true, "run.failed.exit_nonzero", 1, "Please set an Auth method", "gemini: Please set an Auth method"},
		{"an error reported with exit 0 fails the run", "claude:sonnet", "[[error0 max turns reached]] go", true, "run.failed.agent_error", 0, "max turns reached", "claude: max turns reached"},
		{"codex refuses to run outside a Git repository", "codex:gpt-5", "go", false, "run.failed.exit_nonzero", 1, "", "Not inside a trusted directory"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := withFakes(t)
			cwd := e.repo
			if !tt.cwdRepo {
				cwd = t.TempDir()
			}
			var s submitted
			e.ok(&s, "agent", tt.model, tt.prompt, "--cwd", cwd)
			rec := e.waitTerminal(s.ID)
			o := e.output(s.ID)
			if rec.Status != "failed" || rec.ReasonCode != tt.reason || rec.ExitCode == nil || *rec.ExitCode != tt.exit {
				t.Fatalf("run ended %s %s exit %v; want failed %s exit %d\n%+v", rec.Status, rec.ReasonCode, rec.ExitCode, tt.reason, tt.exit, o)
			}
			if o.Error != tt.errText || !strings.Contains(o.Stderr, tt.stderr) {
				t.Fatalf("output %+v; want error %q and %q in stderr", o, tt.errText, tt.stderr)
			}
		})
	}
}

// TestPresetKillLeavesNothing: an agent killed through job.kill over MCP,
// while it works with a child, is cancelled and leaves no process.
func TestPresetKillLeavesNothing(t *testing.T) {
	for _, model := range []string{"claude:sonnet", "codex:gpt-5", "gemini:gemini-2.5-pro"} {
		t.Run(model, func(t *testing.T) {
			e := withFakes(t)
			c := e.dialStdio(nil, e.extra, "--root", e.repo) // cwd is a path argument, confined to the roots
			fp := c.help("agent.submit").SchemaFingerprint
			var s submitted
			c.must(&s, "agent.submit", map[string]any{"model": model, "prompt": "[[sleep 60s]] a long task", "cwd": e.repo}, fp)
			inv := e.invocations(1)[0]
			if inv.ChildPID == 0 {
				t.Fatal("the stand-in started no child")
			}
			c.must(nil, "job.kill", map[string]any{"id": s.ID, "grace": "3s"}, "")
			if rec := e.waitTerminal(s.ID); rec.Status != "cancelled" {
				t.Fatalf("killed run is %s %s", rec.Status, rec.ReasonCode)
			}
			// The MCP server itself carries the tag; only the run must be gone.
			deadline := time.Now().Add(5 * time.Second)
			for _, pid := range []int{inv.PID, inv.ChildPID} {
				for alive(pid) {
					if time.Now().After(deadline) {
						t.Fatalf("process %d of the killed agent survives", pid)
					}
					time.Sleep(20 * time.Millisecond)
				}
			}
		})
	}
}

// alive reports whether pid is a live, non-zombie process.
func alive(pid int) bool {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return false
	}
	i := strings.LastIndexByte(string(b), ')')
	return i > 0 && i+2 < len(b) && b[i+2] != 'Z' && b[i+2] != 'X'
}

// TestPresetOverMCP: agent.submit starts each preset; the output is the
// extracted answer; the model description named them as usable first.
func TestPresetOverMCP(t *testing.T) {
	e := withFakes(t)
	c := e.dialStdio(nil, e.extra, "--root", e.repo) // cwd is a path argument, confined to the roots
	h := c.help("agent.submit")
	var model struct {
		Description string `json:"description"`
	}
	if err := json.Unmarshal(h.Schema.Properties["model"], &model); err != nil {
		t.Fatal(err)
	}
	desc := model.Description
	for _, want := range []string{"echo", "claude or claude:MODEL (Claude Code)", "codex or codex:MODEL (Codex CLI)", "gemini or gemini:MODEL (Gemini CLI)"} {
		if !strings.Contains(desc, want) {
			t.Errorf("model description lacks %q: %s", want, desc)
		}
	}
	for _, tc := range presetCases[:3] {
		var s submitted
		c.must(&s, "agent.submit", map[string]any{"model": tc.model, "prompt": "fix the failing test", "cwd": e.repo}, h.SchemaFingerprint)
		if rec := e.waitTerminal(s.ID); rec.Status != "completed" {
			t.Fatalf("%s: %s %s", tc.model, rec.Status, rec.ReasonCode)
		}
		var o jobOutput
		c.must(&o, "job.output", map[string]any{"id": s.ID}, "")
		if o.Stdout != tc.answer {
			t.Errorf("%s: job.output stdout %q; want %q", tc.model, o.Stdout, tc.answer)
		}
	}
}

// TestPresetNotOnPath: a preset whose program is not on PATH is refused at
// submit with provider_not_found naming the program; nothing is recorded.
func TestPresetNotOnPath(t *testing.T) {
	e := newAgentEnv(t, t.TempDir())
	for _, model := range []string{"claude:sonnet", "codex", "gemini:gemini-2.5-pro"} {
		r := e.machine("agent", model, "hi")
		name, _, _ := strings.Cut(model, ":")
		if r.OK || r.Error.Code != "provider_not_found" || !strings.Contains(r.Error.Message, `"`+name+`"`) || !strings.Contains(r.Error.Message, "not on PATH") {
			t.Fatalf("%s: %+v; want provider_not_found naming %q", model, r.Error, name)
		}
	}
	var l struct {
		Records []json.RawMessage `json:"records"`
	}
	e.ok(&l, "job", "list")
	if len(l.Records) != 0 {
		t.Fatalf("a refused submit recorded %d runs", len(l.Records))
	}
}

// TestPresetOverrideAndDisable: providers.yaml replaces a preset (the
// operator may add a permission flag; the stand-in, like the real program,
// refuses a flag it does not know) or disables it.
func TestPresetOverrideAndDisable(t *testing.T) {
	e := withFakes(t)
	e.writeFile("providers.yaml", "providers:\n"+
		"  - name: claude\n    argv: [claude, -p, --output-format, json, --permission-mode, acceptEdits, --model, \"{model}\"]\n    output: claude-json\n"+
		"  - name: codex\n    argv: [codex, exec, --json, --bogus, -]\n    output: codex-jsonl\n"+
		"  - name: gemini\n    disabled: true\n")
	var s submitted
	e.ok(&s, "agent", "claude:opus", "edit it", "--cwd", e.repo)
	if rec := e.waitTerminal(s.ID); rec.Status != "completed" {
		t.Fatalf("override: %s %s", rec.Status, rec.ReasonCode)
	}
	if d := cmp.Diff([]string{"-p", "--output-format", "json", "--permission-mode", "acceptEdits", "--model", "opus"}, e.invocations(1)[0].Argv); d != "" {
		t.Fatalf("override argv (-want +got):\n%s", d)
	}
	if o := e.output(s.ID); o.Stdout != "claude (model opus): edit it" {
		t.Fatalf("override output %q", o.Stdout)
	}

	e.ok(&s, "agent", "codex", "go", "--cwd", e.repo)
	rec := e.waitTerminal(s.ID)
	if o := e.output(s.ID); rec.Status != "failed" || *rec.ExitCode != 2 || !strings.Contains(o.Stderr, "unexpected argument '--bogus'") {
		t.Fatalf("an unknown flag: %s exit %v, stderr %q", rec.Status, rec.ExitCode, o.Stderr)
	}

	r := e.machine("agent", "gemini:x", "go")
	if r.OK || r.Error.Code != "provider_not_found" || !strings.Contains(r.Error.Message, "disabled") {
		t.Fatalf("disabled preset: %+v", r.Error)
	}
}

// TestDoctorListsPresets: state doctor says which presets are usable here
// and why not.
func TestDoctorListsPresets(t *testing.T) {
	bin := t.TempDir()
	if err := os.Symlink(filepath.Join(fakeAgents(t), "fakeagent"), filepath.Join(bin, "claude")); err != nil {
		t.Fatal(err)
	}
	e := newAgentEnv(t, bin)
	e.writeFile("providers.yaml", "providers:\n  - name: gemini\n    disabled: true\n")
	var d struct {
		Healthy bool `json:"healthy"`
		Checks  []struct {
			Name, Status, Detail string
		} `json:"checks"`
		Providers []struct {
			Name   string `json:"name"`
			Usable bool   `json:"usable"`
			Reason string `json:"reason"`
		} `json:"providers"`
	}
	e.ok(&d, "state", "doctor")
	got := map[string]string{}
	for _, c := range d.Checks {
		got[c.Name] = c.Status + ": " + c.Detail
	}
	for name, want := range map[string]string{
		"preset claude": "ok: usable: Claude Code runs " + bin + "/claude",
		"preset codex":  `warn: not usable: "codex" is not on PATH`,
		"preset gemini": "ok: not usable: disabled in providers.yaml",
	} {
		if !strings.HasPrefix(got[name], want) {
			t.Errorf("check %q = %q; want it to start %q", name, got[name], want)
		}
	}
	if !d.Healthy || len(d.Providers) != 3 {
		t.Fatalf("healthy %v, providers %+v", d.Healthy, d.Providers)
	}
}

// TestPresetsAgainstRealPrograms runs each preset through the real program
// (with its login or key): the run completes with an answer, and a kill
// leaves no process. It spends model calls, so it runs only with
// VERBSURFACE_TEST_REAL_AGENTS=1, and then a program that is not on PATH
// is skipped.
func TestPresetsAgainstRealPrograms(t *testing.T) {
	clienttest.RequireRealAgents(t)
	for _, model := range []string{"claude", "codex", "gemini"} {
		t.Run(model, func(t *testing.T) {
			if _, err := exec.LookPath(model); err != nil {
				t.Skipf("%s is not on PATH (%v): the real program cannot run here; the stand-in tests cover the preset", model, err)
			}
			e := newAgentEnv(t, os.Getenv("PATH"))
			for _, kv := range os.Environ() { // the real keys and logins
				if !strings.HasPrefix(kv, "LIMCP_") {
					e.extra = append(e.extra, kv)
				}
			}
			cwd, _ := os.Getwd()
			var s submitted
			e.ok(&s, "agent", model, "Reply with the single word pong.", "--cwd", cwd, "--timeout", "5m")
			rec := e.waitStatus(s.ID, 6*time.Minute, "an end", func(r record) bool { return r.Terminal })
			if o := e.output(s.ID); rec.Status != "completed" || strings.TrimSpace(o.Stdout) == "" {
				t.Fatalf("%s: %s %s, output %+v", model, rec.Status, rec.ReasonCode, o)
			}
			e.ok(&s, "agent", model, "Count slowly from 1 to 1000, one number per line.", "--cwd", cwd)
			e.waitStarted(s.ID)
			time.Sleep(2 * time.Second)
			e.ok(nil, "kill", s.ID, "--grace", "5s")
			e.assertNoProcesses(10 * time.Second)
		})
	}
}

// TestPresetTimeout: a preset agent past --timeout is timed_out, and
// nothing of it (the agent, its child) is left running.
func TestPresetTimeout(t *testing.T) {
	e := withFakes(t)
	var s submitted
	e.ok(&s, "agent", "gemini:gemini-2.5-flash", "[[sleep 60s]] too long", "--cwd", e.repo, "--timeout", "1s")
	inv := e.invocations(1)[0]
	if rec := e.waitTerminal(s.ID); rec.Status != "timed_out" || rec.ReasonCode != "run.timed_out.deadline" {
		t.Fatalf("run ended %s %s; want timed_out", rec.Status, rec.ReasonCode)
	}
	for _, pid := range []int{inv.PID, inv.ChildPID} {
		deadline := time.Now().Add(10 * time.Second)
		for alive(pid) {
			if time.Now().After(deadline) {
				t.Fatalf("process %d of the timed-out agent survives", pid)
			}
			time.Sleep(20 * time.Millisecond)
		}
	}
}

// TestAgentOutputNotInFormatIsKept: output that is not the format a
// provider is configured for is the run's output as written (nothing is
// lost), with a note on stderr.
func TestAgentOutputNotInFormatIsKept(t *testing.T) {
	e := withFakes(t)
	e.writeFile("providers.yaml", "providers:\n  - name: plain\n    argv: [sh, -c, \"cat >/dev/null; echo not json\"]\n    output: claude-json\n")
	var s submitted
	e.ok(&s, "agent", "plain", "hi")
	if rec := e.waitTerminal(s.ID); rec.Status != "completed" {
		t.Fatalf("run ended %s %s", rec.Status, rec.ReasonCode)
	}
	if o := e.output(s.ID); o.Stdout != "not json\n" || !strings.Contains(o.Stderr, "is not the claude-json it is configured for") {
		t.Fatalf("output %+v", o)
	}
}
