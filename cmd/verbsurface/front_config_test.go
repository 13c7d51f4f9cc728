//go:build unix

package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestFrontKeys: the keys of issue 26 load as written and refuse what
// cannot mean anything, each naming the file, the line and the field.
func TestFrontKeys(t *testing.T) {
	dir := t.TempDir()
	base := "name: lint\ncommand: [lint]\nsource: {tree_file: tree.json}\n"
	load := func(body string) (*Config, error) {
		p := filepath.Join(dir, "front.yaml")
		if err := os.WriteFile(p, []byte(base+body), 0o644); err != nil {
			t.Fatal(err)
		}
		return LoadConfig(p)
	}
	good := `output: text
ok_exit: [0, 1]
cwd: .
verbs:
  - {name: lint, path: [], class: observe, args: [-f, parsable], files: ["files:read_or_dir", "config_data:none"]}
  - {name: list, path: [list], class: observe, output: json, machine: {args: [-o, json]}, exclude: [--all]}
  - {name: add, path: [schedule, add], class: control, machine: {}, cwd: sub,
     stored_command: {param: command, allow: [[agent], [job, list]]}}
`
	c, err := load(good)
	if err != nil {
		t.Fatalf("a good configuration: %v", err)
	}
	if out, ok := c.outputOf(0); out != "text" || len(ok) != 2 {
		t.Errorf("lint inherits output and ok_exit: %q %v", out, ok)
	}
	if out, ok := c.outputOf(1); out != "json" || ok != nil {
		t.Errorf("list's own output takes its own ok_exit: %q %v", out, ok)
	}
	if m := c.verbMachine(2); len(m.Args) != 0 {
		t.Errorf("machine: {} says none: %+v", m)
	}
	if dir2, field, _ := c.cwdOf(2); dir2 != filepath.Join(dir, "sub") || field != "verbs[2].cwd" {
		t.Errorf("cwd of add: %s (%s)", dir2, field)
	}
	if c.runnerKeyOf(0) == c.runnerKeyOf(1) || c.runnerKeyOf(0) == c.runnerKeyOf(2) {
		t.Error("verbs with another output or cwd share the top-level runner")
	}

	for _, tc := range []struct{ name, body, want string }{
		{"an unknown output", "output: yaml\nverbs:\n  - {name: a, path: [a], class: observe}\n", `front.yaml:4: output: "yaml" is not envelope, json, jsonl or text`},
		{"ok_exit under the envelope", "ok_exit: [0, 1]\nverbs:\n  - {name: a, path: [a], class: observe}\n", "front.yaml:4: ok_exit: ok_exit applies to output json, jsonl and text"},
		{"an ok_exit past 255", "output: text\nok_exit: [0, 256]\nverbs:\n  - {name: a, path: [a], class: observe}\n", "front.yaml:5: ok_exit: ok_exit holds 256"},
		{"a verb's ok_exit without its output", "output: text\nverbs:\n  - name: a\n    path: [a]\n    class: observe\n    ok_exit: [1]\n", "front.yaml:9: verbs[0].ok_exit: a verb's ok_exit goes with its own output"},
		{"a verb's unknown output", "verbs:\n  - {name: a, path: [a], class: observe, output: csv}\n", `front.yaml:5: verbs[0].output: "csv" is not envelope`},
		{"no path at all", "verbs:\n  - {name: a, class: observe}\n", "front.yaml:5: verbs[0].path: required"},
		{"an option in the path", "verbs:\n  - {name: a, path: [list, --all], class: observe}\n", `front.yaml:5: verbs[0].path: "--all" is not a command name`},
		{"an unknown path kind", "verbs:\n  - {name: a, path: [a], class: observe, files: [src:file]}\n", `verbs[0].files: "src:file": use "file" is not read, write, dir, read_or_dir or none`},
		{"a file listed twice", "verbs:\n  - {name: a, path: [a], class: observe, files: [src, src:write]}\n", `verbs[0].files: "src" is listed twice`},
		{"a machine position without args", "verbs:\n  - {name: a, path: [a], class: observe, machine: {at: root}}\n", "verbs[0].machine: a position without args"},
		{"args that start with a word", "verbs:\n  - {name: a, path: [a], class: observe, args: [parsable]}\n", `verbs[0].args: "parsable" is not an option`},
		{"an empty exclusion", "verbs:\n  - {name: a, path: [a], class: observe, exclude: [\"\"]}\n", "verbs[0].exclude: holds an empty word"},
		{"a stored command without its parameter", "verbs:\n  - {name: a, path: [a], class: control, stored_command: {allow: [[b]]}}\n", "verbs[0].stored_command: param: required"},
		{"a stored command allowed nothing", "verbs:\n  - {name: a, path: [a], class: control, stored_command: {param: command}}\n", "verbs[0].stored_command: allow: required"},
		{"an unknown stored_command key", "verbs:\n  - {name: a, path: [a], class: control, stored_command: {param: c, allow: [[b]], deny: [[x]]}}\n", "deny: unknown key"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := load(tc.body)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %v; want %q", err, tc.want)
			}
		})
	}
}

// inventory counts a single-command program's root command clean when
// the front can offer it (a root verb, no machine mode needed outside the
// envelope), and not when the machine mode the verb would run with is
// missing from it.
func TestInventoryOfARootCommand(t *testing.T) {
	dir := copyTestdata(t, "mimic", "mimic.py", "mimic.yaml")
	out, _, status := runVS(t, "inventory", "-c", filepath.Join(dir, "mimic.yaml"))
	var inv Inventory
	if status != 0 || json.Unmarshal([]byte(out), &inv) != nil {
		t.Fatalf("status %d: %s", status, out)
	}
	if inv.Tree.Clean != 1 || fmt.Sprint(inv.Tree.CleanCommands) != "[[]]" || len(inv.Unavailable) != 0 {
		t.Errorf("a root verb: %s", out)
	}
	b, _ := os.ReadFile(filepath.Join(dir, "mimic.yaml"))
	p := filepath.Join(dir, "machine.yaml")
	os.WriteFile(p, []byte(strings.Replace(string(b), "output: json\n", "output: json\nmachine: {args: [--json]}\n", 1)), 0o644)
	out, _, _ = runVS(t, "inventory", "-c", p)
	inv = Inventory{}
	json.Unmarshal([]byte(out), &inv)
	if inv.Tree.Clean != 0 || len(inv.Tree.Unavailable) != 1 || !strings.Contains(inv.Tree.Unavailable[0].Reasons[0].Reason, "does not accept --json") {
		t.Errorf("a machine mode the program lacks: %s", out)
	}
}

// TestHelpBudgetKey: help_budget reaches the surface, and a budget below
// the smallest useful one stops the front with the surface's reason.
func TestHelpBudgetKey(t *testing.T) {
	dir := t.TempDir()
	tree := `{"program":"lint","dialect":"pflag","commands":[{"path":[],"runnable":true,"params":[]}]}`
	if err := os.WriteFile(filepath.Join(dir, "tree.json"), []byte(tree), 0o644); err != nil {
		t.Fatal(err)
	}
	load := func(budget int) (*Config, error) {
		p := filepath.Join(dir, "front.yaml")
		body := fmt.Sprintf("name: lint\ncommand: [true]\nsource: {tree_file: tree.json}\noutput: text\nhelp_budget: %d\nverbs:\n  - {name: lint, path: [], class: observe}\n", budget)
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		return LoadConfig(p)
	}
	c, err := load(2048)
	if err != nil || c.HelpBudget != 2048 {
		t.Fatalf("help_budget 2048: %v, %+v", err, c)
	}
	c, err = load(100)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := newFront(c); err == nil || !strings.Contains(err.Error(), "HelpBudget 100 is below") {
		t.Fatalf("help_budget 100: %v", err)
	}
}
