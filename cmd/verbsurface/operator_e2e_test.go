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
		t.Skipf("git is not installed: %v", err)
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
