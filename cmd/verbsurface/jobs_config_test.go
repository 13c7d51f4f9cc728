//go:build unix

package main

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestJobKeys: wait: and kill: are strict like every key, their mistakes
// name the file, the line and the field, and their verbs may not collide
// with the verbs list or with each other.
func TestJobKeys(t *testing.T) {
	dir := t.TempDir()
	base := `name: jobs
command: [jobs]
machine: {args: ["--json"], at: leaf}
source: {tree_file: tree.json}
verbs:
  - {name: job.status, path: [job, status], class: observe}
`
	load := func(extra string) (*Config, error) {
		p := filepath.Join(dir, "jobs.yaml")
		if err := os.WriteFile(p, []byte(base+extra), 0o644); err != nil {
			t.Fatal(err)
		}
		return LoadConfig(p)
	}
	good := `wait: {verb: job.wait, observe: [job, observe], schema_from: [job, wait], outcomes: {completed: succeeded, failed: failed}}
kill: {verb: job.kill, path: [kill], status: [job, status]}
`
	c, err := load(good)
	if err != nil {
		t.Fatalf("a good configuration: %v", err)
	}
	if got := c.machineArgv(c.Wait.Observe); !slices.Equal(got, []string{"job", "observe", "--json"}) {
		t.Errorf("the observe command at leaf: %q", got)
	}
	c.Machine.At = "root"
	if got := c.machineArgv(c.Kill.Path); !slices.Equal(got, []string{"--json", "kill"}) {
		t.Errorf("the kill command at root: %q", got)
	}
	if ot := outcomeTable(c.Wait.Outcomes); ot["completed"] != "succeeded" || len(ot) != 2 {
		t.Errorf("outcomes %v", ot)
	}

	for _, tc := range []struct{ name, extra, want string }{
		{"unknown wait key", "wait: {verb: job.wait, observe: [o], schema_from: [w], outcome: {}}\n", "jobs.yaml:7: outcome: unknown key"},
		{"wait without a verb", "wait: {observe: [o], schema_from: [w]}\n", "jobs.yaml:7: wait.verb: required"},
		{"wait without observe", "wait: {verb: job.wait, schema_from: [w]}\n", "jobs.yaml:7: wait.observe: required"},
		{"wait without schema_from", "wait: {verb: job.wait, observe: [o]}\n", "jobs.yaml:7: wait.schema_from: required"},
		{"machine args in a path", "wait: {verb: job.wait, observe: [o, --json], schema_from: [w]}\n", `jobs.yaml:7: wait.observe: "--json" is not a command name`},
		{"an outcome outside the three", "wait: {verb: job.wait, observe: [o], schema_from: [w], outcomes: {done: ok}}\n", `jobs.yaml:7: wait.outcomes: status "done" maps to "ok"`},
		{"wait colliding with the verbs", "wait: {verb: job.status, observe: [o], schema_from: [w]}\n", `jobs.yaml:7: wait.verb: "job.status" is already the name of verbs[0]`},
		{"kill without a path", "kill: {verb: job.kill}\n", "jobs.yaml:7: kill.path: required"},
		{"kill colliding with wait", "wait: {verb: job.x, observe: [o], schema_from: [w]}\nkill: {verb: job.x, path: [kill]}\n", `jobs.yaml:8: kill.verb: "job.x" is already the name of wait`},
		{"a kind outside kill's", "kill: {verb: job.kill, path: [kill], status: [status], kinds: {job: task}}\n", `jobs.yaml:7: kill.kinds: "job" maps to "task"`},
		{"kinds without status", "kill: {verb: job.kill, path: [kill], kinds: {job: invocation}}\n", "jobs.yaml:7: kill.kinds: kinds need a status command"},
		{"unknown kill key", "kill: {verb: job.kill, path: [kill], signal: TERM}\n", "jobs.yaml:7: signal: unknown key"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := load(tc.extra)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %v; want %q", err, tc.want)
			}
		})
	}
}
