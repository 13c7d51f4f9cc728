package provider

import (
	"os"
	"path/filepath"
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
		{"an unknown field", "providers:\n  - {name: a, argv: [x], env: [A=b]}\n", ""},
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
	got := r.Expand(Vars{ID: "abc", Cwd: "/work", RunDir: "/runs/abc"})
	if d := cmp.Diff([]string{"/usr/bin/agent", "--model=big", "--in", "/work", "/runs/abc/abc"}, got); d != "" {
		t.Fatalf("Expand (-want +got):\n%s", d)
	}
	// A value is inserted as is: a directory named like a placeholder is
	// not expanded a second time.
	got = r.Expand(Vars{ID: "abc", Cwd: "/tmp/{id}", RunDir: "/runs/abc"})
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
	if argv := r.Expand(Vars{ID: "x", Cwd: "/", RunDir: "/r"}); argv[0] != agent {
		t.Fatalf("Expand()[0] = %q; want %q", argv[0], agent)
	}
}
