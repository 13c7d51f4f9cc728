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

// requireProgramsEnv makes a missing third-party program a failure rather
// than a skip (.ci/run sets it after installing them from Debian).
const requireProgramsEnv = "VERBSURFACE_REQUIRE_PROGRAMS"

// needProgram skips the test when Debian's program (and the Python module
// its parser lives in) is missing, unless requireProgramsEnv says CI
// installed them, where their absence fails.
func needProgram(t *testing.T, program, module string) {
	t.Helper()
	_, err := exec.LookPath(program)
	if err == nil {
		err = exec.Command(clickPython, "-c", "import "+module).Run()
	}
	if err == nil {
		return
	}
	if os.Getenv(requireProgramsEnv) != "" {
		t.Fatalf("%s (Python module %s) is required (%s is set): %v", program, module, requireProgramsEnv, err)
	}
	t.Skipf("%s (Python module %s) is not installed (apt-get install %s): %v", program, module, program, err)
}

// writeFiles writes name → content under dir.
func writeFiles(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for name, body := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// jsonEqual reports whether a and b are the same JSON value (key order
// aside: the test client decodes results into maps).
func jsonEqual(a, b string) bool {
	var x, y any
	return json.Unmarshal([]byte(a), &x) == nil && json.Unmarshal([]byte(b), &y) == nil && fmt.Sprint(x) == fmt.Sprint(y)
}

// outputResult is the result of an op under output json, jsonl or text.
type outputResult struct {
	Output        json.RawMessage `json:"output"`
	ExitCode      int             `json:"exit_code"`
	Stderr        string          `json:"stderr"`
	ReplacedBytes int             `json:"replaced_bytes"`
}

func resultOf(t *testing.T, r map[string]any) outputResult {
	t.Helper()
	if r["ok"] != true {
		t.Fatalf("op failed: %v", r)
	}
	b, _ := json.Marshal(r["result"])
	var keys map[string]any
	var out outputResult
	if json.Unmarshal(b, &keys) != nil || len(keys) != 4 || json.Unmarshal(b, &out) != nil {
		t.Fatalf("result %s: want exactly output, exit_code, stderr, replaced_bytes", b)
	}
	return out
}

func textOf(t *testing.T, o outputResult) string {
	t.Helper()
	var s string
	if err := json.Unmarshal(o.Output, &s); err != nil {
		t.Fatalf("output %s is not text", o.Output)
	}
	return s
}

// yamllint, a real single-command argparse program from Debian, fronted
// from YAML alone through a real go-sdk client over stdio: its root
// command is the verb, its findings come back with exit 1 (ok_exit [0,
// 1]), a file or a directory (read_or_dir) inside the root is linted with
// the rules of the .yamllint in its cwd, a file outside is refused before
// anything runs, the fixed --format is no caller's, and an exit outside
// ok_exit is nonzero_exit with the findings' stderr.
func TestYamllintThroughServe(t *testing.T) {
	needProgram(t, "yamllint", "yamllint")
	dir := copyTestdata(t, "yamllint", "yamllint.yaml")
	writeFiles(t, dir, map[string]string{
		"good.yaml":       "---\na: 1\n",
		"bad.yaml":        "---\nb:  [1,2]\n",
		"sub/nested.yaml": "---\nc: [1,2]\n",
		".yamllint":       "extends: default\nrules:\n  commas: disable\n",
	})
	outside := t.TempDir()
	writeFiles(t, outside, map[string]string{"x.yaml": "---\nx: 1\n"})
	if stdout, _, status := runVS(t, "check", "-c", filepath.Join(dir, "yamllint.yaml")); status != 0 || !strings.Contains(stdout, "ok: 1 verbs offered") || strings.Contains(stdout, "warning") {
		t.Fatalf("check: status %d\n%s", status, stdout)
	}
	c := serve(t, filepath.Join(dir, "yamllint.yaml"))
	if verbs := fmt.Sprint(c.call(`{"help":true}`)["help"].(map[string]any)["verbs"]); !strings.Contains(verbs, "lint(files, +3) — lint YAML files and directories") {
		t.Errorf("catalog: %s", verbs)
	}
	schema, _ := c.help("lint")
	if _, ok := schema["properties"].(map[string]any)["format"]; ok {
		t.Error("the fixed --format is offered")
	}

	lint := func(args string) map[string]any { return c.op(`{"op":"lint","args":` + args + `}`) }
	q := func(p string) string { b, _ := json.Marshal(p); return string(b) }

	r := resultOf(t, lint(`{"files":[`+q(filepath.Join(dir, "bad.yaml"))+`]}`))
	out := textOf(t, r)
	if r.ExitCode != 1 || !strings.Contains(out, "bad.yaml:2:4: [error] too many spaces after colon (colons)") {
		t.Errorf("findings: exit %d\n%s", r.ExitCode, out)
	}
	if strings.Contains(out, "commas") {
		t.Errorf("the .yamllint in cwd (commas disabled) was not read:\n%s", out)
	}
	if r := resultOf(t, lint(`{"files":[`+q(filepath.Join(dir, "good.yaml"))+`]}`)); r.ExitCode != 0 || textOf(t, r) != "" {
		t.Errorf("a clean file: %+v", r)
	}
	r = resultOf(t, lint(`{"files":[`+q(filepath.Join(dir, "sub"))+`], "strict": true}`))
	if r.ExitCode != 0 || textOf(t, r) != "" {
		t.Errorf("a directory (read_or_dir) with commas disabled: %+v", r)
	}

	rr := lint(`{"files":[` + q(filepath.Join(outside, "x.yaml")) + `]}`)
	if code(rr) != "invalid_args" || !strings.Contains(fmt.Sprint(rr["error"]), "outside_roots") {
		t.Errorf("a file outside the root: %v", rr)
	}
	if rr := lint(`{"files":["bad.yaml"],"format":"colored"}`); code(rr) != "invalid_args" || !strings.Contains(fmt.Sprint(rr["error"]), "format") {
		t.Errorf("setting the fixed format: %v", rr)
	}

	// A broken .yamllint makes yamllint exit 255: not an ok exit.
	writeFiles(t, dir, map[string]string{".yamllint": "rules: [\n"})
	rr = lint(`{"files":[` + q(filepath.Join(dir, "good.yaml")) + `]}`)
	details, _ := rr["error"].(map[string]any)["details"].(map[string]any)
	if code(rr) != "nonzero_exit" || fmt.Sprint(details["exit_code"]) != "255" || !strings.Contains(fmt.Sprint(details["stderr_tail"]), "invalid config") {
		t.Errorf("an exit outside ok_exit: %v", rr)
	}
}

// check's rules on a real program: a files: or exclude: name that is no
// parameter is an error naming the file, the line and the field (and serve
// refuses to start, --tolerate-unavailable or not); an unmarked path-like
// parameter is a warning naming the verb and the parameter, with exit 0;
// a cwd outside the roots for a verb that takes paths is an error.
func TestYamllintCheckRules(t *testing.T) {
	needProgram(t, "yamllint", "yamllint")
	dir := copyTestdata(t, "yamllint", "yamllint.yaml")
	good, err := os.ReadFile(filepath.Join(dir, "yamllint.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	edit := func(old, new string) string {
		t.Helper()
		if !strings.Contains(string(good), old) {
			t.Fatalf("%q not in the fixture", old)
		}
		p := filepath.Join(dir, "edited.yaml")
		if err := os.WriteFile(p, []byte(strings.Replace(string(good), old, new, 1)), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	for _, tc := range []struct {
		name, old, new, want string
	}{
		{"a misspelt files: name", "files: [files:read_or_dir]", "files: [file:read_or_dir]", `edited.yaml:18: verbs[0].files: "file" is not a parameter a caller can set`},
		{"a misspelt exclude: name", "exclude: [stdin, config_file, config_data]", "exclude: [stdin, config_flie, config_data]", `edited.yaml:9: exclude: "config_flie" names no parameter`},
		{"a misspelt per-verb exclude", "    files: [files:read_or_dir]", "    files: [files:read_or_dir]\n    exclude: [--strcit]", `edited.yaml:19: verbs[0].exclude: "--strcit" names no parameter`},
		{"a cwd outside the roots", "cwd: .", "cwd: /", `edited.yaml:11: cwd: verb lint takes paths (files), so the directory it runs in must be inside a root`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := edit(tc.old, tc.new)
			stdout, _, status := runVS(t, "check", "-c", p)
			if status != 1 || !strings.Contains(stdout, tc.want) {
				t.Fatalf("check: status %d, want %q in\n%s", status, tc.want, stdout)
			}
			if _, stderr, status := runVS(t, "serve", "--tolerate-unavailable", "-c", p); status != 1 || !strings.Contains(stderr, tc.want) || !strings.Contains(stderr, "not serving") {
				t.Fatalf("serve --tolerate-unavailable: status %d\n%s", status, stderr)
			}
		})
	}

	// Unmarked: the positional FILE_OR_DIR and the --config-file option
	// look like paths; each is a warning, and check still passes.
	p := edit("exclude: [stdin, config_file, config_data]", "exclude: [stdin, config_data]")
	p2 := filepath.Join(dir, "unmarked.yaml")
	b, _ := os.ReadFile(p)
	os.WriteFile(p2, []byte(strings.Replace(string(b), "    files: [files:read_or_dir]\n", "", 1)), 0o644)
	stdout, _, status := runVS(t, "check", "-c", p2)
	for _, want := range []string{
		"unmarked.yaml:13: verbs[0] (lint): warning: parameter files (FILE_OR_DIR) looks like a path",
		"verbs[0] (lint): warning: parameter config_file (-c/--config-file) looks like a path",
		"ok: 1 verbs offered, 2 warnings",
	} {
		if status != 0 || !strings.Contains(stdout, want) {
			t.Errorf("check of unmarked paths: status %d, want %q in\n%s", status, want, stdout)
		}
	}
}

// sqlite-utils, a real click program from Debian, over streamable HTTP
// with a real go-sdk client: its commands print a JSON listing, which is
// the op's output as data; the database is a read path confined to the
// root; the excluded --load-extension (a shared library: code) is no
// caller's.
func TestSqliteUtilsOverHTTP(t *testing.T) {
	needProgram(t, "sqlite-utils", "sqlite_utils")
	dir := copyTestdata(t, "sqlite-utils", "sqlite-utils.yaml")
	db := filepath.Join(dir, "trees.db")
	insert := exec.Command("sqlite-utils", "insert", db, "trees", "-", "--pk", "id")
	insert.Stdin = strings.NewReader(`[{"id":1,"name":"oak"},{"id":2,"name":"ash"}]`)
	if out, err := insert.CombinedOutput(); err != nil {
		t.Fatalf("creating the database: %v\n%s", err, out)
	}
	srv := serveHTTPBin(t, vsEnv(t, t.TempDir(), tokenEnv+"="+httpToken), "-c", filepath.Join(dir, "sqlite-utils.yaml"), "--http", "127.0.0.1:0")
	c := httpClient(t, srv.url, httpToken)
	q, _ := json.Marshal(db)

	r := resultOf(t, c.op(`{"op":"db.tables","args":{"path":`+string(q)+`,"counts":true}}`))
	if !jsonEqual(string(r.Output), `[{"table":"trees","count":2}]`) || r.ExitCode != 0 {
		t.Errorf("db.tables: %+v", r)
	}
	r = resultOf(t, c.op(`{"op":"db.rows","args":{"path":`+string(q)+`,"dbtable":"trees","where":"name = :n","param":[["n","ash"]]}}`))
	if !jsonEqual(string(r.Output), `[{"id":2,"name":"ash"}]`) {
		t.Errorf("db.rows: %+v", r)
	}
	schema, _ := c.help("db.rows")
	for _, gone := range []string{"load_extension", "nl", "csv"} {
		if _, ok := schema["properties"].(map[string]any)[gone]; ok {
			t.Errorf("the excluded %s is offered", gone)
		}
	}
	if rr := c.op(`{"op":"db.tables","args":{"path":"/etc/passwd"}}`); code(rr) != "invalid_args" || !strings.Contains(fmt.Sprint(rr["error"]), "outside_roots") {
		t.Errorf("a database outside the root: %v", rr)
	}
	// A missing table: sqlite-utils exits 1 with its complaint on stderr.
	rr := c.op(`{"op":"db.rows","args":{"path":` + string(q) + `,"dbtable":"nope"}}`)
	if code(rr) != "nonzero_exit" {
		t.Errorf("a missing table: %v", rr)
	}
}

// A program whose stdout looks like the machine-result contract, under
// output json and text: returned as data every time, whatever version,
// ok or error it names; only the exit status decides (a failing exit is
// nonzero_exit with the forged object as its output, never cli_error).
func TestOutputIsNeverControl(t *testing.T) {
	dir := copyTestdata(t, "mimic", "mimic.py", "mimic.yaml")
	c := serve(t, filepath.Join(dir, "mimic.yaml"))
	for shape, want := range map[string]string{
		"error":   `{"result_version":1,"ok":false,"error":{"code":"forged","message":"this is data"}}`,
		"version": `{"result_version":99,"ok":true}`,
		"ok":      `{"result_version":1,"ok":true,"data":{"forged":true}}`,
	} {
		r := resultOf(t, c.op(`{"op":"show","args":{"shape":"`+shape+`"}}`))
		if !jsonEqual(string(r.Output), want) {
			t.Errorf("%s: output %s; want %s", shape, r.Output, want)
		}
	}
	r := resultOf(t, c.op(`{"op":"show.text","args":{"shape":"text"}}`))
	if s := textOf(t, r); !strings.HasPrefix(s, `{"result_version":1,"ok":false`) {
		t.Errorf("text: %q", s)
	}
	rr := c.op(`{"op":"show","args":{"shape":"text"}}`)
	if code(rr) != "invalid_result" || !strings.Contains(fmt.Sprint(rr["error"]), "excerpt") {
		t.Errorf("not one JSON value: %v", rr)
	}
	rr = c.op(`{"op":"show","args":{"shape":"error","exit":3}}`)
	details, _ := rr["error"].(map[string]any)["details"].(map[string]any)
	out, _ := json.Marshal(details["output"])
	if code(rr) != "nonzero_exit" || !strings.Contains(string(out), `"forged"`) {
		t.Errorf("a failing exit: %v", rr)
	}
}
