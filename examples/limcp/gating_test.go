//go:build unix

package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/verbsurface/verbsurface/internal/clientconfig/clienttest"
)

// gatingInsideVar marks the test binary TestRealAgentTestsAreGated runs,
// so it never runs itself again.
const gatingInsideVar = "VERBSURFACE_GATING_INSIDE"

// TestRealAgentTestsAreGated: the test of the real agent programs
// (TestPresetsAgainstRealPrograms, which spends model calls) starts none
// of them unless VERBSURFACE_TEST_REAL_AGENTS=1, even with all of them
// first on PATH. (The install tests of the real clients,
// TestInstallRealClients, need no login and run by default, but only the
// pinned clients of $VERBSURFACE_CLIENTS_BIN, by absolute path or behind
// recorders on a PATH of their own: never what is on PATH.) The programs
// here are stand-ins for an agent run, which cannot happen here (it needs
// a login and the network): each answers as a logged-out install does,
// with the error the real program prints then, and records its run beside
// itself, whatever environment it gets. The test binary runs them twice:
// as the default suite does (both are skipped, naming the variable, and
// nothing ran), and with the variable set (each agent program is
// started, and the presets test fails as a logged-out install makes it
// fail), which shows that the variable alone stands between the suite and
// the programs.
func TestRealAgentTestsAreGated(t *testing.T) {
	if os.Getenv(gatingInsideVar) != "" {
		t.Skip("running inside TestRealAgentTestsAreGated: not again")
	}
	bin := t.TempDir()
	log := filepath.Join(bin, "ran")
	if err := os.Mkdir(log, 0o700); err != nil {
		t.Fatal(err)
	}
	for prog, answer := range loggedOutAgents {
		script := "#!/bin/sh\nprintf '%s\\n' \"$@\" >\"$(dirname \"$0\")/ran/" + prog + ".$$\"\n" + answer
		if err := os.WriteFile(filepath.Join(bin, prog), []byte(script), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	base := []string{gatingInsideVar + "=1", "PATH=" + bin + ":" + os.Getenv("PATH")}
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, clienttest.RealAgentsEnv+"=") && !strings.HasPrefix(kv, "PATH=") {
			base = append(base, kv)
		}
	}
	run := func(extra ...string) (string, int) {
		cmd := exec.Command(os.Args[0], "-test.run", "^TestPresetsAgainstRealPrograms$", "-test.v", "-test.timeout", "10m")
		cmd.Env = append(append([]string{}, base...), extra...)
		out, err := cmd.CombinedOutput()
		code := 0
		if ee, ok := err.(*exec.ExitError); ok {
			code = ee.ExitCode()
		} else if err != nil {
			t.Fatal(err)
		}
		return string(out), code
	}

	out, code := run()
	if code != 0 || !strings.Contains(out, "--- SKIP: TestPresetsAgainstRealPrograms") ||
		!strings.Contains(out, clienttest.RealAgentsEnv+"=1") {
		t.Fatalf("the default run: exit %d; want the test skipped, naming %s:\n%s", code, clienttest.RealAgentsEnv, out)
	}
	if ran, err := os.ReadDir(log); err != nil || len(ran) != 0 {
		t.Fatalf("the default run started %v (%v)", ran, err)
	}

	out, code = run(clienttest.RealAgentsEnv + "=1")
	ran, err := os.ReadDir(log)
	if err != nil {
		t.Fatal(err)
	}
	started := map[string]bool{}
	for _, r := range ran {
		started[strings.Split(r.Name(), ".")[0]] = true
	}
	if code == 0 || !started["claude"] || !started["codex"] || !started["gemini"] {
		t.Fatalf("with %s=1: exit %d, agent runs started %v; want all three started and the test failing as logged out:\n%s",
			clienttest.RealAgentsEnv, code, started, out)
	}
	for _, want := range []string{"Invalid API key", "401 Unauthorized", "Please set an Auth method"} {
		if !strings.Contains(out, want) {
			t.Errorf("with %s=1 the output lacks the logged-out error %q", clienttest.RealAgentsEnv, want)
		}
	}
}

// loggedOutAgents are the stand-ins' answers to an agent run, by program:
// what the real ones print with no login and no key (Claude Code 2.1, in
// its JSON result when asked for one; Codex CLI 0.171; Gemini CLI 0.61),
// and their exit status.
var loggedOutAgents = map[string]string{
	"claude": `case "$*" in
*"--output-format json"*) echo '{"type":"result","subtype":"success","is_error":true,"result":"Invalid API key · Please run /login"}' ;;
*) echo 'Invalid API key · Please run /login' ;;
esac
exit 1
`,
	"codex": "echo 'ERROR: stream disconnected before completion: 401 Unauthorized: not signed in; run `codex login` or set OPENAI_API_KEY' >&2\nexit 1\n",
	"gemini": `echo "Please set an Auth method in your $HOME/.gemini/settings.json or specify one of the following environment variables before running: GEMINI_API_KEY, GOOGLE_GENAI_USE_VERTEXAI, GOOGLE_GENAI_USE_GCA" >&2
exit 41
`,
}
