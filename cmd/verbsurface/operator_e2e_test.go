//go:build unix

package main

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// gitlint (Debian's package) hands its --commit value to `git log`. Its
// parser reads any string, so {"commit": "--output=FILE"} would reach git
// as an option, and git writes FILE wherever it says. The configuration's
// constraint (a hexadecimal id, no leading dash) is in the schema the agent
// reads, refuses that value before anything runs, and a real commit id
// still lints exactly as gitlint does when run directly.
func TestConstraintKeepsAValueFromTheNextProgram(t *testing.T) {
	needProgram(t, "gitlint", "gitlint")
	if _, err := exec.LookPath("git"); err != nil {
		if os.Getenv(requireProgramsEnv) != "" {
			t.Fatalf("git is required (%s is set): %v", requireProgramsEnv, err)
		}
		t.Skipf("git is not installed (apt-get install git): %v", err)
	}
	dir := copyTestdata(t, "gitlint", "gitlint.yaml")
	git := func(args ...string) string {
		t.Helper()
		cmd := exec.Command("git", append([]string{"-C", dir, "-c", "user.name=Dev", "-c", "user.email=dev@example.org"}, args...)...)
		cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "HOME="+dir)
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
		return strings.TrimSpace(string(out))
	}
	git("init", "-q")
	git("commit", "-q", "--allow-empty", "-m", "Add a title that ends in a period.")
	sha := git("rev-parse", "HEAD")
	outside := t.TempDir()

	// The premise: run directly, gitlint gives the value to git, and git
	// writes the file it names.
	direct := func(commit string) (string, int) {
		cmd := exec.Command("gitlint", "--ignore-stdin", "--commit", commit)
		cmd.Dir = dir
		var stderr strings.Builder
		cmd.Stderr = &stderr
		err := cmd.Run()
		code := 0
		if ee, ok := err.(*exec.ExitError); ok {
			code = ee.ExitCode()
		} else if err != nil {
			t.Fatal(err)
		}
		return stderr.String(), code
	}
	premise := filepath.Join(outside, "premise")
	direct("--output=" + premise)
	if _, err := os.Stat(premise); err != nil {
		t.Fatalf("gitlint no longer hands --commit to git as an option (%v): this test needs another program", err)
	}

	config := filepath.Join(dir, "gitlint.yaml")
	if stdout, _, status := runVS(t, "check", "-c", config); status != 0 || !strings.Contains(stdout, "ok: 1 verbs offered") {
		t.Fatalf("check: status %d\n%s", status, stdout)
	}
	c := serve(t, config)
	schema, _ := c.help("commit.lint")
	commit, _ := json.Marshal(schema["properties"].(map[string]any)["commit"])
	if !strings.Contains(string(commit), `"allOf":[{"pattern":"^[0-9a-f]{7,40}$"},{"pattern":"^(?:$|[^-])"}]`) {
		t.Errorf("the agent's schema does not say the constraint: %s", commit)
	}

	written := filepath.Join(outside, "written")
	for _, value := range []string{"--output=" + written, "-p", "HEAD"} {
		r := c.op(`{"op":"commit.lint","args":{"commit":` + quoteJSON(value) + `}}`)
		if code(r) != "invalid_args" || !strings.Contains(fmt.Sprint(r["error"]), "pattern") {
			t.Errorf("commit %q: %v", value, r)
		}
	}
	if _, err := os.Stat(written); err == nil {
		t.Fatal("git wrote the file a caller named")
	}

	r := resultOf(t, c.op(`{"op":"commit.lint","args":{"commit":`+quoteJSON(sha)+`}}`))
	wantStderr, wantCode := direct(sha)
	if r.ExitCode != wantCode || r.Stderr != wantStderr || !strings.Contains(r.Stderr, "T3 Title has trailing punctuation") {
		t.Errorf("a real commit: exit %d, stderr %q; run directly: exit %d, stderr %q", r.ExitCode, r.Stderr, wantCode, wantStderr)
	}
}

func quoteJSON(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// An optional method word before the URL (httpie's shape) cannot be
// excluded, and args: takes options only: fixed: gives it, and the
// program's own parser (it prints what it read) gets the fixed values and
// the caller's, each where it belongs. Constraints narrow the URL and a
// parser's choices; stated positionals replace what the reader found; an
// option whose values may be none is fixed alone.
func TestFixedValuesAndStatedPositionalsThroughServe(t *testing.T) {
	dir := copyTestdata(t, "req", "req.py", "req.yaml")
	config := filepath.Join(dir, "req.yaml")
	if stdout, _, status := runVS(t, "check", "-c", config); status != 0 || !strings.Contains(stdout, "ok: 3 verbs offered") {
		t.Fatalf("check: status %d\n%s", status, stdout)
	}
	// The inventory judges the command as the verb that runs it offers
	// it: unavailable alone (the method word and the items), clean once
	// the method is fixed.
	out, _, _ := runVS(t, "inventory", "-c", config)
	var inv Inventory
	if json.Unmarshal([]byte(out), &inv) != nil || inv.Tree.Clean != 1 {
		t.Errorf("inventory: %s", out)
	}
	c := serve(t, config)
	props := func(verb string) map[string]any {
		schema, _ := c.help(verb)
		return schema["properties"].(map[string]any)
	}
	get := props("get")
	for _, gone := range []string{"method", "format", "opts"} {
		if _, ok := get[gone]; ok {
			t.Errorf("get offers %s, which the operator fixed", gone)
		}
	}
	if b, _ := json.Marshal(get["url"]); !strings.Contains(string(b), `"allOf":[{"pattern":"^https://"},{"pattern":"^(?:$|[^-])"}]`) {
		t.Errorf("get's url: %s", b)
	}
	if b, _ := json.Marshal(props("delete")["format"]); !strings.Contains(string(b), `"enum":["json","table"]`) {
		t.Errorf("delete's format: %s", b)
	}
	if head := props("head"); head["items"] != nil || head["url"] != nil || head["target"] == nil || head["method"] != nil {
		t.Errorf("head's stated positionals: %v", head)
	}

	parsed := func(r map[string]any) string {
		t.Helper()
		return string(resultOf(t, r).Output)
	}
	for _, tc := range []struct{ op, want string }{
		{`{"op":"get","args":{"url":"https://example.org","items":["a=b","GET"]}}`,
			`{"format":"json","items":["a=b","GET"],"method":"GET","opts":[],"url":"https://example.org","verbose":false}`},
		{`{"op":"get","args":{"url":"https://example.org","verbose":true}}`,
			`{"format":"json","items":[],"method":"GET","opts":[],"url":"https://example.org","verbose":true}`},
		{`{"op":"delete","args":{"url":"https://example.org/x","format":"table"}}`,
			`{"format":"table","items":[],"method":"DELETE","opts":null,"url":"https://example.org/x","verbose":false}`},
		{`{"op":"head","args":{"target":"-x"}}`,
			`{"format":"text","items":[],"method":"GET","opts":null,"url":"-x","verbose":false}`},
	} {
		if got := parsed(c.op(tc.op)); !jsonEqual(got, tc.want) {
			t.Errorf("%s: the program read %s, want %s", tc.op, got, tc.want)
		}
	}
	for _, tc := range []struct{ op, want string }{
		{`{"op":"get","args":{"url":"https://example.org","method":"DELETE"}}`, "unknown parameter"},
		{`{"op":"get","args":{"url":"http://example.org"}}`, `the pattern "^https://"`},
		{`{"op":"get","args":{"url":"https://x","items":["--verbose"]}}`, "pattern"},
		{`{"op":"delete","args":{"url":"https://x","format":"text"}}`, "not one of the choices"},
		{`{"op":"head","args":{"target":"https://x","items":["a"]}}`, "unknown parameter"},
	} {
		r := c.op(tc.op)
		if code(r) != "invalid_args" || !strings.Contains(fmt.Sprint(r["error"]), tc.want) {
			t.Errorf("%s: %v, want invalid_args saying %s", tc.op, r["error"], tc.want)
		}
	}
}

// verbsurface inventory walks every source limcp inventory walks: a click
// program with its own interpreter (--click, --python), an argparse one
// from a directory (--argparse, --pythonpath), and refuses two sources at
// once or an interpreter for none of them.
func TestInventorySourceFlags(t *testing.T) {
	needProgram(t, "sqlite-utils", "sqlite_utils")
	for _, args := range [][]string{
		{"--click", "sqlite_utils.cli:cli", "--python", clickPython},
		{"--argparse", "req:build_parser", "--pythonpath", filepath.Join("testdata", "req"), "--python", clickPython},
	} {
		out, errOut, status := runVS(t, append([]string{"inventory"}, args...)...)
		var rep struct {
			Commands int `json:"commands"`
			Clean    int `json:"clean"`
		}
		if status != 0 || json.Unmarshal([]byte(out), &rep) != nil || rep.Commands == 0 {
			t.Errorf("inventory %q: status %d\n%s%s", args, status, out, errOut)
		}
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--click", "a:b", "--argparse", "c:d"}, "give one"},
		{[]string{"--python", "/usr/bin/python3"}, "applies to --argparse and --click only"},
	} {
		if _, errOut, status := runVS(t, append([]string{"inventory"}, tc.args...)...); status == 0 || !strings.Contains(errOut, tc.want) {
			t.Errorf("inventory %q: status %d\n%s", tc.args, status, errOut)
		}
	}
}

// A verb a click parameter's class blocks says, in the configuration's
// words, how to vouch for it or leave it out (source.click.exclude), as
// check's path warning says how to mark a path.
func TestCheckTeachesHowToLeaveAParameterOut(t *testing.T) {
	needClick(t)
	dir := copyKV(t)
	good, _ := os.ReadFile(filepath.Join(dir, "kv.yaml"))
	drop := "    callbacks: [kv.check_ttl]          # validates only\n"
	edited := strings.Replace(string(good), drop, "", 1)
	if edited == string(good) {
		t.Fatalf("the edit %q did not apply", drop)
	}
	path := filepath.Join(dir, "edited.yaml")
	if err := os.WriteFile(path, []byte(edited), 0o644); err != nil {
		t.Fatal(err)
	}
	stdout, _, status := runVS(t, "check", "-c", path)
	for _, want := range []string{"list it in source.click.callbacks if it only validates", "leave it out while walking: source.click.exclude: [--ttl]"} {
		if status != 1 || !strings.Contains(stdout, want) {
			t.Errorf("check: status %d, want %q in\n%s", status, want, stdout)
		}
	}
	// What it says works: the verb is offered once --ttl is left out.
	excluded := strings.Replace(edited, "exclude: [--home]", "exclude: [--home, --ttl]", 1)
	if err := os.WriteFile(path, []byte(excluded), 0o644); err != nil {
		t.Fatal(err)
	}
	if stdout, _, status := runVS(t, "check", "-c", path); status != 0 {
		t.Errorf("with --ttl left out: status %d\n%s", status, stdout)
	}
}

// A program whose format option is called --output: named like a file,
// it cannot carry the machine mode until help lists its values or the
// verb says it is no path (files: [output:none]); check, serve and the
// inventory all judge it so.
func TestOutputOptionThatIsNoPath(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"tree.json": `{"program": "kc", "dialect": "pflag", "commands": [{"path": [], "runnable": false, "params": []},
			{"path": ["get"], "runnable": true, "params": [
			{"name": "output", "options": ["-o", "--output"], "kind": "string", "arity": "one", "action": "pflag:string", "help": "%s"}]}]}`,
		"kc.yaml": "name: kc\ncommand: [sh]\noutput: json\nmachine: {args: [-o, json]}\nsource: {tree_file: tree.json}\n" +
			"verbs:\n  - {name: get, path: [get], class: observe%s}\n",
	})
	tree, _ := os.ReadFile(filepath.Join(dir, "tree.json"))
	config, _ := os.ReadFile(filepath.Join(dir, "kc.yaml"))
	for _, tc := range []struct {
		name, help, files string
		clean             int
	}{
		{"named like a file", "where to write", "", 0},
		{"help lists its values", "Output format. Allowed values: json, yaml, table", "", 1},
		{"the verb says it is no path", "where to write", ", files: [output:none]", 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			writeFiles(t, dir, map[string]string{
				"tree.json": fmt.Sprintf(string(tree), tc.help),
				"kc.yaml":   fmt.Sprintf(string(config), tc.files),
			})
			p := filepath.Join(dir, "kc.yaml")
			stdout, _, status := runVS(t, "check", "-c", p)
			if (status == 0) != (tc.clean == 1) {
				t.Errorf("check: status %d\n%s", status, stdout)
			}
			if tc.clean == 0 && !strings.Contains(stdout, "takes a path (parameter output)") {
				t.Errorf("check does not say why:\n%s", stdout)
			}
			out, _, _ := runVS(t, "inventory", "-c", p)
			var inv Inventory
			if json.Unmarshal([]byte(out), &inv) != nil || inv.Tree.Clean != tc.clean {
				t.Errorf("inventory: clean %d, want %d\n%s", inv.Tree.Clean, tc.clean, out)
			}
		})
	}
}
