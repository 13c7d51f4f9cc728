//go:build unix

package main

import (
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

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
// pinned clients of $VERBSURFACE_CLIENTS_BIN, by absolute path: never
// what is on PATH.) The programs here are stand-ins that behave as a
// logged-out install does (slowly, then an authentication error) and log
// every invocation beside themselves, whatever environment they get. The
// test binary runs them twice: as the default suite does (both are
// skipped, naming the variable, and nothing ran), and with the variable
// set (each agent program is started, and the presets test fails as a
// logged-out install makes it fail), which shows that the variable alone
// stands between the suite and the programs.
func TestRealAgentTestsAreGated(t *testing.T) {
	if os.Getenv(gatingInsideVar) != "" {
		t.Skip("running inside TestRealAgentTestsAreGated: not again")
	}
	bin := t.TempDir()
	log, err := clienttest.BuildLogging(bin)
	if err != nil {
		t.Fatal(err)
	}
	base := []string{gatingInsideVar + "=1", "PATH=" + bin + ":" + os.Getenv("PATH")}
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, clienttest.RealAgentsEnv+"=") && !strings.HasPrefix(kv, "PATH=") && !strings.HasPrefix(kv, "FAKECLIENT_") {
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
	if invs, err := clienttest.Invocations(log); err != nil || len(invs) != 0 {
		t.Fatalf("the default run started %+v (%v)", invs, err)
	}

	// As slow as a logged-out install, the run would take minutes.
	if err := clienttest.SetAgentDelay(bin, 100*time.Millisecond); err != nil {
		t.Fatal(err)
	}
	out, code = run(clienttest.RealAgentsEnv + "=1")
	invs, err := clienttest.Invocations(log)
	if err != nil {
		t.Fatal(err)
	}
	started := map[string]bool{}
	for _, inv := range invs {
		if inv.Mode == "agent" {
			started[inv.Program] = true
		}
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
