//go:build unix

package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/verbsurface/verbsurface/internal/oauthtest"
)

// serveBGOAuth serves the background fixture over HTTP behind the OAuth
// provider p, with policy as its policy file and its state in state, and
// returns the server's URL.
func serveBGOAuth(t *testing.T, p *oauthtest.Provider, state, policy string) string {
	t.Helper()
	b, err := os.ReadFile(bgConfig)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	config := filepath.Join(dir, "front.yaml")
	b = append(b, "policy: policy.yaml\noauth:\n  issuer: "+p.Issuer+"\n  audience: "+oauthAudience+"\n"...)
	if err := os.WriteFile(config, b, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "policy.yaml"), []byte(policy), 0o644); err != nil {
		t.Fatal(err)
	}
	settleRuns(t, frontRunsDir(state, "bgsh"))
	return serveHTTPBin(t, vsEnv(t, state), "-c", config, "--http", "127.0.0.1:0").url
}

// Background runs of callers known by a verified subject, through a real
// OpenID Provider and real go-sdk clients over HTTP: live_runs_per_subject
// refuses a subject at its limit while another still starts, live_runs
// still holds the total; a subject lists, reads, waits on and kills its
// own runs only (another's run is to it as one that does not exist),
// while the operator's stdio session, which has no subject, sees and
// kills every run.
func TestBackgroundLiveRunsPerSubject(t *testing.T) {
	p := oauthtest.Start(t)
	for _, id := range []string{"alice", "bob", "carol"} {
		p.AddClient(oauthtest.Client{ID: id, Secret: "s-" + id, Audience: []string{oauthAudience}})
	}
	state := t.TempDir()
	url := serveBGOAuth(t, p, state, "version: 1\ndefault: allow\nlimits: {live_runs: 2, live_runs_per_subject: 1}\n")
	alice, bob, carol := httpClient(t, url, p.Token(t, "alice")), httpClient(t, url, p.Token(t, "bob")), httpClient(t, url, p.Token(t, "carol"))
	_, fp := alice.help("sh.run")
	run := `{"op":"sh.run","fingerprint":"` + fp + `","args":{"script":"sleep 300"}}`
	message := func(r map[string]any) string {
		m, _ := r["error"].(map[string]any)["message"].(string)
		return m
	}

	a := alice.start("sleep 300")
	if r := alice.op(run); code(r) != "policy_refused" || !strings.Contains(message(r), "each caller 1 live runs at once and 1 of alice's are live") {
		t.Fatalf("alice's second live run: %v; want policy_refused naming her limit", r)
	}
	b := bob.start("sleep 300")
	if r := carol.op(run); code(r) != "policy_refused" || !strings.Contains(message(r), "allows 2 live runs at once and 2 are live") {
		t.Fatalf("carol with two runs live: %v; want policy_refused naming the total", r)
	}

	// Each subject reaches its own run only.
	list := func(c *client) []string {
		t.Helper()
		r := c.op(`{"op":"job.list"}`)
		var ids []string
		for _, e := range r["result"].(map[string]any)["runs"].([]any) {
			ids = append(ids, e.(map[string]any)["id"].(string))
		}
		return ids
	}
	if got := list(bob); len(got) != 1 || got[0] != b {
		t.Errorf("bob's job.list: %v; want only his run %s", got, b)
	}
	if got := list(carol); len(got) != 0 {
		t.Errorf("carol's job.list: %v; want none", got)
	}
	if r := alice.op(`{"op":"job.status","args":{"id":"` + a + `"}}`); r["result"].(map[string]any)["run"].(map[string]any)["subject"] != "alice" {
		t.Errorf("alice's job.status of her run: %v; want subject alice", r)
	}
	for verb, args := range map[string]string{
		"job.status": `{"id":"` + a + `"}`,
		"job.output": `{"id":"` + a + `"}`,
		"job.kill":   `{"id":"` + a + `","grace":"1s"}`,
	} {
		if r := bob.op(`{"op":"` + verb + `","args":` + args + `}`); code(r) != "invalid_args" || !strings.Contains(jsonString(r), "no background run") {
			t.Errorf("bob's %s of alice's run: %v; want it unknown to him", verb, r)
		}
	}
	w := bob.op(`{"op":"job.wait","args":{"ids":["` + a + `"],"max_wait_seconds":0}}`)
	if e := w["result"].(map[string]any)["entries"].([]any)[0].(map[string]any)["error"]; e == nil || !strings.Contains(jsonString(e), "unknown_id") {
		t.Errorf("bob's job.wait on alice's run: %v; want an unknown id", w)
	}
	if r := alice.op(`{"op":"job.status","args":{"id":"` + a + `"}}`); r["result"].(map[string]any)["run"].(map[string]any)["terminal"] != false {
		t.Fatalf("alice's run after bob's kill: %v; want it still live", r)
	}

	// The operator's stdio session has no subject: it sees both runs
	// with their subjects and may kill either.
	op, _ := serveBG(t, state, nil)
	subjects := map[string]any{}
	for _, e := range op.op(`{"op":"job.list"}`)["result"].(map[string]any)["runs"].([]any) {
		subjects[e.(map[string]any)["id"].(string)] = e.(map[string]any)["subject"]
	}
	if subjects[a] != "alice" || subjects[b] != "bob" || len(subjects) != 2 {
		t.Errorf("the operator's job.list: %v; want %s of alice and %s of bob", subjects, a, b)
	}
	if r := op.op(`{"op":"job.kill","args":{"id":"` + b + `","grace":"1s"}}`); r["ok"] != true {
		t.Fatalf("the operator's kill of bob's run: %v", r)
	}
	op.waitEnded(b)

	// Alice kills her own run; then she may start again.
	if r := alice.op(`{"op":"job.kill","args":{"id":"` + a + `","grace":"1s"}}`); r["ok"] != true {
		t.Fatalf("alice's kill of her run: %v", r)
	}
	alice.waitEnded(a)
	again := alice.start("true")
	alice.waitEnded(again)
}

// A front without background verbs has no live runs it can count: its
// policy's live_runs and live_runs_per_subject are refused at start,
// naming the key.
func TestLiveRunLimitsNeedBackgroundVerbs(t *testing.T) {
	for _, key := range []string{"live_runs", "live_runs_per_subject"} {
		t.Run(key, func(t *testing.T) {
			t.Setenv("XDG_STATE_HOME", t.TempDir())
			dir := t.TempDir()
			p := filepath.Join(dir, "front.yaml")
			body := strings.Replace(readFile(t, bgConfig), "background: true, ", "", 1) + "policy: policy.yaml\n"
			writeFile(t, p, body)
			writeFile(t, filepath.Join(dir, "policy.yaml"), "version: 1\ndefault: allow\nlimits: {"+key+": 1}\n")
			cfg, err := LoadConfig(p)
			if err != nil {
				t.Fatal(err)
			}
			f, err := newFront(cfg)
			if err == nil {
				if f.bg != nil {
					f.bg.Close()
				}
				t.Fatalf("a front without background verbs accepted limits.%s", key)
			}
			if want := "limits." + key + " needs a count of the CLI's live runs"; !strings.Contains(err.Error(), want) {
				t.Fatalf("err = %v; want %q", err, want)
			}
		})
	}
}
