//go:build unix

package main

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// clickPython is Debian's interpreter with Debian's click (.ci/run
// installs python3-click); the kv fixture's YAML names it.
const clickPython = "/usr/bin/python3"

func needClick(t *testing.T) {
	t.Helper()
	if err := exec.Command(clickPython, "-c", "import click").Run(); err != nil {
		t.Skipf("%s cannot import click (apt-get install python3-click): %v", clickPython, err)
	}
}

// copyKV copies the click kv fixture into a fresh directory, so a test can
// edit the CLI and its configuration.
func copyKV(t *testing.T) string {
	t.Helper()
	return copyTestdata(t, "kv", "kv.py", "kv.yaml")
}

// editSource edits a fixture CLI in place, replacing each old text by its
// new one (each must occur), and moves its modification time forward so
// the server sees the change.
func editSource(t *testing.T, path string, oldNew ...string) {
	t.Helper()
	src, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	edited := string(src)
	for i := 0; i+1 < len(oldNew); i += 2 {
		if !strings.Contains(edited, oldNew[i]) {
			t.Fatalf("the fixture edit did not apply: %q not in %s", oldNew[i], path)
		}
		edited = strings.Replace(edited, oldNew[i], oldNew[i+1], 1)
	}
	if err := os.WriteFile(path, []byte(edited), 0o644); err != nil {
		t.Fatal(err)
	}
	touchLater(t, path)
}

// copyTestdata copies files of testdata/fixture into a fresh directory.
func copyTestdata(t *testing.T, fixture string, files ...string) string {
	t.Helper()
	dir := t.TempDir()
	for _, f := range files {
		b, err := os.ReadFile(filepath.Join("testdata", fixture, f))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, f), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// A Python click CLI with --json on its root group, fronted by YAML alone
// through a real go-sdk client over stdio: catalog, help, a valid op with
// repeated pairs (multiple=True, nargs=2) holding hostile words, a refused
// choice and a refused pair of the wrong length, a fenced command, the
// CLI's own error, an edited CLI.
func TestClickCLIThroughServe(t *testing.T) {
	needClick(t)
	dir := copyKV(t)
	home := t.TempDir()
	c := serve(t, filepath.Join(dir, "kv.yaml"), "KV_HOME="+home)

	cat := c.call(`{"help":true}`)["help"].(map[string]any)
	verbs := fmt.Sprint(cat["verbs"])
	for _, want := range []string{"kv.set(key, value, +3) — set a key", "kv.get"} {
		if !strings.Contains(verbs, want) {
			t.Errorf("catalog lacks %q: %s", want, verbs)
		}
	}
	if cat["unavailable"] != nil || strings.Contains(verbs, "admin") || strings.Contains(verbs, "reset") {
		t.Errorf("catalog: %v", cat)
	}

	schema, fp := c.help("kv.set")
	props := schema["properties"].(map[string]any)
	for _, gone := range []string{"home", "json"} {
		if _, ok := props[gone]; ok {
			t.Errorf("%s (excluded / the machine flag) is offered", gone)
		}
	}
	labels := fmt.Sprint(props["labels"])
	if !strings.Contains(labels, "type:array") || !strings.Contains(labels, "maxItems:2 minItems:2") {
		t.Errorf("labels is not an array of pairs: %s", labels)
	}

	// Pairs whose words look like options, "=" and the machine flag: each
	// arrives as the value it is.
	r := c.op(`{"op":"kv.set","args":{"key":"k1","value":"-v","kind":"text","ttl":60,
		"labels":[["--json","=x"],["-h","a b"]]},"fingerprint":"` + fp + `"}`)
	res, _ := r["result"].(map[string]any)
	if r["ok"] != true || res["value"] != "-v" || fmt.Sprint(res["labels"]) != "[[--json =x] [-h a b]]" || fmt.Sprint(res["ttl"]) != "60" {
		t.Fatalf("kv.set: %v", r)
	}
	if r := c.op(`{"op":"kv.get","args":{"key":"k1"}}`); fmt.Sprint(r["result"].(map[string]any)["labels"]) != "[[--json =x] [-h a b]]" {
		t.Errorf("kv.get after set: %v", r)
	}
	r = c.op(`{"op":"kv.set","args":{"key":"k","value":"v","kind":"blob"},"fingerprint":"` + fp + `"}`)
	if code(r) != "invalid_args" || !strings.Contains(fmt.Sprint(r["error"]), "kind") {
		t.Errorf("invalid choice: %v", r)
	}
	r = c.op(`{"op":"kv.set","args":{"key":"k","value":"v","labels":[["a","b","c"]]},"fingerprint":"` + fp + `"}`)
	if code(r) != "invalid_args" || !strings.Contains(fmt.Sprint(r["error"]), `"labels"[0] has 3 items`) {
		t.Errorf("a label of three words: %v", r)
	}
	if r := c.op(`{"op":"admin.reset"}`); code(r) != "not_allowed" {
		t.Errorf("fenced command: %v", r)
	}
	if r := c.op(`{"op":"kv.get","args":{"key":"nope"}}`); code(r) != "cli_error" || !strings.Contains(fmt.Sprint(r["error"]), "unknown_key") {
		t.Errorf("the CLI's own error: %v", r)
	}

	// Edit the CLI: a new option on set. The next request sees it.
	py := filepath.Join(dir, "kv.py")
	editSource(t, py, `@click.option("--ttl",`, `@click.option("--note", help="a note")
@click.option("--ttl",`,
		"def set_(home, key, value, kind, labels, ttl):", "def set_(home, key, value, kind, labels, ttl, note):")
	schema2, fp2 := c.help("kv.set")
	if fp2 == fp {
		t.Error("the edited CLI kept its fingerprint")
	}
	if _, ok := schema2["properties"].(map[string]any)["note"]; !ok {
		t.Errorf("the new option is not in the schema: %v", schema2)
	}
	if r := c.op(`{"op":"kv.set","args":{"key":"k","value":"v"},"fingerprint":"` + fp + `"}`); code(r) != "stale_fingerprint" {
		t.Errorf("old fingerprint after the edit: %v", r)
	}
	if r := c.op(`{"op":"kv.set","args":{"key":"k2","value":"v","note":"n"},"fingerprint":"` + fp2 + `"}`); r["ok"] != true {
		t.Errorf("new option: %v", r)
	}
}

// source.click's exclude, callbacks and string_types reach fromclick: the
// fixture's set verb is offered only with the callback and the custom type
// vouched for (without either, check names it; TestClickCLIThroughServe
// shows the excluded --home absent), the keys load as written, and
// source.argparse refuses them, naming the field.
func TestClickSourceKeys(t *testing.T) {
	needClick(t)
	dir := copyKV(t)
	good, _ := os.ReadFile(filepath.Join(dir, "kv.yaml"))
	for _, tc := range []struct{ drop, want string }{
		{"    callbacks: [kv.check_ttl]          # validates only\n", "kv.check_ttl"},
		{"    string_types: [kv.KeyName]         # reads one plain string\n", "kv.KeyName"},
	} {
		edited := strings.Replace(string(good), tc.drop, "", 1)
		if edited == string(good) {
			t.Fatalf("the edit %q did not apply", tc.drop)
		}
		path := filepath.Join(dir, "edited.yaml")
		if err := os.WriteFile(path, []byte(edited), 0o644); err != nil {
			t.Fatal(err)
		}
		stdout, _, status := runVS(t, "check", "-c", path)
		if status == 0 || !strings.Contains(stdout, "kv.set cannot be offered") || !strings.Contains(stdout, tc.want) {
			t.Errorf("without %q: status %d\n%s", strings.TrimSpace(tc.drop), status, stdout)
		}
	}
	if stdout, _, status := runVS(t, "check", "-c", filepath.Join(dir, "kv.yaml")); status != 0 || !strings.Contains(stdout, "ok: 2 verbs") {
		t.Errorf("the fixture's own config: %d %s", status, stdout)
	}

	// Loaded directly: the keys are read, and refused under argparse.
	cfg, err := LoadConfig(filepath.Join(dir, "kv.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	if p := cfg.Source.Click; p == nil || fmt.Sprint(p.Exclude, p.Callbacks, p.StringTypes) != "[--home] [kv.check_ttl] [kv.KeyName]" {
		t.Errorf("source.click read as %+v", cfg.Source.Click)
	}
	argparse := strings.Replace(string(good), "  click:\n", "  argparse:\n", 1)
	path := filepath.Join(dir, "argparse.yaml")
	if err := os.WriteFile(path, []byte(argparse), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err = LoadConfig(path)
	var ce *ConfigError
	if !errors.As(err, &ce) || ce.Field != "source.argparse.exclude" || !strings.Contains(err.Error(), "source.click only") {
		t.Errorf("click keys under argparse: %v", err)
	}
}
