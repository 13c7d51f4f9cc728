//go:build unix

package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// writeCobraConfig copies the tasks cobra CLI and fronts it by its
// binary alone: source: {cobra: [BINARY]}, the tree read from the
// program's completion protocol and --help, its hidden tree command
// unused.
func writeCobraConfig(t *testing.T) (config, bin string) {
	t.Helper()
	dir := t.TempDir()
	bin = filepath.Join(dir, "tasks")
	b, err := os.ReadFile(tasksSrcBin)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(bin, b, 0o755); err != nil {
		t.Fatal(err)
	}
	config = filepath.Join(dir, "tasks.yaml")
	yaml := `name: tasks
command: [./tasks]
machine: {args: ["--json"]}
source: {cobra: [./tasks]}
exclude: [json]
env: {pass: [TASKS_HOME]}
fence: [[purge]]
verbs:
  - {name: task.add, path: [add], class: spawn}
  - {name: task.list, path: [list], class: observe}
`
	if err := os.WriteFile(config, []byte(yaml), 0o644); err != nil {
		t.Fatal(err)
	}
	return config, bin
}

// A cobra CLI nobody modified for the purpose, fronted from YAML alone
// through its binary: check passes, help gives the schema its --help
// states, an op runs the real program, and an upgrade installed over the
// binary changes the schema on the next request.
func TestCobraBinaryThroughServe(t *testing.T) {
	config, bin := writeCobraConfig(t)
	if out, errOut, status := runVS(t, "check", "-c", config); status != 0 || !strings.Contains(out, "ok: 2 verbs offered") {
		t.Fatalf("check: status %d\n%s%s", status, out, errOut)
	}
	c := serve(t, config, "TASKS_HOME="+t.TempDir())
	schema, fp := c.help("task.add")
	props := schema["properties"].(map[string]any)
	if len(props) != 2 || props["name"] == nil || props["size"].(map[string]any)["default"] != "m" {
		t.Fatalf("task.add schema from help: %v", schema)
	}
	if req := fmt.Sprint(schema["required"]); req != "[name]" {
		t.Errorf("required %s, want [name] (the Use line's NAME)", req)
	}
	r := c.op(`{"op":"task.add","args":{"name":"--help","size":"l"},"fingerprint":"` + fp + `"}`)
	if res, _ := r["result"].(map[string]any); r["ok"] != true || res["name"] != "--help" || res["size"] != "l" {
		t.Fatalf("task.add ran through the help-derived schema: %v", r)
	}
	if r := c.op(`{"op":"task.list"}`); r["ok"] != true || !strings.Contains(fmt.Sprint(r["result"]), "--help") {
		t.Errorf("task.list: %v", r)
	}
	if r := c.op(`{"op":"purge"}`); code(r) != "not_allowed" {
		t.Errorf("fenced: %v", r)
	}

	// An upgrade: a build with one more flag installed over the binary by
	// rename, as a package manager installs it.
	next := bin + ".new"
	build := exec.Command("go", "build", "-ldflags", "-X main.extraFlag=yes", "-o", next, "./internal/tasks")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("building the upgrade: %v\n%s", err, out)
	}
	if err := os.Rename(next, bin); err != nil {
		t.Fatal(err)
	}
	schema, fp2 := c.help("task.add")
	if fp2 == fp {
		t.Error("the upgraded CLI kept its fingerprint")
	}
	if _, ok := schema["properties"].(map[string]any)["owner"]; !ok {
		t.Errorf("the upgrade's new flag is not in the schema: %v", schema)
	}
}

// The source's own configuration mistakes, named with their field.
func TestCobraSourceConfig(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct {
		name, source, want string
	}{
		{"an empty program", "source: {cobra: []}", "source.cobra: required: the cobra program"},
		{"a program that cannot be found", "source: {cobra: [./no-such-program]}", "source.cobra:"},
		{"with another source", "source: {cobra: [tasks], tree_file: t.json}", "source: give exactly one of argparse, click, tree_command, tree_file, cobra"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := filepath.Join(dir, "bad.yaml")
			yaml := "name: x\ncommand: [" + tasksSrcBin + "]\n" + tc.source + "\nverbs:\n  - {name: task.list, path: [list], class: observe}\n"
			if err := os.WriteFile(cfg, []byte(yaml), 0o644); err != nil {
				t.Fatal(err)
			}
			out, errOut, status := runVS(t, "check", "-c", cfg)
			if status == 0 || !strings.Contains(out+errOut, tc.want) {
				t.Errorf("status %d, output %q, want %q", status, out+errOut, tc.want)
			}
		})
	}
}

// verbsurface inventory --cobra BINARY reads the program's tree from its
// help.
func TestInventoryCobra(t *testing.T) {
	out, errOut, status := runVS(t, "inventory", "--cobra", tasksSrcBin)
	if status != 0 {
		t.Fatalf("status %d: %s", status, errOut)
	}
	for _, want := range []string{`"program": "tasks"`, `"clean": 3`, `"offerable": 3`} {
		if !strings.Contains(out, want) {
			t.Errorf("inventory lacks %s:\n%s", want, out)
		}
	}
	if _, errOut, status := runVS(t, "inventory", "--cobra", tasksSrcBin, "--argparse", "m:f"); status == 0 || !strings.Contains(errOut, "give one") {
		t.Errorf("--cobra with --argparse: status %d, %s", status, errOut)
	}
}
