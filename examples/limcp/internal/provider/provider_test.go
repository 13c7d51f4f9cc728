//go:build unix

package provider

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/verbsurface/verbsurface/examples/limcp/internal/machine"
)

func homeWith(t *testing.T, config string) string {
	t.Helper()
	h := t.TempDir()
	if config != "" {
		if err := os.WriteFile(filepath.Join(h, ConfigFile), []byte(config), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	return h
}

func TestResolve(t *testing.T) {
	h := homeWith(t, "providers:\n  - name: local\n    argv: [\"sh\", \"-c\", \"cat\", \"{model}\"]\n  - name: ghost\n    argv: [\"/nonexistent/agent\"]\n")
	tests := []struct {
		name  string
		model string
		want  *Resolved
		code  machine.Code
	}{
		{name: "echo is built in", model: "echo", want: &Resolved{Model: "echo", Provider: "echo", Echo: &Echo{}}},
		{name: "echo takes options", model: "echo:delay=1.5s,exit=3,stderr=oops", want: &Resolved{Model: "echo:delay=1.5s,exit=3,stderr=oops", Provider: "echo", Echo: &Echo{Delay: 1500 * time.Millisecond, Exit: 3, Stderr: "oops"}}},
		{name: "an unknown echo option is refused", model: "echo:speed=9", code: machine.InvalidArgument},
		{name: "an exit status above 255 is refused", model: "echo:exit=300", code: machine.InvalidArgument},
		{name: "a negative delay is refused", model: "echo:delay=-1s", code: machine.InvalidArgument},
		{name: "an option without = is refused", model: "echo:fast", code: machine.InvalidArgument},
		{name: "a command provider resolves its command", model: "local:big", want: &Resolved{Model: "local:big", Provider: "local", Argv: []string{"sh", "-c", "cat", "{model}"}}},
		{name: "a command provider whose command is missing is not found", model: "ghost", code: machine.ProviderNotFound},
		{name: "a model naming no provider is not found", model: "gpt", code: machine.ProviderNotFound},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Resolve(h, tt.model)
			if tt.want == nil {
				me, ok := machine.As(err)
				if !ok || me.Code != tt.code {
					t.Fatalf("Resolve(%q) = %v; want %s", tt.model, err, tt.code)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			got.Path = "" // machine-dependent
			if d := cmp.Diff(*tt.want, got); d != "" {
				t.Fatalf("Resolve(%q) (-want +got):\n%s", tt.model, d)
			}
		})
	}
}

func TestConfigRules(t *testing.T) {
	tests := []struct {
		name, config, field string
	}{
		{"a malformed file", "providers: [\n", ""},
		{"an unknown field", "providers:\n  - {name: a, argv: [x], environment: [A=b]}\n", ""},
		{"a second document", "providers:\n  - {name: a, argv: [x]}\n---\nproviders:\n  - {name: b, argv: [y]}\n", ""},
		{"a bad name", "providers:\n  - {name: Big Agent, argv: [x]}\n", "providers[0].name"},
		{"echo cannot be redefined", "providers:\n  - {name: echo, argv: [x]}\n", "providers[0].name"},
		{"a duplicate name", "providers:\n  - {name: a, argv: [x]}\n  - {name: a, argv: [y]}\n", "providers[1].name"},
		{"an empty argv", "providers:\n  - {name: a, argv: []}\n", "providers[0].argv"},
		{"an unknown placeholder", "providers:\n  - {name: a, argv: [x, \"--k={key}\"]}\n", "providers[0].argv[1]"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := LoadConfig(homeWith(t, tt.config))
			me, ok := machine.As(err)
			if !ok || me.Code != machine.InvalidProviderConfig || me.Details.(map[string]any)["field"] != tt.field {
				t.Fatalf("LoadConfig = %v; want invalid_provider_config on field %q", err, tt.field)
			}
		})
	}
	if c, err := LoadConfig(homeWith(t, "")); err != nil || len(c.Providers) != 0 {
		t.Fatalf("no file: %v, %v", c, err)
	}
	if c, err := LoadConfig(homeWith(t, "\n")); err != nil || len(c.Providers) != 0 {
		t.Fatalf("empty file: %v, %v", c, err)
	}
}

func TestExpand(t *testing.T) {
	r := Resolved{Model: "local:big", Provider: "local", Argv: []string{"agent", "--model={model}", "--in", "{cwd}", "{run_dir}/{id}"}, Path: "/usr/bin/agent"}
	got, err := r.Expand(Vars{ID: "abc", Cwd: "/work", RunDir: "/runs/abc"})
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff([]string{"/usr/bin/agent", "--model=big", "--in", "/work", "/runs/abc/abc"}, got); d != "" {
		t.Fatalf("Expand (-want +got):\n%s", d)
	}
	// A value is inserted as is: a directory named like a placeholder is
	// not expanded a second time.
	got, _ = r.Expand(Vars{ID: "abc", Cwd: "/tmp/{id}", RunDir: "/runs/abc"})
	if got[3] != "/tmp/{id}" {
		t.Fatalf("{cwd} = %q; want the directory verbatim", got[3])
	}
}

// TestRelativeCommandIsResolvedAtSubmit: a command given as a relative
// path is found from the submitter's directory and stored absolute, so the
// worker, which runs it in the run's --cwd, runs the same program.
func TestRelativeCommandIsResolvedAtSubmit(t *testing.T) {
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "bin"), 0o700); err != nil {
		t.Fatal(err)
	}
	agent := filepath.Join(dir, "bin", "agent")
	if err := os.WriteFile(agent, []byte("#!/bin/sh\ncat\n"), 0o700); err != nil {
		t.Fatal(err)
	}
	h := homeWith(t, "providers:\n  - name: local\n    argv: [\"./bin/agent\", \"{model}\"]\n")
	t.Chdir(dir)
	r, err := Resolve(h, "local:m")
	if err != nil {
		t.Fatal(err)
	}
	if r.Path != agent {
		t.Fatalf("Path = %q; want the absolute %q", r.Path, agent)
	}
	if argv, _ := r.Expand(Vars{ID: "x", Cwd: "/", RunDir: "/r"}); argv[0] != agent {
		t.Fatalf("Expand()[0] = %q; want %q", argv[0], agent)
	}
}

// TestSlotRefusesDashLeadingValues: a value that starts with "-" never
// lands in a template slot, whichever slot it is; the error names the slot.
func TestSlotRefusesDashLeadingValues(t *testing.T) {
	tests := []struct {
		name  string
		model string
		vars  Vars
		slot  string
	}{
		{"a model argument that is an option", "local:--exec=/bin/sh", Vars{ID: "a", Cwd: "/", RunDir: "/r"}, "{model}"},
		{"a model argument that is a short option", "local:-x", Vars{ID: "a", Cwd: "/", RunDir: "/r"}, "{model}"},
		{"a working directory that is an option", "local:m", Vars{ID: "a", Cwd: "-rf", RunDir: "/r"}, "{cwd}"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := Resolved{Model: tt.model, Provider: "local", Argv: []string{"agent", "{model}", "{cwd}"}, Path: "/bin/agent"}
			argv, err := r.Expand(tt.vars)
			var se *SlotError
			if !errors.As(err, &se) || se.Slot != tt.slot || !strings.Contains(err.Error(), tt.slot) {
				t.Fatalf("Expand = %q, %v; want a SlotError naming %s", argv, err, tt.slot)
			}
		})
	}
}

// TestModelPattern: Resolve refuses a model outside ModelPattern before it
// looks at any provider, naming the pattern.
func TestModelPattern(t *testing.T) {
	h := homeWith(t, "providers:\n  - name: local\n    argv: [\"/bin/cat\", \"{model}\"]\n")
	for _, ok := range []string{"echo", "echo:delay=2s,exit=3,stderr=oops", "local", "local:big", "local:org/model@v1.2", "local:a:b"} {
		if _, err := Resolve(h, ok); err != nil {
			t.Errorf("Resolve(%q) = %v; want it accepted", ok, err)
		}
	}
	for _, bad := range []string{"local:--exec=/bin/sh", "local:-x", "-local", "local:", "local:a b", "Local", "local:$(id)", "local:a\nb", ""} {
		_, err := Resolve(h, bad)
		var me *machine.Error
		if !errors.As(err, &me) || me.Code != machine.InvalidArgument || !strings.Contains(err.Error(), ModelPattern) {
			t.Errorf("Resolve(%q) = %v; want invalid_argument naming the pattern", bad, err)
		}
	}
}

// TestProviderEnvironment: a provider's env names pass through from the
// base environment, its set values are added, and nothing else beyond the
// runenv rule reaches it.
func TestProviderEnvironment(t *testing.T) {
	h := homeWith(t, "providers:\n  - name: local\n    argv: [\"/bin/cat\"]\n    env: [ANTHROPIC_API_KEY]\n    set: {AGENT_MODE: batch, PATH: /opt/bin}\n")
	r, err := Resolve(h, "local")
	if err != nil {
		t.Fatal(err)
	}
	got := r.Environ([]string{"PATH=/usr/bin", "ANTHROPIC_API_KEY=key", "AWS_SECRET_ACCESS_KEY=canary", "LIMCP_MCP_TOKEN=tok", "LIMCP_HOME=/s"})
	want := []string{"ANTHROPIC_API_KEY=key", "LIMCP_HOME=/s", "AGENT_MODE=batch", "PATH=/opt/bin"}
	if d := cmp.Diff(want, got); d != "" {
		t.Fatalf("Environ (-want +got):\n%s", d)
	}
	cfg, _ := LoadConfig(h)
	// The declared provider's names first, then each preset's.
	if d := cmp.Diff([]string{"ANTHROPIC_API_KEY"}, cfg.EnvNames()[:1]); d != "" {
		t.Fatalf("EnvNames (-want +got):\n%s", d)
	}
}

// TestProviderEnvConfigRefused: env and set are checked like the rest of
// providers.yaml, naming the field.
func TestProviderEnvConfigRefused(t *testing.T) {
	tests := []struct{ name, yaml, field string }{
		{"an env entry that is no variable name", "env: [\"A-B\"]", "providers[0].env[0]"},
		{"the server's token cannot be passed", "env: [LIMCP_MCP_TOKEN]", "providers[0].env[0]"},
		{"a set name that is no variable name", "set: {\"1X\": v}", "providers[0].set"},
		{"an unknown key is refused", "envs: [A]", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := LoadConfig(homeWith(t, "providers:\n  - name: local\n    argv: [cat]\n    "+tt.yaml+"\n"))
			var me *machine.Error
			if !errors.As(err, &me) || me.Code != machine.InvalidProviderConfig {
				t.Fatalf("LoadConfig = %v; want invalid_provider_config", err)
			}
			if f, _ := me.Details.(map[string]any)["field"].(string); f != tt.field {
				t.Fatalf("field = %q; want %q (%v)", f, tt.field, err)
			}
		})
	}
}
