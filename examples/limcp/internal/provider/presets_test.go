//go:build unix

package provider

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/verbsurface/verbsurface/examples/limcp/internal/machine"
)

// onPath puts executables named names into a new directory and makes it
// the whole PATH.
func onPath(t *testing.T, names ...string) string {
	t.Helper()
	dir := t.TempDir()
	for _, n := range names {
		if err := os.WriteFile(filepath.Join(dir, n), []byte("#!/bin/sh\nexit 0\n"), 0o700); err != nil {
			t.Fatal(err)
		}
	}
	t.Setenv("PATH", dir)
	return dir
}

// TestPresetArgv pins each preset's invocation, with and without a model:
// the documented non-interactive mode, machine output, the prompt on
// stdin (never in argv), and no permission-bypass flag.
func TestPresetArgv(t *testing.T) {
	bin := onPath(t, "claude", "codex", "gemini")
	h := homeWith(t, "")
	tests := []struct {
		model  string
		argv   []string
		output string
		env    []string
	}{
		{"claude:sonnet", []string{bin + "/claude", "-p", "--output-format", "json", "--model", "sonnet"}, OutputClaudeJSON, []string{"ANTHROPIC_API_KEY"}},
		{"claude", []string{bin + "/claude", "-p", "--output-format", "json"}, OutputClaudeJSON, []string{"ANTHROPIC_API_KEY"}},
		{"codex:gpt-5-codex", []string{bin + "/codex", "exec", "--json", "--model", "gpt-5-codex", "-"}, OutputCodexJSONL, []string{"OPENAI_API_KEY", "CODEX_HOME"}},
		{"codex", []string{bin + "/codex", "exec", "--json", "-"}, OutputCodexJSONL, []string{"OPENAI_API_KEY", "CODEX_HOME"}},
		{"gemini:gemini-2.5-pro", []string{bin + "/gemini", "--output-format", "json", "--model", "gemini-2.5-pro"}, OutputGeminiJSON,
			[]string{"GEMINI_API_KEY", "GOOGLE_API_KEY", "GOOGLE_CLOUD_PROJECT", "GOOGLE_CLOUD_LOCATION", "GOOGLE_GENAI_USE_VERTEXAI", "GOOGLE_APPLICATION_CREDENTIALS"}},
		{"gemini", []string{bin + "/gemini", "--output-format", "json"}, OutputGeminiJSON,
			[]string{"GEMINI_API_KEY", "GOOGLE_API_KEY", "GOOGLE_CLOUD_PROJECT", "GOOGLE_CLOUD_LOCATION", "GOOGLE_GENAI_USE_VERTEXAI", "GOOGLE_APPLICATION_CREDENTIALS"}},
	}
	for _, tt := range tests {
		t.Run(tt.model, func(t *testing.T) {
			r, err := Resolve(h, tt.model)
			if err != nil {
				t.Fatal(err)
			}
			argv, err := r.Expand(Vars{ID: "0123456789abcdef", Cwd: "/src", RunDir: "/runs/x"})
			if err != nil {
				t.Fatal(err)
			}
			if d := cmp.Diff(tt.argv, argv); d != "" {
				t.Fatalf("argv (-want +got):\n%s", d)
			}
			name, _, _ := strings.Cut(tt.model, ":")
			if r.Output != tt.output || r.Preset != name || r.Provider != name {
				t.Fatalf("output %q preset %q provider %q", r.Output, r.Preset, r.Provider)
			}
			if d := cmp.Diff(tt.env, r.Env); d != "" {
				t.Fatalf("env (-want +got):\n%s", d)
			}
		})
	}
}

// TestNoPresetBypassesPermissions: no preset's template holds a flag that
// skips permission prompts, approvals or the sandbox, in any spelling the
// three programs document.
func TestNoPresetBypassesPermissions(t *testing.T) {
	bypass := []string{"--dangerously-skip-permissions", "--permission-mode", "--yolo", "-y", "--approval-mode",
		"--full-auto", "--dangerously-bypass-approvals-and-sandbox", "--sandbox", "-s", "--allowedTools", "--skip-git-repo-check"}
	for _, p := range Presets() {
		for _, a := range p.Template(true) {
			for _, b := range bypass {
				if a == b || strings.HasPrefix(a, b+"=") {
					t.Errorf("preset %s passes %s", p.Name, a)
				}
			}
		}
	}
}

// TestPresetNotOnPath: a preset whose program is not on PATH is
// provider_not_found, naming the program and what to do.
func TestPresetNotOnPath(t *testing.T) {
	onPath(t)
	_, err := Resolve(homeWith(t, ""), "codex:gpt-5")
	me, ok := machine.As(err)
	if !ok || me.Code != machine.ProviderNotFound {
		t.Fatalf("Resolve = %v; want provider_not_found", err)
	}
	d := me.Details.(map[string]any)
	if d["command"] != "codex" || d["preset"] != true || !strings.Contains(err.Error(), `"codex"`) || !strings.Contains(err.Error(), "Codex CLI") {
		t.Fatalf("error %v, details %v; want the program named", err, d)
	}
}

// TestProvidersYamlOverridesAndDisablesPresets: an entry of a preset's
// name replaces it whole; `disabled: true` removes it; a model naming a
// disabled preset is provider_not_found saying so.
func TestProvidersYamlOverridesAndDisablesPresets(t *testing.T) {
	bin := onPath(t, "claude", "codex", "gemini")
	h := homeWith(t, "providers:\n"+
		"  - name: claude\n    argv: [claude, -p, --output-format, json, --permission-mode, acceptEdits, --model, \"{model}\"]\n    output: claude-json\n    env: [MY_KEY]\n"+
		"  - name: gemini\n    disabled: true\n")
	r, err := Resolve(h, "claude:opus")
	if err != nil {
		t.Fatal(err)
	}
	argv, _ := r.Expand(Vars{ID: "i", Cwd: "/c", RunDir: "/r"})
	if d := cmp.Diff([]string{bin + "/claude", "-p", "--output-format", "json", "--permission-mode", "acceptEdits", "--model", "opus"}, argv); d != "" {
		t.Fatalf("override argv (-want +got):\n%s", d)
	}
	if r.Preset != "" || r.Output != OutputClaudeJSON || !cmp.Equal(r.Env, []string{"MY_KEY"}) {
		t.Fatalf("override resolved as %+v", r)
	}
	_, err = Resolve(h, "gemini:x")
	me, ok := machine.As(err)
	if !ok || me.Code != machine.ProviderNotFound || me.Details.(map[string]any)["disabled"] != true || !strings.Contains(err.Error(), "disabled") {
		t.Fatalf("disabled preset: %v", err)
	}
	if _, err := Resolve(h, "codex"); err != nil {
		t.Fatalf("an untouched preset: %v", err)
	}
	cfg, _ := LoadConfig(h)
	names := cfg.EnvNames()
	for _, n := range []string{"MY_KEY", "OPENAI_API_KEY"} {
		if !contains(names, n) {
			t.Errorf("EnvNames %v lacks %s", names, n)
		}
	}
	for _, n := range []string{"ANTHROPIC_API_KEY", "GEMINI_API_KEY"} {
		if contains(names, n) {
			t.Errorf("EnvNames %v keeps %s of an overridden or disabled preset", names, n)
		}
	}
}

func contains(s []string, x string) bool {
	for _, v := range s {
		if v == x {
			return true
		}
	}
	return false
}

func TestPresetConfigRules(t *testing.T) {
	tests := []struct{ name, config, field string }{
		{"only a preset can be disabled", "providers:\n  - {name: local, disabled: true}\n", "providers[0].disabled"},
		{"a disabled preset has no argv", "providers:\n  - {name: claude, disabled: true, argv: [x]}\n", "providers[0].disabled"},
		{"an unknown output format", "providers:\n  - {name: local, argv: [x], output: xml}\n", "providers[0].output"},
		{"an override still needs argv", "providers:\n  - {name: codex}\n", "providers[0].argv"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := LoadConfig(homeWith(t, tt.config))
			me, ok := machine.As(err)
			if !ok || me.Code != machine.InvalidProviderConfig || me.Details.(map[string]any)["field"] != tt.field {
				t.Fatalf("LoadConfig = %v; want invalid_provider_config on %q", err, tt.field)
			}
		})
	}
}

// TestAvailabilities: each provider a model can name, usable or not and
// why, as state doctor and the model description report them.
func TestAvailabilities(t *testing.T) {
	bin := onPath(t, "claude")
	cfg := Config{Providers: []CommandProvider{
		{Name: "local", Argv: []string{"/nonexistent/agent"}},
		{Name: "gemini", Disabled: true},
	}}
	got := Availabilities(cfg, LookPathIn(bin))
	want := []Availability{
		{Name: "local", Source: SourceConfig, Command: "/nonexistent/agent", Reason: "/nonexistent/agent does not exist"},
		{Name: "gemini", Program: "Gemini CLI", Source: SourceDisabled, Reason: "disabled in providers.yaml"},
		{Name: "claude", Program: "Claude Code", Source: SourcePreset, Command: "claude", Usable: true, Path: bin + "/claude"},
		{Name: "codex", Program: "Codex CLI", Source: SourcePreset, Command: "codex", Reason: `"codex" is not on PATH`},
	}
	if d := cmp.Diff(want, got, cmpIgnoreDocs); d != "" {
		t.Fatalf("Availabilities (-want +got):\n%s", d)
	}
	help := ModelHelp(got)
	for _, s := range []string{"echo (built in", "claude or claude:MODEL (Claude Code)", `codex ("codex" is not on PATH)`, "gemini (disabled in providers.yaml)"} {
		if !strings.Contains(help, s) {
			t.Errorf("ModelHelp lacks %q:\n%s", s, help)
		}
	}
}

var cmpIgnoreDocs = cmp.Transformer("nodocs", func(a Availability) Availability { a.Needs, a.Doc = "", ""; return a })

// TestLookPathIn: only executable regular files are found, in PATH order.
func TestLookPathIn(t *testing.T) {
	a, b := t.TempDir(), t.TempDir()
	os.WriteFile(filepath.Join(a, "tool"), []byte("x"), 0o600) // not executable
	os.WriteFile(filepath.Join(b, "tool"), []byte("x"), 0o700)
	os.Mkdir(filepath.Join(a, "dir"), 0o700)
	look := LookPathIn(a + ":" + b)
	if p, err := look("tool"); err != nil || p != filepath.Join(b, "tool") {
		t.Fatalf("tool = %q, %v; want the executable one", p, err)
	}
	if _, err := look("dir"); err == nil {
		t.Fatal("a directory was found as a command")
	}
	if p, err := look(filepath.Join(b, "tool")); err != nil || p != filepath.Join(b, "tool") {
		t.Fatalf("a path = %q, %v", p, err)
	}
}
