//go:build unix

package main

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// inventory is the part of `limcp inventory --json` these tests read.
type inventory struct {
	Source      string     `json:"source"`
	Commands    int        `json:"commands"`
	Fenced      [][]string `json:"fenced"`
	Offerable   int        `json:"offerable"`
	Clean       int        `json:"clean"`
	CleanShare  float64    `json:"clean_share"`
	Unavailable []struct {
		Path    []string `json:"path"`
		Reasons []struct {
			Param  string `json:"param"`
			Action string `json:"action"`
			Type   string `json:"type"`
			Reason string `json:"reason"`
		} `json:"reasons"`
	} `json:"unavailable"`
	Params struct {
		Total           int            `json:"total"`
		ByAction        map[string]int `json:"by_action"`
		ByType          map[string]int `json:"by_type"`
		Unrepresentable []struct {
			Path   []string `json:"path"`
			Param  string   `json:"param"`
			Action string   `json:"action"`
			Type   string   `json:"type"`
		} `json:"unrepresentable"`
	} `json:"params"`
	Verbs []struct {
		Verb     string   `json:"verb"`
		Path     []string `json:"path"`
		Projects bool     `json:"projects"`
		Reason   string   `json:"reason"`
	} `json:"verbs"`
}

var pyInventoryDir, _ = filepath.Abs("testdata/pyinventory")

// TestInventoryOwnTree: limcp's own tree, walked as the server walks it.
// Every allowlisted verb projects, the fenced commands are reported as
// present but fenced (and not counted as offerable), and nothing offerable
// is unavailable.
func TestInventoryOwnTree(t *testing.T) {
	e := newEnv(t)
	var inv inventory
	e.ok(&inv, "inventory")
	if inv.Source != "limcp" {
		t.Fatalf("source = %q, want limcp", inv.Source)
	}
	for _, fenced := range [][]string{{"state", "migrate"}, {"plugin", "trust"}, {"hooks", "trust"}} {
		if !slices.ContainsFunc(inv.Fenced, func(p []string) bool { return slices.Equal(p, fenced) }) {
			t.Errorf("fenced = %v, want it to list %q", inv.Fenced, fenced)
		}
	}
	if len(inv.Verbs) < 20 {
		t.Fatalf("%d allowlisted verbs reported, want the whole allowlist:\n%s", len(inv.Verbs), mustJSON(t, inv.Verbs))
	}
	for _, v := range inv.Verbs {
		if !v.Projects {
			t.Errorf("verb %s (%s) does not project: %s", v.Verb, strings.Join(v.Path, " "), v.Reason)
		}
		if slices.Equal(v.Path, []string{"state", "migrate"}) {
			t.Errorf("a fenced command is on the allowlist: %s", v.Verb)
		}
	}
	if inv.Offerable == 0 || inv.Clean != inv.Offerable || inv.CleanShare != 1 || len(inv.Unavailable) != 0 {
		t.Errorf("own tree: %d of %d offerable commands clean (share %v), unavailable %v; want all",
			inv.Clean, inv.Offerable, inv.CleanShare, inv.Unavailable)
	}
	// The server's excluded flags are not parameters of anything.
	for action := range inv.Params.ByAction {
		if strings.Contains(action, "notify") {
			t.Errorf("by_action has %q", action)
		}
	}
	// Human output says the same in words.
	out, _, code := e.run("inventory")
	if code != 0 || !strings.Contains(out, "fenced (present, never offered): state migrate") || !strings.Contains(out, "every allowlisted verb projects") {
		t.Fatalf("human inventory (exit %d):\n%s", code, out)
	}
}

// TestInventoryStdlibArgparse: real argparse programs that ship with
// Python project cleanly, calendar's two optional positionals (year,
// month) and json.tool's path types and const flags included.
func TestInventoryStdlibArgparse(t *testing.T) {
	e := newEnv(t)
	for _, target := range []string{"zipfile:main", "tarfile:main", "py_compile:main", "calendar:__main__", "json.tool:main"} {
		var inv inventory
		e.ok(&inv, "inventory", "--argparse", target)
		if inv.Source != "argparse:"+target || inv.Commands != 1 || inv.CleanShare != 1 || inv.Params.Total == 0 {
			t.Errorf("%s: %s", target, mustJSON(t, inv))
		}
	}
}

// TestInventoryNamesWhatBlocks: a CLI with an unknown Action subclass; the
// report names it, with the command path and parameter, and counts the rest
// (a custom type callable and a FileType among them) as clean.
func TestInventoryNamesWhatBlocks(t *testing.T) {
	e := newEnv(t)
	var inv inventory
	e.ok(&inv, "inventory", "--argparse", "teamtool:build", "--pythonpath", pyInventoryDir)
	if inv.Offerable != 4 || inv.Clean != 3 || inv.CleanShare != 0.75 {
		t.Fatalf("want 3 of 4 commands clean:\n%s", mustJSON(t, inv))
	}
	blocked := map[string]string{}
	for _, u := range inv.Params.Unrepresentable {
		blocked[strings.Join(u.Path, " ")+" "+u.Param] = u.Action + "|" + u.Type
	}
	for _, want := range []struct{ where, name string }{
		{"announce message", "Shout"},
	} {
		if got, ok := blocked[want.where]; !ok || !strings.Contains(got, want.name) {
			t.Errorf("unrepresentable[%q] = %q, want it to name %s; report:\n%s", want.where, got, want.name, mustJSON(t, inv.Params.Unrepresentable))
		}
	}
	// Aliases fold into one command (deploy/ship), so there are exactly the
	// four subcommands plus the root.
	if inv.Commands != 5 {
		t.Errorf("commands = %d, want 5 (root + 4, aliases folded)", inv.Commands)
	}
}

// TestInventoryRefusals: each way of not getting a parser is a clear
// inventory_failed error naming the target and the kind of failure.
func TestInventoryRefusals(t *testing.T) {
	e := newEnv(t)
	for _, tc := range []struct {
		name, kind string
		args       []string
	}{
		{"module does not import", "import", []string{"--argparse", "no_such_module_here:main"}},
		{"factory returns a non-parser", "not_parser", []string{"--argparse", "teamtool:not_a_parser", "--pythonpath", pyInventoryDir}},
		{"no such factory", "no_factory", []string{"--argparse", "teamtool:nothing", "--pythonpath", pyInventoryDir}},
		{"python missing", "python_missing", []string{"--argparse", "zipfile:main", "--python", "/nonexistent/python3"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := e.fail("inventory_failed", append([]string{"inventory"}, tc.args...)...)
			var d struct{ Target, Kind string }
			if err := json.Unmarshal(r.Error.Details, &d); err != nil || d.Kind != tc.kind || d.Target != tc.args[1] {
				t.Fatalf("details = %s, want kind %s and target %s", r.Error.Details, tc.kind, tc.args[1])
			}
		})
	}
	e.fail("invalid_argument", "inventory", "--python", "python3")
}

// TestInventoryClick: `limcp inventory --click` walks a click CLI and names
// what blocks each unavailable command (a custom ParamType, a callback).
func TestInventoryClick(t *testing.T) {
	if err := exec.Command("python3", "-c", "import click").Run(); err != nil {
		msg := "python3 cannot import click (.ci/run installs python3-click with apt): " + err.Error()
		if os.Getenv("CI") == "true" || os.Getenv("VERBSURFACE_REQUIRE_CLICK") == "1" {
			t.Fatal(msg)
		}
		t.Skip(msg)
	}
	e := newEnv(t)
	var inv inventory
	e.ok(&inv, "inventory", "--click", "teamclick:cli", "--pythonpath", pyInventoryDir)
	if inv.Source != "click:teamclick:cli" || inv.Commands != 4 || inv.Offerable != 3 || inv.Clean != 1 {
		t.Fatalf("want 1 of 3 commands clean:\n%s", mustJSON(t, inv))
	}
	reasons := map[string]string{}
	for _, u := range inv.Unavailable {
		for _, r := range u.Reasons {
			reasons[strings.Join(u.Path, " ")] += r.Reason
		}
	}
	if !strings.Contains(reasons["spend"], "teamclick.Budget") || !strings.Contains(reasons["shout"], "teamclick._shout") {
		t.Errorf("reasons do not name the type and the callback: %v", reasons)
	}
	r := e.fail("inventory_failed", "inventory", "--click", "teamclick:nothing", "--pythonpath", pyInventoryDir)
	var d struct{ Target, Kind string }
	if err := json.Unmarshal(r.Error.Details, &d); err != nil || d.Kind != "no_factory" || d.Target != "teamclick:nothing" {
		t.Errorf("details = %s", r.Error.Details)
	}
	e.fail("invalid_argument", "inventory", "--click", "teamclick:cli", "--argparse", "zipfile:main")
}

// TestInventoryFenceAndMachine: --fence and --machine-flag apply what a
// front would. A fenced command (named by its alias) is not offerable; a
// command that does not accept the machine-mode option is unavailable with
// the reason, not counted clean as it was before these flags.
func TestInventoryFenceAndMachine(t *testing.T) {
	e := newEnv(t)
	var inv inventory
	e.ok(&inv, "inventory", "--argparse", "teamtool:build", "--pythonpath", pyInventoryDir,
		"--fence", "ship", "--machine-flag=--json")
	if fmt.Sprint(inv.Fenced) != "[[deploy]]" || inv.Offerable != 3 || inv.Clean != 0 {
		t.Fatalf("want deploy fenced and nothing clean without a --json:\n%s", mustJSON(t, inv))
	}
	var reason string
	for _, u := range inv.Unavailable {
		if strings.Join(u.Path, " ") == "status" {
			reason = u.Reasons[0].Reason
		}
	}
	if !strings.Contains(reason, "no machine-result seam") || !strings.Contains(reason, "--json") {
		t.Errorf("status's reason %q does not name the missing seam", reason)
	}
	// Without the flags the same CLI is 3 of 4 clean (TestInventoryNamesWhatBlocks).
	e.fail("invalid_argument", "inventory", "--machine-at", "middle")
	e.fail("invalid_argument", "inventory", "--machine-flag", "json")
}
