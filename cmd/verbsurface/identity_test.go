//go:build unix

package main

import (
	"encoding/json"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/verbsurface/verbsurface/internal/oauthtest"
)

// identityConfig fronts sh running printf (its argv, a line each) and env
// (its environment): the program shows what reached it.
const identityConfig = `name: show
command: ["sh", "-c", "printf 'arg:%s\\n' \"$@\"; env", "sh"]
output: text
source:
  declared:
    help: []
    commands:
      - path: [read]
        options: [{name: note, flags: ["--note"]}]
      - path: [write]
        options: [{name: note, flags: ["--note"]}]
verbs:
  - {name: show.read, path: [read], class: observe}
  - {name: show.write, path: [write], class: control}
policy: policy.yaml
oauth:
  issuer: ISSUER
  audience: ` + oauthAudience + `
  claims: [groups]
  class_scopes: {control: ["verbsurface:write"]}
identity:
  env: {RUN_SUBJECT: subject, RUN_GROUPS: groups}
  args: ["--as={subject}"]
  pattern: "^[a-z0-9@._-]+$"
`

const identityPolicy = `version: 1
default: deny
rules:
  - {name: reads, verbs: [show.read], decision: allow}
  - {name: oncall-writes, verbs: [show.write], who: {groups: [oncall]}, decision: allow}
`

// writeIdentityConfig writes identityConfig (issuer in place, then each
// old, new pair of replace applied) and identityPolicy into a fresh
// directory and returns the configuration's path.
func writeIdentityConfig(t *testing.T, issuer string, replace ...string) string {
	t.Helper()
	dir := t.TempDir()
	body := strings.Replace(identityConfig, "ISSUER", issuer, 1)
	for i := 0; i+1 < len(replace); i += 2 {
		if !strings.Contains(body, replace[i]) {
			t.Fatalf("the configuration has no %q", replace[i])
		}
		body = strings.Replace(body, replace[i], replace[i+1], 1)
	}
	config := filepath.Join(dir, "show.yaml")
	if err := os.WriteFile(config, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "policy.yaml"), []byte(identityPolicy), 0o644); err != nil {
		t.Fatal(err)
	}
	return config
}

// The caller's identity through serve over HTTP, with tokens from a real
// OpenID Provider and a real go-sdk client: the subject and the named
// claim reach the run as the configuration says (env, --as=), checked
// against the pattern; policy tells two subjects apart on the same op; a
// class needs a scope (403 naming it when no op of the request may run,
// an op error when one of several may not); the token reaches no run, no
// log line, no audit line and no answer.
func TestHTTPServeIdentity(t *testing.T) {
	p := oauthtest.Start(t)
	for id, groups := range map[string][]string{"alice": {"oncall", "dev"}, "bob": {"dev"}, "Mallory": {"oncall"}} {
		p.AddClient(oauthtest.Client{ID: id, Secret: "s-" + id, Audience: []string{oauthAudience}, Claims: map[string]any{"groups": groups}})
	}
	config := writeIdentityConfig(t, p.Issuer)
	audit := filepath.Join(filepath.Dir(config), "audit.jsonl")
	srv := serveHTTPBin(t, vsEnv(t, t.TempDir()), "-c", config, "--http", "127.0.0.1:0", "--audit", audit)

	alice := p.Token(t, "alice", "verbsurface:write")
	bob := p.Token(t, "bob", "verbsurface:write")
	bobRead := p.Token(t, "bob", "verbsurface:read")
	mallory := p.Token(t, "Mallory", "verbsurface:write")
	var answers []string
	op := func(token, op string) map[string]any {
		t.Helper()
		r := httpClient(t, srv.url, token).call(`{"ops":[` + op + `]}`)
		b, _ := json.Marshal(r)
		answers = append(answers, string(b))
		return r["results"].([]any)[0].(map[string]any)
	}

	// What reached the run: the subject as --as= after the fixed words
	// and before the caller's, the subject and groups in the environment.
	r := op(alice, `{"op":"show.read","args":{"note":"hi"}}`)
	out, _ := r["result"].(map[string]any)["output"].(string)
	if !strings.Contains(out, "arg:read\narg:--as=alice\narg:--note=hi\n") || !strings.Contains(out, "\nRUN_SUBJECT=alice\n") || !strings.Contains(out, "\nRUN_GROUPS=oncall,dev\n") {
		t.Fatalf("alice's run saw:\n%v\nwant --as=alice before --note=hi, RUN_SUBJECT and RUN_GROUPS", r)
	}

	// Two subjects, the same op, two outcomes.
	if r := op(alice, `{"op":"show.write","args":{"note":"x"}}`); r["ok"] != true {
		t.Errorf("alice (oncall) show.write: %v; want it run", r)
	}
	if r := op(bob, `{"op":"show.write","args":{"note":"x"}}`); code(r) != "policy_refused" {
		t.Errorf("bob (dev) show.write: %v; want policy_refused", r)
	}

	// A subject the pattern refuses runs nothing.
	if r := op(mallory, `{"op":"show.read"}`); code(r) != "policy_refused" || !strings.Contains(r["error"].(map[string]any)["message"].(string), `subject "Mallory" does not match`) {
		t.Errorf("Mallory: %v; want refused by the identity pattern", r)
	}

	// A class that needs a scope: one op of several is refused by itself...
	res := httpClient(t, srv.url, bobRead).call(`{"ops":[{"op":"show.read"},{"op":"show.write"}]}`)
	results := res["results"].([]any)
	if results[0].(map[string]any)["ok"] != true || code(results[1].(map[string]any)) != "insufficient_scope" {
		t.Errorf("a batch with one op the token may not run: %v; want show.read run and show.write insufficient_scope", res)
	}
	// ...and a request none of whose ops may run is the protocol's 403.
	body := `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"request","arguments":{"ops":[{"op":"show.write","args":{"note":"x"}}]}}}`
	req, _ := http.NewRequest("POST", srv.url, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Authorization", "Bearer "+bobRead)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	want := `error="insufficient_scope", scope="verbsurface:write"`
	if resp.StatusCode != http.StatusForbidden || !strings.Contains(resp.Header.Get("WWW-Authenticate"), want) || !strings.Contains(resp.Header.Get("WWW-Authenticate"), "resource_metadata=") {
		t.Errorf("tools/call of show.write without the scope: HTTP %d %q %s; want 403 with %s", resp.StatusCode, resp.Header.Get("WWW-Authenticate"), b, want)
	}

	// The metadata publishes the scope a class needs.
	mresp, err := http.Get(strings.TrimSuffix(srv.url, "/mcp") + "/.well-known/oauth-protected-resource/mcp")
	if err != nil {
		t.Fatal(err)
	}
	var meta struct {
		Scopes []string `json:"scopes_supported"`
	}
	err = json.NewDecoder(mresp.Body).Decode(&meta)
	mresp.Body.Close()
	if err != nil || !slices.Contains(meta.Scopes, "verbsurface:write") {
		t.Errorf("metadata scopes_supported %v (%v); want verbsurface:write", meta.Scopes, err)
	}

	// The audit names the subject; no token is anywhere.
	lines, err := os.ReadFile(audit)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(lines), `"subject":"alice"`) || !strings.Contains(string(lines), `"subject":"bob"`) {
		t.Errorf("the audit does not name the subjects:\n%s", lines)
	}
	for _, tok := range []string{alice, bob, bobRead, mallory} {
		sig := tok[strings.LastIndexByte(tok, '.')+1:]
		for where, text := range map[string]string{"an answer (a run's env and argv included)": strings.Join(answers, "\n"), "the log": srv.log.String(), "the audit": string(lines)} {
			if strings.Contains(text, sig) {
				t.Errorf("%s holds a token", where)
			}
		}
	}
}

// TestIdentityConfigRefusals: a configuration whose policy or identity
// names a claim oauth.claims does not keep, or a class that is none, is
// refused at start, naming it.
func TestIdentityConfigRefusals(t *testing.T) {
	for _, c := range []struct {
		name    string
		replace []string // old, new, ...
		want    string
	}{
		{"a policy on an unkept claim", []string{"  claims: [groups]\n", "", ", RUN_GROUPS: groups", ""}, `a rule tests the claim "groups", which oauth.claims does not name`},
		{"an identity field that is no kept claim", []string{"RUN_GROUPS: groups", "RUN_GROUPS: roles"}, `"roles" is not subject, client_id or a claim oauth.claims names`},
		{"a class that is none", []string{"class_scopes: {control:", "class_scopes: {admin:"}, `"admin" is not a class`},
		{"an identity arg that is no option", []string{`args: ["--as={subject}"]`, `args: ["{subject}"]`}, "is not an option and its value in one word"},
	} {
		t.Run(c.name, func(t *testing.T) {
			cfg, err := LoadConfig(writeIdentityConfig(t, "https://id.example", c.replace...))
			if err == nil {
				_, err = newFront(cfg)
			}
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("got %v; want an error containing %q", err, c.want)
			}
		})
	}
}

// An opaque token's named claims come from the issuer's introspection
// answer: through serve with introspection, a caller whose opaque token
// carries groups gets the policy outcome and the run environment its
// groups give, as a JWT caller does.
func TestIdentityClaimsBesideIntrospection(t *testing.T) {
	p := oauthtest.Start(t)
	p.AddClient(oauthtest.Client{ID: "srv", Secret: "rs"})
	p.AddClient(oauthtest.Client{ID: "alice", Secret: "s-alice", Audience: []string{oauthAudience}, Opaque: true, Claims: map[string]any{"groups": []string{"oncall"}}})
	p.AddClient(oauthtest.Client{ID: "bob", Secret: "s-bob", Audience: []string{oauthAudience}, Opaque: true, Claims: map[string]any{"groups": []string{"dev"}}})
	config := writeIdentityConfig(t, p.Issuer)
	secret := filepath.Join(filepath.Dir(config), "secret")
	if err := os.WriteFile(secret, []byte("rs\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	srv := serveHTTPBin(t, vsEnv(t, t.TempDir()), "-c", config, "--http", "127.0.0.1:0",
		"--oauth-introspection-client-id", "srv", "--oauth-introspection-secret-file", secret)
	alice := p.Token(t, "alice", "verbsurface:write")
	if strings.Count(alice, ".") == 2 {
		t.Fatal("the provider issued a JWT, not an opaque token")
	}
	r := httpClient(t, srv.url, alice).call(`{"ops":[{"op":"show.write","args":{"note":"x"}}]}`)
	res := r["results"].([]any)[0].(map[string]any)
	out, _ := res["result"].(map[string]any)["output"].(string)
	if res["ok"] != true || !strings.Contains(out, "\nRUN_GROUPS=oncall\n") {
		t.Errorf("alice (oncall, opaque token) show.write: %v; want it run with RUN_GROUPS=oncall", res)
	}
	r = httpClient(t, srv.url, p.Token(t, "bob", "verbsurface:write")).call(`{"ops":[{"op":"show.write","args":{"note":"x"}}]}`)
	if res := r["results"].([]any)[0].(map[string]any); code(res) != "policy_refused" {
		t.Errorf("bob (dev, opaque token) show.write: %v; want policy_refused", res)
	}
}
