//go:build unix

package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestDoctor: `verbsurface doctor -c FILE` starts `serve -c /abs/FILE`
// as an installed client would and says the client will see the one tool;
// a configuration whose program is gone is a server that does not start,
// and the line says so (exit 1). `install` ends with the same check.
func TestDoctor(t *testing.T) {
	dir := copyFixture(t)
	config := filepath.Join(dir, "notes.yaml")
	run := func(args ...string) (string, int) {
		t.Helper()
		cmd := exec.Command(vsBin, args...)
		cmd.Env = append(vsEnv(t, t.TempDir()), "HOME="+t.TempDir())
		out, err := cmd.CombinedOutput()
		code := 0
		if err != nil {
			code = cmd.ProcessState.ExitCode()
		}
		return string(out), code
	}
	const sees = `a client will see the one tool "request"`
	if out, code := run("doctor", "-c", config); code != 0 || !strings.Contains(out, sees) || !strings.Contains(out, "started "+vsBin+" serve -c "+config) {
		t.Fatalf("doctor: exit %d\n%s", code, out)
	}
	if out, code := run("install", "cursor", "-c", config); code != 0 || !strings.Contains(out, sees) {
		t.Fatalf("install cursor: exit %d\n%s", code, out)
	}
	if err := os.Remove(filepath.Join(dir, "notes.py")); err != nil {
		t.Fatal(err)
	}
	if out, code := run("doctor", "-c", config); code != 1 || !strings.Contains(out, "a client will NOT see the tool") {
		t.Fatalf("doctor, the program gone: exit %d\n%s", code, out)
	}
}
