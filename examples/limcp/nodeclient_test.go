//go:build unix

package main

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

// The go-sdk client in the other tests shares its authors' reading of the
// MCP specification with the server. TestIndependentNodeClient drives
// `limcp mcp` with an independent implementation, the official TypeScript
// SDK (testdata/nodeclient, pinned by its package-lock.json), over stdio and
// streamable HTTP.
//
// It needs Node.js and the SDK installed by `npm ci` in testdata/nodeclient.
// .ci/run installs both and sets VERBSURFACE_REQUIRE_NODE=1, under which a
// missing piece fails the test; elsewhere it is skipped with the reason.
func TestIndependentNodeClient(t *testing.T) {
	dir, err := filepath.Abs("testdata/nodeclient")
	if err != nil {
		t.Fatal(err)
	}
	node := needNode(t, dir, "sdk")
	e := newEnv(t)
	url := e.startHTTP("") // the server generates its token into the home
	out := e.runNodeClient(node, dir, limcpBin, e.home, url)
	var seen []struct {
		Transport               string
		Tools                   []string
		ToolBytes               int
		CatalogVerbs            int
		StaleCode               string
		StaleCarriesFingerprint bool
		StaleHelpCall           map[string]any
		AllTerminal             bool
		Outcome, Stdout         string
		Progress                []float64
		MalformedIsError        bool
		MalformedStatus         string
		TextEqualsStructured    bool
	}
	if err := json.Unmarshal(out, &seen); err != nil {
		t.Fatalf("node client output: %v\n%s", err, out)
	}
	if len(seen) != 2 {
		t.Fatalf("want a stdio and an HTTP journey, got %s", out)
	}
	for _, s := range seen {
		t.Run(s.Transport, func(t *testing.T) {
			switch {
			case len(s.Tools) != 1 || s.Tools[0] != "request" || s.ToolBytes >= 1024:
				t.Errorf("tools/list: %v (%d bytes), want only request, under 1,024 bytes", s.Tools, s.ToolBytes)
			case s.CatalogVerbs < 20:
				t.Errorf("catalog has %d verbs", s.CatalogVerbs)
			case s.StaleCode != "stale_fingerprint" || !s.StaleCarriesFingerprint || s.StaleHelpCall["help"] != "agent.submit":
				t.Errorf("stale fingerprint rejection: code %s, carries fingerprint %v, help_call %v", s.StaleCode, s.StaleCarriesFingerprint, s.StaleHelpCall)
			case !s.AllTerminal || s.Outcome != "succeeded" || s.Stdout != "from the TypeScript SDK":
				t.Errorf("submit → wait → output: all_terminal %v, outcome %q, stdout %q", s.AllTerminal, s.Outcome, s.Stdout)
			case len(s.Progress) == 0:
				t.Errorf("no progress notification reached the client for job.wait")
			case !s.MalformedIsError || s.MalformedStatus != "error" || !s.TextEqualsStructured:
				t.Errorf("malformed envelope: isError %v, status %q, text == structured %v", s.MalformedIsError, s.MalformedStatus, s.TextEqualsStructured)
			}
		})
	}
}

// needNode is the path of node, with the package pkg of @modelcontextprotocol
// installed in dir by `npm ci`; without either the test is skipped, or
// failed under VERBSURFACE_REQUIRE_NODE=1.
func needNode(t *testing.T, dir, pkg string) string {
	t.Helper()
	node, err := exec.LookPath("node")
	if err == nil {
		_, err = os.Stat(filepath.Join(dir, "node_modules", "@modelcontextprotocol", pkg, "package.json"))
	}
	if err != nil {
		if os.Getenv("VERBSURFACE_REQUIRE_NODE") == "1" {
			t.Fatalf("VERBSURFACE_REQUIRE_NODE=1 but node or the TypeScript SDK is missing: %v", err)
		}
		t.Skipf("skipping the independent-client check: %v (run `npm ci` in %s)", err, dir)
	}
	return node
}

// runNodeClient runs dir/client.mjs ARGS with the token the server
// generated into the home, and returns its stdout.
func (e *env) runNodeClient(node, dir string, args ...string) []byte {
	e.t.Helper()
	token, err := os.ReadFile(filepath.Join(e.home, "mcp-token"))
	if err != nil {
		e.t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, node, append([]string{filepath.Join(dir, "client.mjs")}, args...)...)
	cmd.Dir = dir
	cmd.Env = append(e.environ(), "NODECLIENT_BEARER_TOKEN="+strings.TrimSpace(string(token)))
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		e.t.Fatalf("node client: %v\nstderr:\n%s", err, stderr.String())
	}
	return out
}
