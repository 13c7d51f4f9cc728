//go:build unix

package main

import (
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/verbsurface/verbsurface/internal/oauthtest"
)

// limcp mcp with OAuth and the caller's identity, tokens from a real
// OpenID Provider and real go-sdk clients: --oauth-claim groups reaches the
// policy's who: rules (two subjects, one op, two outcomes); --oauth-class-
// scope control=limcp:write refuses a kill without the scope, naming it;
// runs_per_minute_per_subject gives each subject its own spawn bucket, the
// total (runs_per_minute) still holding for all of them.
func TestHTTPOAuthIdentity(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	p := oauthtest.Start(t)
	const aud = "https://limcp.example/mcp"
	for id, groups := range map[string][]string{"alice": {"oncall"}, "bob": {"dev"}, "carol": {"dev"}} {
		p.AddClient(oauthtest.Client{ID: id, Secret: "s-" + id, Audience: []string{aud}, Claims: map[string]any{"groups": groups}})
	}
	pol := filepath.Join(t.TempDir(), "policy.yaml")
	if err := os.WriteFile(pol, []byte(`version: 1
default: allow
limits: {runs_per_minute: 3, runs_per_minute_per_subject: 2}
rules:
  - {name: oncall-lists-all, verbs: [job.list], who: {groups: [oncall]}, decision: allow}
  - {name: others-do-not-list, verbs: [job.list], decision: deny}
`), 0o644); err != nil {
		t.Fatal(err)
	}
	if bad := e.fail("invalid_argument", "mcp", "--http", "127.0.0.1:0", "--policy", pol, "--oauth-issuer", p.Issuer, "--oauth-audience", aud); !strings.Contains(bad.Error.Message, `claim "groups", which no --oauth-claim names`) {
		t.Errorf("a policy on a claim no flag names: %s", bad.Error.Message)
	}
	srv := e.startHTTPServer("", "--oauth-issuer", p.Issuer, "--oauth-audience", aud, "--oauth-claim", "groups",
		"--oauth-class-scope", "control=limcp:write", "--policy", pol)
	aliceToken := p.Token(t, "alice", "limcp:read")
	alice := e.dialHTTP(srv.url, aliceToken)
	bob := e.dialHTTP(srv.url, p.Token(t, "bob", "limcp:read", "limcp:write"))
	carol := e.dialHTTP(srv.url, p.Token(t, "carol", "limcp:read"))

	alice.must(nil, "job.list", map[string]any{}, "")
	if o := bob.fail("policy_refused", "job.list", map[string]any{}, ""); !strings.Contains(string(o.raw), `"rule":"others-do-not-list"`) {
		t.Errorf("bob's job.list: %s; want refused by others-do-not-list", o.raw)
	}

	// A kill beside a list: the kill alone is refused, naming the scope.
	r := alice.request(map[string]any{"ops": []any{map[string]any{"op": "job.list"}, map[string]any{"op": "job.kill", "args": map[string]any{"id": "nosuch"}}}})
	if r.Status != "partial" || !r.Results[0].OK || r.Results[1].Error == nil || r.Results[1].Error.Code != "insufficient_scope" || !strings.Contains(string(r.Results[1].raw), "limcp:write") {
		t.Errorf("alice's list and kill without limcp:write: %s; want the list run and the kill insufficient_scope naming the scope", r.raw)
	}
	// A kill alone: the protocol's 403, before anything runs.
	resp, body := rawPost(t, "POST", srv.url, `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"request","arguments":{"ops":[{"op":"job.kill","args":{"id":"nosuch"}}]}}}`,
		map[string]string{"Authorization": "Bearer " + aliceToken})
	if resp.StatusCode != http.StatusForbidden || !strings.Contains(resp.Header.Get("WWW-Authenticate"), `error="insufficient_scope", scope="limcp:write"`) {
		t.Errorf("alice's kill alone: HTTP %d %q %s; want 403 naming limcp:write", resp.StatusCode, resp.Header.Get("WWW-Authenticate"), body)
	}
	if o := bob.op("job.kill", map[string]any{"id": "nosuch"}, ""); o.Error == nil || o.Error.Code == "insufficient_scope" {
		t.Errorf("bob's kill with limcp:write: %s; want past the scope, to the CLI's own refusal of an unknown id", o.raw)
	}

	fp := alice.help("agent.submit").SchemaFingerprint
	submit := func(c *mcpClient) *mcpOp {
		return c.op("agent.submit", map[string]any{"model": "echo", "prompt": "hi"}, fp)
	}
	for i := range 2 {
		if o := submit(alice); !o.OK {
			t.Fatalf("alice's submit %d: %s", i, o.raw)
		}
	}
	if o := submit(alice); o.OK || o.Error.Code != "rate_limited" || !strings.Contains(string(o.raw), "subject may start 2") {
		t.Fatalf("alice's third submit: %s; want rate_limited by her own bucket of 2", o.raw)
	}
	if o := submit(bob); !o.OK {
		t.Fatalf("bob's submit after alice spent hers: %s; want it started", o.raw)
	}
	if o := submit(carol); o.OK || o.Error.Code != "rate_limited" || !strings.Contains(string(o.raw), "client may start 3") {
		t.Fatalf("carol's submit past the total: %s; want rate_limited by the total of 3", o.raw)
	}
}

// TestHTTPOAuthLiveRunsPerSubject: live_runs_per_subject holds per
// verified subject, live_runs for all of them together: three subjects
// submitting long runs at once, two sessions each, start one run each
// under a total of 3; a fourth subject is refused by the total; every
// refusal names its limit and starts nothing.
func TestHTTPOAuthLiveRunsPerSubject(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	p := oauthtest.Start(t)
	const aud = "https://limcp.example/mcp"
	subjects := []string{"alice", "bob", "carol", "dave"}
	for _, id := range subjects {
		p.AddClient(oauthtest.Client{ID: id, Secret: "s-" + id, Audience: []string{aud}})
	}
	pol := e.writeFile("policy.yaml", "version: 1\nlimits: {live_runs: 3, live_runs_per_subject: 1}\nrules:\n  - verbs: [\"*\"]\n    decision: allow\n")
	srv := e.startHTTPServer("", "--oauth-issuer", p.Issuer, "--oauth-audience", aud, "--policy", pol, "--no-notify")
	clients := map[string][]*mcpClient{}
	for _, id := range subjects[:3] {
		tok := p.Token(t, id)
		clients[id] = []*mcpClient{e.dialHTTP(srv.url, tok), e.dialHTTP(srv.url, tok)}
	}
	fp := clients["alice"][0].help("agent.submit").SchemaFingerprint
	submit := func(c *mcpClient) *mcpOp {
		return c.request(map[string]any{"ops": []any{map[string]any{"op": "agent.submit",
			"args": map[string]any{"model": "echo:delay=60s", "prompt": "p"}, "fingerprint": fp}}}).Results[0]
	}
	var mu sync.Mutex
	started := map[string]int{}
	var wg sync.WaitGroup
	for id, cs := range clients {
		for _, c := range cs {
			wg.Add(1)
			go func() {
				defer wg.Done()
				o := submit(c)
				mu.Lock()
				defer mu.Unlock()
				switch {
				case o.OK:
					started[id]++
				case o.Error.Code != "policy_refused" || !strings.Contains(o.Error.Message, "allows each caller 1 live runs at once"):
					t.Errorf("%s: %s; want policy_refused by the limit per subject", id, o.raw)
				}
			}()
		}
	}
	wg.Wait()
	if started["alice"] != 1 || started["bob"] != 1 || started["carol"] != 1 {
		t.Fatalf("started %v; want one run for each subject", started)
	}
	dave := e.dialHTTP(srv.url, p.Token(t, "dave"))
	if o := submit(dave); o.OK || !strings.Contains(o.Error.Message, "allows 3 live runs at once") {
		t.Fatalf("dave past the total: %s; want policy_refused by live_runs", o.raw)
	}
	if n := e.runCount(); n != 3 {
		t.Fatalf("%d runs in the store, want 3", n)
	}
}
