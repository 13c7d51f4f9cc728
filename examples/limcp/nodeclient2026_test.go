//go:build unix

package main

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
)

// TestIndependentNodeClient2026 drives `limcp mcp --http --policy` with an
// independent client pinned to protocol 2026-07-28, the TypeScript SDK's
// v2 client (testdata/nodeclient2026, pinned by its package-lock.json; the
// v1 SDK of testdata/nodeclient speaks 2025-11-25 at the newest): it is
// served without a session, and an agent.submit the policy asks about is
// answered through the input-required round trip by its elicitation
// handler, after which the run exists.
//
// Like TestIndependentNodeClient it needs Node.js and `npm ci` in its
// directory; .ci/run does both and sets VERBSURFACE_REQUIRE_NODE=1.
func TestIndependentNodeClient2026(t *testing.T) {
	dir, err := filepath.Abs("testdata/nodeclient2026")
	if err != nil {
		t.Fatal(err)
	}
	node := needNode(t, dir, "client")
	e := newEnv(t)
	url := e.startHTTP("", "--policy", e.writeFile("policy.yaml", e2ePolicy), "--no-notify")
	out := e.runNodeClient(node, dir, url)
	var seen struct {
		ProtocolVersion string
		SessionID       *string
		Tools           []string
		CatalogStatus   string
		Submit          struct {
			Status  string
			Results []struct {
				OK     bool
				Result struct{ ID string }
			}
		}
		Asked []string
	}
	if err := json.Unmarshal(out, &seen); err != nil {
		t.Fatalf("node client output: %v\n%s", err, out)
	}
	if seen.ProtocolVersion != "2026-07-28" || seen.SessionID != nil {
		t.Fatalf("protocol %q, session %v; want 2026-07-28 without a session\n%s", seen.ProtocolVersion, seen.SessionID, out)
	}
	if len(seen.Tools) != 1 || seen.Tools[0] != "request" || seen.CatalogStatus != "success" {
		t.Fatalf("tools %v, catalog %q\n%s", seen.Tools, seen.CatalogStatus, out)
	}
	if len(seen.Asked) != 1 || !strings.Contains(seen.Asked[0], "rule spawns-need-my-ok") {
		t.Fatalf("the person was asked %q; want once, naming the rule", seen.Asked)
	}
	if seen.Submit.Status != "success" || len(seen.Submit.Results) != 1 || !seen.Submit.Results[0].OK {
		t.Fatalf("the confirmed submit: %s", out)
	}
	id := seen.Submit.Results[0].Result.ID
	if e.status(id).ID != id {
		t.Fatalf("the confirmed run %s does not exist", id)
	}
	e.waitTerminal(id)
}
