//go:build unix

package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// The binaries the end-to-end tests run: verbsurface itself and the cobra
// fixture CLI, built once per test binary.
var vsBin, tasksSrcBin, binDir string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "verbsurface-e2e-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	binDir = dir
	// What the servers keep in their state directory (a generated token,
	// a cobra binary's cached tree) stays in the test's directory.
	os.Setenv("XDG_STATE_HOME", filepath.Join(dir, "state"))
	vsBin, tasksSrcBin = filepath.Join(dir, "verbsurface"), filepath.Join(dir, "tasks")
	for _, b := range [][]string{{vsBin, "."}, {tasksSrcBin, "./internal/tasks"}} {
		cmd := exec.Command("go", "build", "-o", b[0], b[1])
		cmd.Stderr = os.Stderr
		if err := cmd.Run(); err != nil {
			fmt.Fprintln(os.Stderr, "building", b[1], err)
			os.RemoveAll(dir)
			os.Exit(2)
		}
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// client is a real go-sdk MCP client session with `verbsurface serve`.
type client struct {
	t  *testing.T
	cs *mcp.ClientSession
}

func serve(t *testing.T, config string, env ...string) *client {
	t.Helper()
	cmd := exec.Command(vsBin, "serve", "-c", config)
	cmd.Env = append(os.Environ(), env...)
	return serveCmd(t, cmd)
}

// serveCmd opens a session with cmd, a `verbsurface serve` command.
func serveCmd(t *testing.T, cmd *exec.Cmd) *client {
	t.Helper()
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "e2e", Version: "v0"}, nil).
		Connect(context.Background(), &mcp.CommandTransport{Command: cmd, TerminateDuration: 2 * time.Second}, nil)
	if err != nil {
		t.Fatalf("starting verbsurface serve: %v\n%s", err, stderr.String())
	}
	t.Cleanup(func() { cs.Close() })
	return &client{t: t, cs: cs}
}

// call sends one request and returns the decoded response.
func (c *client) call(req string) map[string]any {
	c.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	res, err := c.cs.CallTool(ctx, &mcp.CallToolParams{Name: "request", Arguments: json.RawMessage(req)})
	if err != nil {
		c.t.Fatalf("tools/call %s: %v", req, err)
	}
	var r map[string]any
	if err := json.Unmarshal([]byte(res.Content[0].(*mcp.TextContent).Text), &r); err != nil {
		c.t.Fatal(err)
	}
	return r
}

// op runs one op and returns its result object.
func (c *client) op(op string) map[string]any {
	c.t.Helper()
	r := c.call(`{"ops":[` + op + `]}`)
	return r["results"].([]any)[0].(map[string]any)
}

func (c *client) help(verb string) (schema map[string]any, fingerprint string) {
	c.t.Helper()
	h := c.call(`{"help":"` + verb + `"}`)["help"].(map[string]any)
	fp, _ := h["schema_fingerprint"].(string)
	if fp == "" {
		c.t.Fatalf("help %s: %v", verb, h)
	}
	return h["schema"].(map[string]any), fp
}

func code(r map[string]any) string {
	if e, ok := r["error"].(map[string]any); ok {
		return e["code"].(string)
	}
	return ""
}

// copyFixture copies the argparse notes fixture into a fresh directory,
// so a test can edit the CLI.
func copyFixture(t *testing.T) string {
	t.Helper()
	return copyTestdata(t, "notes", "notes.py", "notes.yaml")
}

// touchLater moves a file's modification time forward, so a change is
// seen even within the file system's clock resolution.
func touchLater(t *testing.T, path string) {
	later := time.Now().Add(time.Minute)
	if err := os.Chtimes(path, later, later); err != nil {
		t.Fatal(err)
	}
}

// A Python argparse CLI with --json on its root parser, fronted by YAML
// alone: catalog, help, fingerprinted control verbs, a refused choice, a
// fenced command, an excluded flag, the CLI's own words, an edited CLI.
func TestArgparseCLIThroughServe(t *testing.T) {
	dir := copyFixture(t)
	home := t.TempDir()
	c := serve(t, filepath.Join(dir, "notes.yaml"), "NOTES_HOME="+home)

	cat := c.call(`{"help":true}`)["help"].(map[string]any)
	verbs := fmt.Sprint(cat["verbs"])
	for _, want := range []string{"note.add(text, +1) — add a note", "note.list", "note.show", "note.rm"} {
		if !strings.Contains(verbs, want) {
			t.Errorf("catalog lacks %q: %s", want, verbs)
		}
	}
	if cat["unavailable"] != nil || strings.Contains(verbs, "admin") {
		t.Errorf("catalog: %v", cat)
	}

	schema, fp := c.help("note.add")
	props := schema["properties"].(map[string]any)
	if _, ok := props["home"]; ok {
		t.Error("the excluded --home is offered")
	}
	if _, ok := props["json"]; ok {
		t.Error("the machine flag is offered")
	}

	if r := c.op(`{"op":"note.add","args":{"text":"buy milk"}}`); code(r) != "missing_fingerprint" {
		t.Errorf("control verb with fingerprint: true ran without one: %v", r)
	}
	r := c.op(`{"op":"note.add","args":{"text":"buy milk","priority":"high"},"fingerprint":"` + fp + `"}`)
	if res, _ := r["result"].(map[string]any); r["ok"] != true || res["text"] != "buy milk" || res["priority"] != "high" {
		t.Fatalf("note.add: %v", r)
	}
	if r := c.op(`{"op":"note.list"}`); len(r["result"].(map[string]any)["notes"].([]any)) != 1 {
		t.Errorf("note.list after add: %v", r)
	}
	r = c.op(`{"op":"note.add","args":{"text":"x","priority":"urgent"},"fingerprint":"` + fp + `"}`)
	if code(r) != "invalid_args" || !strings.Contains(fmt.Sprint(r["error"]), "priority") {
		t.Errorf("invalid choice: %v", r)
	}
	if r := c.op(`{"op":"admin.reset"}`); code(r) != "not_allowed" {
		t.Errorf("fenced command: %v", r)
	}
	if r := c.op(`{"op":"note.show","args":{"id":99}}`); code(r) != "cli_error" || !strings.Contains(fmt.Sprint(r["error"]), "unknown_id") {
		t.Errorf("the CLI's own error: %v", r)
	}
	if r := c.op(`{"op":"list"}`); code(r) != "unknown_verb" || fmt.Sprint(r["error"].(map[string]any)["matches"]) != "[note.list]" {
		t.Errorf("the CLI's word: %v", r)
	}
	if r := c.op(`{"op":"ls"}`); !strings.Contains(fmt.Sprint(r["error"]), "note.list") {
		t.Errorf("the CLI's alias: %v", r)
	}

	// Edit the CLI: a new option on add. The next request sees it.
	py := filepath.Join(dir, "notes.py")
	editSource(t, py, `add.add_argument("text", help="the note")`, `add.add_argument("text", help="the note")
    add.add_argument("--tag", help="a tag")`)
	schema2, fp2 := c.help("note.add")
	if fp2 == fp {
		t.Error("the edited CLI kept its fingerprint")
	}
	if _, ok := schema2["properties"].(map[string]any)["tag"]; !ok {
		t.Errorf("the new option is not in the schema: %v", schema2)
	}
	if r := c.op(`{"op":"note.add","args":{"text":"y"},"fingerprint":"` + fp + `"}`); code(r) != "stale_fingerprint" {
		t.Errorf("old fingerprint after the edit: %v", r)
	}
	if r := c.op(`{"op":"note.add","args":{"text":"y","tag":"home"},"fingerprint":"` + fp2 + `"}`); r["ok"] != true {
		t.Errorf("new option: %v", r)
	}
}

// writeTasksConfig copies the cobra fixture binary and writes its
// configuration: the tree from its __verbsurface-tree command.
func writeTasksConfig(t *testing.T) (config, bin string) {
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
command: [` + bin + `]
machine: {args: ["--json"]}
source: {tree_command: [` + bin + `, __verbsurface-tree]}
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

// A cobra CLI in another binary, fronted through its hidden tree command.
func TestCobraCLIThroughServe(t *testing.T) {
	config, bin := writeTasksConfig(t)
	c := serve(t, config, "TASKS_HOME="+t.TempDir())

	if verbs := fmt.Sprint(c.call(`{"help":true}`)["help"].(map[string]any)["verbs"]); !strings.Contains(verbs, "task.add(name, +1) — add a task") {
		t.Errorf("catalog: %s", verbs)
	}
	_, fp := c.help("task.add")
	if r := c.op(`{"op":"task.add","args":{"name":"write tests"}}`); code(r) != "missing_fingerprint" {
		t.Errorf("spawn without fingerprint: %v", r)
	}
	r := c.op(`{"op":"task.add","args":{"name":"write tests","size":"l"},"fingerprint":"` + fp + `"}`)
	if res, _ := r["result"].(map[string]any); r["ok"] != true || res["size"] != "l" {
		t.Fatalf("task.add: %v", r)
	}
	if r := c.op(`{"op":"task.add","args":{"name":"x","size":"xl"},"fingerprint":"` + fp + `"}`); code(r) != "invalid_args" {
		t.Errorf("invalid size: %v", r)
	}
	if r := c.op(`{"op":"purge"}`); code(r) != "not_allowed" {
		t.Errorf("fenced: %v", r)
	}
	if r := c.op(`{"op":"ls"}`); !strings.Contains(fmt.Sprint(r["error"]), "task.list") {
		t.Errorf("cobra alias: %v", r)
	}

	// Rebuild the CLI with one more flag, in place.
	build := exec.Command("go", "build", "-ldflags", "-X main.extraFlag=yes", "-o", bin, "./internal/tasks")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("rebuilding: %v\n%s", err, out)
	}
	touchLater(t, bin)
	schema, fp2 := c.help("task.add")
	if fp2 == fp {
		t.Error("the rebuilt CLI kept its fingerprint")
	}
	if _, ok := schema["properties"].(map[string]any)["owner"]; !ok {
		t.Errorf("the new flag is not in the schema: %v", schema)
	}
}

func runVS(t *testing.T, args ...string) (stdout, stderr string, status int) {
	t.Helper()
	cmd := exec.Command(vsBin, args...)
	var o, e bytes.Buffer
	cmd.Stdout, cmd.Stderr = &o, &e
	cmd.Stdin = strings.NewReader("")
	err := cmd.Run()
	if ee, ok := err.(*exec.ExitError); ok {
		status = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return o.String(), e.String(), status
}

// check fails naming the file, the line and the field; a verb that cannot
// be offered fails check and stops serve.
func TestCheckNamesTheLine(t *testing.T) {
	dir := copyFixture(t)
	good, _ := os.ReadFile(filepath.Join(dir, "notes.yaml"))
	cases := []struct {
		name, edit, want string
	}{
		{"unknown key", strings.Replace(string(good), "exclude:", "exclud:", 1), "bad.yaml:6: exclud: unknown key"},
		{"bad class", strings.Replace(string(good), "class: observe}", "class: read}", 1), `bad.yaml:10: verbs[1].class: "read" is not spawn`},
		{"two sources", strings.Replace(string(good), "source: {argparse:", "source: {tree_file: t.json, argparse:", 1), "bad.yaml:4: source: give exactly one"},
		{"second document", string(good) + "---\nname: x\n", "more than one YAML document"},
		{"bad machine position", strings.Replace(string(good), "at: root", "at: middle", 1), `bad.yaml:3: machine.at: "middle" is not root or leaf`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			bad := filepath.Join(dir, "bad.yaml")
			if err := os.WriteFile(bad, []byte(tc.edit), 0o644); err != nil {
				t.Fatal(err)
			}
			_, stderr, status := runVS(t, "check", "-c", bad)
			if status == 0 || !strings.Contains(stderr, tc.want) {
				t.Errorf("status %d, stderr %q, want %q", status, stderr, tc.want)
			}
		})
	}

	// A path typo and a machine mode at the wrong position: check lists
	// each verb, serve refuses to start unless told to tolerate.
	typo := strings.Replace(string(good), "path: [show]", "path: [shwo]", 1)
	typo = strings.Replace(typo, "at: root", "at: leaf", 1)
	bad := filepath.Join(dir, "typo.yaml")
	os.WriteFile(bad, []byte(typo), 0o644)
	stdout, _, status := runVS(t, "check", "-c", bad)
	if status == 0 || !strings.Contains(stdout, `verb note.show cannot be offered`) || !strings.Contains(stdout, `no command "shwo"`) ||
		!strings.Contains(stdout, "machine.at: root") {
		t.Errorf("check of a typo: status %d\n%s", status, stdout)
	}
	_, stderr, status := runVS(t, "serve", "-c", bad)
	if status != 1 || !strings.Contains(stderr, "not serving") {
		t.Errorf("serve with an unofferable verb: status %d\n%s", status, stderr)
	}
	if _, stderr, status := runVS(t, "serve", "--tolerate-unavailable", "-c", bad); status != 0 {
		t.Errorf("tolerating serve did not exit cleanly on EOF: status %d\n%s", status, stderr)
	}
	if stdout, _, status := runVS(t, "check", "-c", filepath.Join(dir, "notes.yaml")); status != 0 || !strings.Contains(stdout, "ok: 4 verbs") {
		t.Errorf("good config: %d %s", status, stdout)
	}
}

// serve exits 0 when its client disconnects normally.
func TestServeExitsCleanlyOnDisconnect(t *testing.T) {
	dir := copyFixture(t)
	_, stderr, status := runVS(t, "serve", "-c", filepath.Join(dir, "notes.yaml"))
	if status != 0 || stderr != "" {
		t.Errorf("status %d, stderr %q", status, stderr)
	}
}

// inventory applies the configuration: the fenced command is not counted
// offerable, a machine mode at the wrong position leaves nothing offerable.
func TestInventoryAppliesConfig(t *testing.T) {
	dir := copyFixture(t)
	out, _, status := runVS(t, "inventory", "-c", filepath.Join(dir, "notes.yaml"))
	var inv Inventory
	if status != 0 || json.Unmarshal([]byte(out), &inv) != nil {
		t.Fatalf("status %d: %s", status, out)
	}
	if inv.Tree.Clean != 4 || len(inv.Tree.Unavailable) != 0 || fmt.Sprint(inv.Tree.Fenced) != "[[admin reset]]" {
		t.Errorf("root machine mode: %s", out)
	}
	good, _ := os.ReadFile(filepath.Join(dir, "notes.yaml"))
	leaf := filepath.Join(dir, "leaf.yaml")
	os.WriteFile(leaf, []byte(strings.Replace(string(good), "at: root", "at: leaf", 1)), 0o644)
	out, _, _ = runVS(t, "inventory", "-c", leaf)
	inv = Inventory{}
	json.Unmarshal([]byte(out), &inv)
	if inv.Tree.Clean != 0 || len(inv.Tree.Unavailable) != 4 || len(inv.Unavailable) != 4 {
		t.Fatalf("leaf machine mode on a root flag: %s", out)
	}
	for _, u := range inv.Tree.Unavailable {
		if r := u.Reasons[0].Reason; !strings.Contains(r, "no machine-result seam") || !strings.Contains(r, "machine.at: root") {
			t.Errorf("%v: reason %q does not name the seam and its fix", u.Path, r)
		}
	}
}

// The config's policy key: a policy file enforced by verbsurface serve as
// by limcp mcp --policy, checked against the live verbs at start (a rule
// naming a verb the front lacks fails check, naming the file).
func TestPolicyThroughServe(t *testing.T) {
	config, _ := writeTasksConfig(t)
	dir := filepath.Dir(config)
	pol := filepath.Join(dir, "policy.yaml")
	write := func(body string) {
		if err := os.WriteFile(pol, []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	write("version: 1\ndefault: deny\nrules:\n  - {name: reads, verbs: [task.list], decision: allow}\n" +
		"  - {name: no-big, verbs: [task.add], when: {size: {in: [xl, l]}}, decision: deny, reason: big tasks need a person}\n" +
		"  - {name: small, verbs: [task.add], decision: allow}\n")
	b, err := os.ReadFile(config)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(config, append(b, []byte("policy: policy.yaml\n")...), 0o644); err != nil {
		t.Fatal(err)
	}
	c := serve(t, config, "TASKS_HOME="+t.TempDir())
	_, fp := c.help("task.add")
	r := c.op(`{"op":"task.add","args":{"name":"big","size":"l"},"fingerprint":"` + fp + `"}`)
	if code(r) != "policy_refused" || !strings.Contains(fmt.Sprint(r["error"]), "big tasks need a person") {
		t.Errorf("a denied op: %v", r)
	}
	if r := c.op(`{"op":"task.add","args":{"name":"small","size":"s"},"fingerprint":"` + fp + `"}`); r["ok"] != true {
		t.Errorf("an allowed op: %v", r)
	}
	write("version: 1\nrules:\n  - {name: gone, verbs: [task.remove], decision: allow}\n")
	_, stderr, status := runVS(t, "check", "-c", config)
	if status == 0 || !strings.Contains(stderr, "policy") || !strings.Contains(stderr, "task.remove") {
		t.Errorf("check with a stale policy: status %d\n%s", status, stderr)
	}
}
