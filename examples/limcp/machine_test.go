//go:build unix

package main

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestEveryCommandPrintsOneMachineResult runs every command of the tree —
// successes, refusals and cobra's own usage errors — in --json mode and
// checks each prints exactly one machine result (env.machine enforces the
// shape and the exit status) with the expected ok/code.
func TestEveryCommandPrintsOneMachineResult(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	done := e.submit("agent", "echo", "fixture")
	e.waitTerminal(done.ID)
	e.writeFile("playbooks/pb.playbook.yaml", "description: d\nflow:\n  steps:\n    - {id: a, model: echo, prompt: hi}\n")
	spec := e.writeFile("flow.yaml", "steps:\n  - {id: a, model: echo, prompt: hi}\n")
	hooks := e.writeFile("hooks.sh", "#!/bin/sh\n")
	e.ok(nil, "team", "create", "board")

	tests := []struct {
		name string
		args []string
		code string // "" for success
	}{
		{"agent submits", []string{"agent", "echo", "hi"}, ""},
		{"fanout submits", []string{"fanout", "echo", "hi", "-n", "2"}, ""},
		{"flow submits", []string{"flow", "--spec", spec, "go"}, ""},
		{"play submits", []string{"play", "pb", "go"}, ""},
		{"job status", []string{"job", "status", done.ID}, ""},
		{"job output", []string{"job", "output", done.ID}, ""},
		{"job list", []string{"job", "list"}, ""},
		{"job observe", []string{"job", "observe", done.ID}, ""},
		{"job wait", []string{"job", "wait", done.ID, "--max-wait-seconds", "0"}, ""},
		{"kill of an ended run reports it", []string{"kill", done.ID}, ""},
		{"schedule add", []string{"schedule", "add", "s1", "--cron", "0 3 * * *", "--", "agent", "echo", "x"}, ""},
		{"schedule list", []string{"schedule", "list"}, ""},
		{"schedule show", []string{"schedule", "show", "s1"}, ""},
		{"schedule tick", []string{"schedule", "tick", "--now", "2000-01-01T00:00:00Z"}, ""},
		{"schedule remove", []string{"schedule", "remove", "s1"}, ""},
		{"team list", []string{"team", "list"}, ""},
		{"team post", []string{"team", "post", "board", "hello"}, ""},
		{"team read", []string{"team", "read", "board"}, ""},
		{"state list", []string{"state", "list"}, ""},
		{"state show", []string{"state", "show"}, ""},
		{"state doctor", []string{"state", "doctor"}, ""},
		{"state migrate", []string{"state", "migrate"}, ""},
		{"plugin trust", []string{"plugin", "trust", "tool"}, ""},
		{"hooks trust", []string{"hooks", "trust", hooks}, ""},
		{"monitor", []string{"monitor"}, ""},
		{"stats", []string{"stats"}, ""},
		{"root help is a result", []string{"--help"}, ""},
		{"help command is a result", []string{"help", "job"}, ""},
		{"a group without a subcommand is its help", []string{"job"}, ""},

		{"unknown flag is a usage error", []string{"job", "status", "--bogus", done.ID}, "usage_error"},
		{"unknown command is a usage error", []string{"bogus"}, "usage_error"},
		{"unknown subcommand is a usage error", []string{"job", "bogus"}, "usage_error"},
		{"missing argument is a usage error", []string{"job", "status"}, "usage_error"},
		{"too many arguments is a usage error", []string{"agent", "echo", "a", "b"}, "usage_error"},
		{"a flag value of the wrong type is a usage error", []string{"job", "list", "--limit", "many"}, "usage_error"},
		{"a missing required flag is a usage error", []string{"fanout", "echo", "hi"}, "usage_error"},
		{"a bad duration is a usage error", []string{"kill", done.ID, "--grace", "soon"}, "usage_error"},
		{"prompt and prompt file together", []string{"agent", "echo", "hi", "--prompt-file", spec}, "invalid_argument"},
		{"list limit out of range", []string{"job", "list", "--limit", "0"}, "invalid_argument"},
		{"list kind not a kind", []string{"job", "list", "--kind", "robot"}, "invalid_argument"},
		{"bad cursor", []string{"job", "list", "--cursor", "nonsense"}, "invalid_argument"},
		{"unknown id", []string{"job", "status", "0123456789abcdef"}, "unknown_id"},
		{"unknown team", []string{"team", "read", "nobody"}, "unknown_team"},
		{"unknown schedule", []string{"schedule", "show", "nope"}, "unknown_schedule"},
		{"duplicate team", []string{"team", "create", "board"}, "already_exists"},
		{"invalid cron", []string{"schedule", "add", "s2", "--cron", "every day", "--", "agent", "echo", "x"}, "invalid_cron"},
		{"missing playbook", []string{"play", "nope", "go"}, "playbook_not_found"},
		{"unknown provider", []string{"agent", "gpt-17", "hi"}, "provider_not_found"},
		{"bad echo option", []string{"agent", "echo:delay=soon", "hi"}, "invalid_argument"},
		{"missing flow spec", []string{"flow", "--spec", "/nonexistent.yaml"}, "invalid_flow_spec"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := &env{t: t, home: e.home}
			r := e.machine(tt.args...)
			if tt.code == "" {
				if !r.OK {
					t.Fatalf("failed: %s: %s", r.Error.Code, r.Error.Message)
				}
				return
			}
			if r.OK || r.Error.Code != tt.code {
				t.Fatalf("got ok=%v %+v; want error %s", r.OK, r.Error, tt.code)
			}
			if tt.code == "usage_error" && r.exit != 2 {
				t.Fatalf("usage error exited %d; want 2", r.exit)
			}
			if !strings.Contains(r.stderr, r.Error.Message) {
				t.Fatalf("stderr does not carry the message for a human: %q", r.stderr)
			}
		})
	}
}

// TestHumanModeWritesNoJSON checks that without --json results are text.
func TestHumanModeWritesNoJSON(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	out, _, code := e.run("job", "list")
	if code != 0 || json.Valid([]byte(out)) && strings.TrimSpace(out) != "" {
		t.Fatalf("human job list: exit %d, output %q", code, out)
	}
	_, stderr, code := e.run("job", "status", "--bogus")
	if code != 2 || !strings.Contains(stderr, "unknown flag: --bogus") || !strings.Contains(stderr, "--help") {
		t.Fatalf("human usage error: exit %d, stderr %q", code, stderr)
	}
}

// TestHelpIsOneResult: help in machine mode is data, not raw text on stdout.
func TestHelpIsOneResult(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	var d struct {
		Command string `json:"command"`
		Help    string `json:"help"`
	}
	e.ok(&d, "job", "wait", "--help")
	if d.Command != "limcp job wait" || !strings.Contains(d.Help, "--max-wait-seconds") {
		t.Fatalf("help data = %+v", d)
	}
}
