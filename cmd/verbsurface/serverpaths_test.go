//go:build unix

package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestErrorsNameNoServerPath: an op whose command fails answers with the
// command that ran (issue 34: "python3 -m pip show", never "python3
// show"), the program and the configuration's script by their names,
// never a path of the server:
// not the executable's (/usr/bin/sh), not the script the configuration
// names (resolved to an absolute path under the configuration's
// directory), not that directory. Before, the message and details.command
// quoted "/usr/bin/sh /tmp/.../fail.sh" (issue 25, item 13, on the YAML
// front).
func TestErrorsNameNoServerPath(t *testing.T) {
	dir := t.TempDir()
	write := func(name, body string) {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	write("fail.sh", "echo 'fail: no such thing' >&2\nexit 3\n")
	write("tree.json", `{"program": "fail", "dialect": "argparse", "commands": [{"path": [], "runnable": true, "params": [
		{"name": "what", "kind": "string", "arity": "one", "required": true, "action": "store"}]}]}`)
	write("fail.yaml", "name: fail\ncommand: [sh, fail.sh]\nsource: {tree_file: tree.json}\n"+
		"verbs:\n  - {name: fail, path: [], class: observe}\n")
	sh, err := exec.LookPath("sh")
	if err != nil {
		t.Skip("no sh on PATH")
	}
	c := serve(t, filepath.Join(dir, "fail.yaml"))
	r := c.call(`{"ops": [{"op": "fail", "args": {"what": "x"}}]}`)
	res := r["results"].([]any)[0].(map[string]any)
	eo, _ := res["error"].(map[string]any)
	if res["ok"] != false || eo["code"] != "nonzero_exit" {
		t.Fatalf("op result %v; want nonzero_exit", res)
	}
	b, err := json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	text := string(b)
	real, _ := filepath.EvalSymlinks(sh)
	for _, p := range []string{dir, sh, real, "/usr/bin", "/bin/"} {
		if strings.Contains(text, p) {
			t.Errorf("the answer quotes the server's path %s:\n%s", p, text)
		}
	}
	details, _ := eo["details"].(map[string]any)
	if got := details["command"]; got != "sh fail.sh -- x" {
		t.Errorf("details.command %q; want the command that ran, paths by their names, \"sh fail.sh -- x\"", got)
	}
	if msg, _ := eo["message"].(string); !strings.HasPrefix(msg, "sh fail.sh -- x: exited with status 3") || !strings.Contains(msg, "fail: no such thing") {
		t.Errorf("message %q; want the program's name, the caller's arguments, the status and its stderr", msg)
	}
}
