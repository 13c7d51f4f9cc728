//go:build unix

package main

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/verbsurface/verbsurface/internal/oauthtest"
	"github.com/verbsurface/verbsurface/mcphttp/oauth"
)

// exchangeBackend is the audience of the program's own backend, for
// which the caller's token is exchanged.
const exchangeBackend = "https://backend.example"

// exchangeConfig fronts sh showing its argv and environment, in the
// foreground (show.read) and in the background (show.later), with the
// caller's identity and an exchanged token passed to each run.
const exchangeConfig = `name: show
command: ["sh", "-c", "printf 'arg:%s\\n' \"$@\"; env", "sh"]
output: text
source:
  declared:
    help: []
    commands:
      - path: [read]
        options: [{name: note, flags: ["--note"]}]
verbs:
  - {name: show.read, path: [read], class: observe}
  - {name: show.later, path: [read], class: spawn, background: true}
oauth:
  issuer: ISSUER
  audience: ` + oauthAudience + `
  exchange:
    audience: ` + exchangeBackend + `
    env: BACKEND_TOKEN
    client: {client_id: mcp, secret_file: mcp.secret}
identity:
  env: {RUN_SUBJECT: subject}
  args: ["--as={subject}"]
`

// backendToken finds the BACKEND_TOKEN a run printed in an answer.
var backendToken = regexp.MustCompile(`BACKEND_TOKEN=([A-Za-z0-9._~+/=-]+)`)

// Token exchange (RFC 8693) through serve over HTTP, at a real OpenID
// Provider: each run of an OAuth caller, foreground or background, gets
// in BACKEND_TOKEN a token the provider issued for the backend standing
// for the same subject (the backend's own verifier accepts it), beside
// the identity's env and --as=; a background run gets the same as a
// foreground one. Neither the caller's token nor the exchanged one is in
// the log or the audit.
func TestHTTPServeIdentityExchange(t *testing.T) {
	p := oauthtest.Start(t)
	p.AddClient(oauthtest.Client{ID: "mcp", Secret: "rs", ExchangeTo: []string{exchangeBackend}, Lifetime: 10 * time.Minute})
	p.AddClient(oauthtest.Client{ID: "alice", Secret: "s-alice", Audience: []string{oauthAudience}})
	dir := t.TempDir()
	config := filepath.Join(dir, "show.yaml")
	if err := os.WriteFile(config, []byte(strings.Replace(exchangeConfig, "ISSUER", p.Issuer, 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "mcp.secret"), []byte("rs\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	state := t.TempDir()
	audit := filepath.Join(dir, "audit.jsonl")
	srv := serveHTTPBin(t, vsEnv(t, state), "-c", config, "--http", "127.0.0.1:0", "--audit", audit)
	settleRuns(t, frontRunsDir(state, "show"))

	alice := p.Token(t, "alice")
	c := httpClient(t, srv.url, alice)
	backend, err := oauth.New(context.Background(), &oauth.Config{Issuer: p.Issuer, Audience: exchangeBackend})
	if err != nil {
		t.Fatal(err)
	}
	var exchanged []string
	check := func(what string, answer map[string]any) {
		t.Helper()
		b, _ := json.Marshal(answer)
		text := string(b)
		if !strings.Contains(text, `arg:--as=alice`) || !strings.Contains(text, `RUN_SUBJECT=alice`) {
			t.Fatalf("%s: the run did not get alice's identity: %s", what, text)
		}
		m := backendToken.FindStringSubmatch(text)
		if m == nil {
			t.Fatalf("%s: the run got no BACKEND_TOKEN: %s", what, text)
		}
		if m[1] == alice {
			t.Fatalf("%s: the run got the caller's own token, which must never transit", what)
		}
		info, err := backend.Verify(context.Background(), m[1], nil)
		if err != nil {
			t.Fatalf("%s: the backend refuses the exchanged token: %v", what, err)
		}
		if info.UserID != "alice" {
			t.Errorf("%s: the exchanged token stands for %q; want alice", what, info.UserID)
		}
		exchanged = append(exchanged, m[1])
	}

	r := c.op(`{"op":"show.read","args":{"note":"hi"}}`)
	if r["ok"] != true {
		t.Fatalf("show.read: %v", r)
	}
	check("a foreground run", r)

	_, fp := c.help("show.later")
	start := c.op(`{"op":"show.later","fingerprint":"` + fp + `","args":{"note":"later"}}`)
	id, _ := start["result"].(map[string]any)["run_id"].(string)
	if id == "" {
		t.Fatalf("show.later: %v", start)
	}
	c.waitEnded(id)
	out := c.op(`{"op":"job.output","args":{"id":"` + id + `"}}`)
	if out["ok"] != true {
		t.Fatalf("job.output: %v", out)
	}
	check("a background run", out)

	lines, err := os.ReadFile(audit)
	if err != nil {
		t.Fatal(err)
	}
	for _, tok := range append(exchanged, alice) {
		sig := tok[strings.LastIndexByte(tok, '.')+1:]
		for where, text := range map[string]string{"the log": srv.log.String(), "the audit": string(lines)} {
			if strings.Contains(text, sig) {
				t.Errorf("%s holds a token", where)
			}
		}
	}
}
