// Package conformance runs the official MCP conformance suite
// (@modelcontextprotocol/conformance, from npm) against a server of this
// repository over streamable HTTP, for the tests of both fronts.
//
// .ci/run installs the suite pinned, with the Node.js it needs, into a
// private prefix and names its program in $VERBSURFACE_CONFORMANCE; it
// also sets VERBSURFACE_REQUIRE_CONFORMANCE=1, under which a missing suite
// fails the test. Elsewhere the test is skipped with the reason.
package conformance

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// Scenario is one server scenario of the suite at one protocol version.
type Scenario struct {
	Name, Version string
}

// Scenarios are the server scenarios that apply to a server whose only
// tool is verbsurface's request, each at the protocol versions it tests:
// the older versions' sessions and the stateless 2026-07-28. The others
// need the suite's own test tools, prompts or resources (docs/http.md
// lists them and why).
var Scenarios = []Scenario{
	{"server-initialize", "2025-11-25"},
	{"server-session-lifecycle", "2025-11-25"},
	{"logging-set-level", "2025-11-25"},
	{"ping", "2025-11-25"},
	{"tools-list", "2025-11-25"},
	{"tools-list", "2026-07-28"},
	{"server-sse-multiple-streams", "2025-11-25"},
	{"server-sse-multiple-streams", "2026-07-28"},
	{"dns-rebinding-protection", "2025-11-25"},
	{"dns-rebinding-protection", "2026-07-28"},
	{"server-stateless", "2026-07-28"},
	{"caching", "2026-07-28"},
	{"http-header-validation", "2026-07-28"},
	{"sep-2164-resource-not-found", "2026-07-28"},
}

// Untestable are the checks of applicable scenarios that need one of the
// suite's diagnostic tools; the suite reports each as a failure saying
// "Not testable", and only with that message is it passed over.
var Untestable = map[string]string{
	"sep-2575-server-rejects-undeclared-capability":          "needs the tool test_missing_capability",
	"sep-2575-missing-capability-http-400":                   "needs the tool test_missing_capability",
	"sep-2575-http-server-no-independent-requests-on-stream": "needs the tool test_streaming_elicitation",
	"sep-2575-server-no-log-without-loglevel":                "needs the tool test_logging_tool",
}

type check struct {
	ID           string `json:"id"`
	Status       string `json:"status"`
	ErrorMessage string `json:"errorMessage"`
}

// Program is the suite's program, or it skips t (fails it under
// VERBSURFACE_REQUIRE_CONFORMANCE=1) saying why there is none.
func Program(t *testing.T) string {
	t.Helper()
	prog := os.Getenv("VERBSURFACE_CONFORMANCE")
	why := ""
	if prog == "" {
		why = "$VERBSURFACE_CONFORMANCE does not name the suite's program"
	} else if _, err := os.Stat(prog); err != nil {
		why = err.Error()
	}
	if why != "" {
		if os.Getenv("VERBSURFACE_REQUIRE_CONFORMANCE") == "1" {
			t.Fatalf("VERBSURFACE_REQUIRE_CONFORMANCE=1 but %s", why)
		}
		t.Skipf("skipping the official MCP conformance suite: %s (.ci/run installs it)", why)
	}
	return prog
}

// Run runs every scenario of [Scenarios] against url, each as a subtest,
// and fails a subtest for each check that did not pass, unless it is
// [Untestable] and the suite says so.
func Run(t *testing.T, prog, url string) {
	for _, sc := range Scenarios {
		t.Run(sc.Name+"@"+sc.Version, func(t *testing.T) {
			out := t.TempDir()
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
			defer cancel()
			cmd := exec.CommandContext(ctx, prog, "server", "--url", url, "--scenario", sc.Name, "--spec-version", sc.Version, "-o", out)
			log, _ := cmd.CombinedOutput() // its exit status is judged from checks.json below
			files, _ := filepath.Glob(filepath.Join(out, "*", "checks.json"))
			if len(files) != 1 {
				t.Fatalf("the suite wrote %d checks.json files; want 1:\n%s", len(files), log)
			}
			b, err := os.ReadFile(files[0])
			if err != nil {
				t.Fatal(err)
			}
			var checks []check
			if err := json.Unmarshal(b, &checks); err != nil {
				t.Fatal(err)
			}
			passed := 0
			for _, c := range checks {
				switch {
				case c.Status == "SUCCESS":
					passed++
				case c.Status == "FAILURE" && Untestable[c.ID] != "" && strings.HasPrefix(c.ErrorMessage, "Not testable"):
				case c.Status == "FAILURE":
					t.Errorf("%s: %s", c.ID, c.ErrorMessage)
				}
			}
			if passed == 0 {
				t.Errorf("no check passed:\n%s", log)
			}
		})
	}
}
