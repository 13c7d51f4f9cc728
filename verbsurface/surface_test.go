//go:build unix

package verbsurface

import (
	"context"
	"encoding/json"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/jsonschema-go/jsonschema"
	"github.com/verbsurface/verbsurface/internal/golden"
	"github.com/verbsurface/verbsurface/projector"
)

func TestCatalogGolden(t *testing.T) {
	fx := newFixture(t)
	golden.JSON(t, "catalog", fx.surface.Handle(context.Background(), json.RawMessage(`{"help":true}`), nil).Help)
}

func TestCatalog(t *testing.T) {
	fx := newFixture(t)
	resp := fx.do(t, `{"help":true}`)
	if resp["status"] != StatusSuccess {
		t.Fatalf("status %v", resp["status"])
	}
	if _, ok := resp["results"]; ok {
		t.Errorf("a help-only request has results: %v", resp)
	}
	raw := mustJSON(t, resp["help"])
	var cat Catalog
	if err := json.Unmarshal([]byte(raw), &cat); err != nil {
		t.Fatal(err)
	}

	t.Run("one line per available verb with required params, groups and optional count", func(t *testing.T) {
		want := "agent.submit(model, prompt|prompt_file, +9) — start one agent run in the background"
		if !slices.Contains(cat.Verbs, want) {
			t.Errorf("catalog lacks %q:\n%s", want, strings.Join(cat.Verbs, "\n"))
		}
		if !slices.Contains(cat.Verbs, "job.list(+2) — list jobs") {
			t.Errorf("catalog lacks job.list's line:\n%s", strings.Join(cat.Verbs, "\n"))
		}
	})
	t.Run("a dynamic verb says its value adds parameters", func(t *testing.T) {
		if !slices.Contains(cat.Verbs, "play.submit(playbook, +1, +playbook args) — run a playbook") {
			t.Errorf("catalog:\n%s", strings.Join(cat.Verbs, "\n"))
		}
	})
	t.Run("unavailable verbs are listed with the reason and parameter", func(t *testing.T) {
		var names []string
		for _, u := range cat.Unavailable {
			names = append(names, u.Verb)
			if u.Verb == "net.allow" && (u.Param != "cidr" || !strings.Contains(u.Reason, "intSlice")) {
				t.Errorf("net.allow: %+v", u)
			}
		}
		if diff := cmp.Diff([]string{"net.allow", "job.group"}, names); diff != "" {
			t.Errorf("unavailable (-want +got):\n%s", diff)
		}
	})
	t.Run("never synonyms or fenced commands", func(t *testing.T) {
		for _, word := range []string{"submit_agent", "job_status", "jobs_list", "job_output", "job_kill", "migrate", "trust"} {
			if strings.Contains(raw, word) {
				t.Errorf("catalog mentions %q: %s", word, raw)
			}
		}
	})
	t.Run("under 90 bytes per verb on average", func(t *testing.T) {
		n := len(cat.Verbs) + len(cat.Unavailable)
		if avg := float64(len(raw)) / float64(n); avg >= 90 {
			t.Errorf("catalog is %d bytes for %d verbs: %.1f bytes per verb", len(raw), n, avg)
		} else {
			t.Logf("catalog: %d bytes for %d verbs (%.1f per verb)", len(raw), n, avg)
		}
	})
}

func TestCatalogClipsLongSummaries(t *testing.T) {
	fx := newFixture(t, func(c *fixtureConfig) {
		c.verbs = func(fx *fixture) []Verb {
			return []Verb{{Name: "job.list", Class: ClassObserve, Path: []string{"job", "list"},
				Summary: strings.Repeat("list every job the store knows about ", 5)}}
		}
	})
	cat := fx.do(t, `{"help":true}`)["help"].(map[string]any)
	line := cat["verbs"].([]any)[0].(string)
	if len(line) > 100 || !strings.HasSuffix(line, "…") {
		t.Errorf("catalog line not clipped: %q", line)
	}
	h := fx.do(t, `{"help":"job.list"}`)["help"].(map[string]any)
	if h["summary"] != strings.Repeat("list every job the store knows about ", 5) {
		t.Errorf("help clipped the summary: %q", h["summary"])
	}
}

func TestHelpForVerb(t *testing.T) {
	fx := newFixture(t)
	h := fx.do(t, `{"help":"agent.submit"}`)["help"].(map[string]any)
	keys := sortedKeys(h)
	if diff := cmp.Diff([]string{"class", "schema", "schema_fingerprint", "summary", "verb"}, keys); diff != "" {
		t.Errorf("help keys (-want +got):\n%s", diff)
	}
	if h["verb"] != "agent.submit" || h["class"] != "spawn" || h["summary"] != "start one agent run in the background" {
		t.Errorf("help: %v", h)
	}
	// The schema is the live projection, and the fingerprint is contract
	// C2's over exactly that schema.
	tree, err := fx.env.tree()
	if err != nil {
		t.Fatal(err)
	}
	schema, err := projector.Project(tree.Find("agent", "submit"))
	if err != nil {
		t.Fatal(err)
	}
	fp, err := projector.Fingerprint("agent.submit", schema)
	if err != nil {
		t.Fatal(err)
	}
	if h["schema_fingerprint"] != fp || !strings.HasPrefix(fp, "sf1-") || len(fp) != 20 {
		t.Errorf("fingerprint %v, want %s", h["schema_fingerprint"], fp)
	}
	var want any
	raw, _ := json.Marshal(schema)
	_ = json.Unmarshal(raw, &want)
	if got := mustJSON(t, h["schema"]); got != mustJSON(t, want) {
		t.Errorf("schema differs from the projection:\n%s\n%s", got, want)
	}
	t.Run("a synonym resolves to its verb and is not echoed", func(t *testing.T) {
		h := fx.do(t, `{"help":"submit_agent"}`)["help"].(map[string]any)
		if h["verb"] != "agent.submit" || strings.Contains(mustJSON(t, h), "submit_agent") {
			t.Errorf("help by synonym: %v", h)
		}
	})
	t.Run("unknown verb suggests close matches", func(t *testing.T) {
		e := fx.do(t, `{"help":"agent.sumbit"}`)["help"].(map[string]any)["error"].(map[string]any)
		if e["code"] != CodeUnknownVerb || !slices.Contains(toStrings(e["matches"]), "agent.submit") {
			t.Errorf("help error: %v", e)
		}
	})
	t.Run("an unavailable verb's help is unavailable_verb naming the parameter", func(t *testing.T) {
		resp := fx.do(t, `{"help":"net.allow"}`)
		e := resp["help"].(map[string]any)["error"].(map[string]any)
		if e["code"] != CodeUnavailableVerb || e["param"] != "cidr" || resp["status"] != StatusError {
			t.Errorf("help: %v", resp)
		}
	})
}

func TestHelpGolden(t *testing.T) {
	fx := newFixture(t)
	for _, verb := range []string{"agent.submit", "job.status", "job.tag", "mode.set"} {
		t.Run(verb, func(t *testing.T) {
			// The exact bytes the surface sends (schema properties in
			// parser order), indented.
			golden.JSON(t, "help."+verb, fx.surface.Handle(context.Background(), json.RawMessage(`{"help":`+quote(verb)+`}`), nil).Help)
		})
	}
}

func toStrings(x any) []string {
	var out []string
	list, _ := x.([]any)
	for _, e := range list {
		s, _ := e.(string)
		out = append(out, s)
	}
	return out
}

func TestDynamicHelp(t *testing.T) {
	fx := newFixture(t)
	t.Run("base help names the dynamic parameter and how to see more", func(t *testing.T) {
		h := fx.do(t, `{"help":"play.submit"}`)["help"].(map[string]any)
		d, ok := h["dynamic"].(map[string]any)
		if !ok || d["param"] != "playbook" {
			t.Fatalf("base help: %v", h)
		}
		call := mustJSON(t, d["help_call"])
		if call != `{"help":{"playbook":"PLAYBOOK","verb":"play.submit"}}` {
			t.Errorf("help_call %s", call)
		}
	})
	t.Run("help naming a playbook returns the injected schema and content fingerprint", func(t *testing.T) {
		h := fx.do(t, `{"help":{"verb":"play.submit","playbook":"audit"}}`)["help"].(map[string]any)
		props := h["schema"].(map[string]any)["properties"].(map[string]any)
		for _, p := range []string{"playbook", "prompt", "target", "depth", "strict"} {
			if _, ok := props[p]; !ok {
				t.Errorf("injected schema lacks %q: %v", p, props)
			}
		}
		if req := toStrings(h["schema"].(map[string]any)["required"]); !slices.Contains(req, "target") {
			t.Errorf("injected required %v", req)
		}
		content, _ := os.ReadFile(filepath.Join(fx.env.Playbooks, "audit.json"))
		if h["playbook_fingerprint"] != projector.ContentFingerprint(content) {
			t.Errorf("playbook_fingerprint %v, want %s", h["playbook_fingerprint"], projector.ContentFingerprint(content))
		}
		base := fx.fingerprint(t, "play.submit")
		if h["schema_fingerprint"] == base {
			t.Error("the injected schema has the base schema's fingerprint")
		}
	})
	t.Run("an unknown playbook is invalid_args on the dynamic parameter", func(t *testing.T) {
		e := fx.do(t, `{"help":{"verb":"play.submit","playbook":"nope"}}`)["help"].(map[string]any)["error"].(map[string]any)
		if e["code"] != CodeInvalidArgs || e["problems"].([]any)[0].(map[string]any)["param"] != "playbook" {
			t.Errorf("error: %v", e)
		}
		if e["schema_fingerprint"] == nil || e["help_call"] == nil {
			t.Errorf("error does not teach: %v", e)
		}
	})
	t.Run("a playbook injecting an unrepresentable flag is unavailable_verb naming it", func(t *testing.T) {
		e := fx.do(t, `{"help":{"verb":"play.submit","playbook":"broken"}}`)["help"].(map[string]any)["error"].(map[string]any)
		if e["code"] != CodeUnavailableVerb || e["param"] != "addr" {
			t.Errorf("error: %v", e)
		}
	})
	t.Run("help object with a key that is not the dynamic parameter", func(t *testing.T) {
		e := fx.do(t, `{"help":{"verb":"play.submit","book":"audit"}}`)["help"].(map[string]any)["error"].(map[string]any)
		if e["code"] != CodeInvalidArgs || e["problems"].([]any)[0].(map[string]any)["param"] != "book" {
			t.Errorf("error: %v", e)
		}
		e = fx.do(t, `{"help":{"verb":"job.list","playbook":"audit"}}`)["help"].(map[string]any)["error"].(map[string]any)
		if e["code"] != CodeInvalidArgs {
			t.Errorf("error for a verb without a dynamic parameter: %v", e)
		}
	})
	t.Run("help object with only the verb is plain help", func(t *testing.T) {
		h := fx.do(t, `{"help":{"verb":"job.list"}}`)["help"].(map[string]any)
		if h["verb"] != "job.list" || h["schema_fingerprint"] == nil {
			t.Errorf("help: %v", h)
		}
	})
}

func TestDynamicExecution(t *testing.T) {
	fx := newFixture(t)
	h := fx.do(t, `{"help":{"verb":"play.submit","playbook":"audit"}}`)["help"].(map[string]any)
	fp, pf := h["schema_fingerprint"].(string), h["playbook_fingerprint"].(string)
	run := func(fingerprint, playbookFP string, extra ...any) map[string]any {
		args := map[string]any{"playbook": "audit", "target": "db"}
		if len(extra) == 0 {
			args["depth"] = 2
		}
		op := map[string]any{"op": "play.submit", "args": args, "fingerprint": fingerprint}
		if playbookFP != "" {
			op["playbook_fingerprint"] = playbookFP
		}
		return result(t, fx.do(t, mustJSON(t, map[string]any{"ops": []any{op}})), 0)
	}

	t.Run("runs with the injected flags and reports the playbook it ran", func(t *testing.T) {
		r := run(fp, pf)
		if r["ok"] != true {
			t.Fatalf("result %v", r)
		}
		echo := r["result"].(map[string]any)["echo"].(map[string]any)
		if echo["target"] != "db" || echo["depth"] != "2" || echo["playbook"] != "audit" {
			t.Errorf("the CLI parsed %v", echo)
		}
		if r["playbook_fingerprint"] != pf || r["playbook_changed"] != nil {
			t.Errorf("result %v", r)
		}
		// Without a discovered playbook fingerprint there is nothing to
		// compare: the result names what ran and claims no change.
		r = run(fp, "")
		if r["ok"] != true || r["playbook_fingerprint"] != pf || r["playbook_changed"] != nil {
			t.Errorf("result without playbook_fingerprint %v", r)
		}
	})
	t.Run("validates against the injected schema", func(t *testing.T) {
		resp := fx.do(t, `{"ops":[{"op":"play.submit","fingerprint":`+quote(fp)+`,"args":{"playbook":"audit","depth":"deep"}}]}`)
		r := result(t, resp, 0)
		if got := rulesOf(problemsOf(t, r)); !reflect.DeepEqual(got, []ruleAt{{"depth", RuleWrongType}, {"target", RuleMissingRequired}}) {
			t.Errorf("problems %v", got)
		}
		if r["error"].(map[string]any)["help_call"].(map[string]any)["help"].(map[string]any)["playbook"] != "audit" {
			t.Errorf("help_call does not name the playbook: %v", r["error"])
		}
	})
	t.Run("the base fingerprint does not run an injected schema", func(t *testing.T) {
		r := run(fx.fingerprint(t, "play.submit"), "")
		if errCode(r) != CodeStaleFingerprint {
			t.Errorf("result %v", r)
		}
	})
	t.Run("changed playbook content is reported in the op result", func(t *testing.T) {
		path := filepath.Join(fx.env.Playbooks, "audit.json")
		// Same declared args, different bytes: the schema (and so its
		// fingerprint) stays, the content fingerprint changes.
		if err := os.WriteFile(path, []byte(fixturePlaybooks["audit"]+"\n\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		r := run(fp, pf)
		if r["ok"] != true {
			t.Fatalf("result %v", r)
		}
		changed, ok := r["playbook_changed"].(map[string]any)
		if !ok || changed["discovered"] != pf || changed["executed"] == pf || changed["executed"] != r["playbook_fingerprint"] {
			t.Errorf("playbook_changed %v in %v", r["playbook_changed"], r)
		}
	})
	t.Run("changed playbook args make the fingerprint stale", func(t *testing.T) {
		path := filepath.Join(fx.env.Playbooks, "audit.json")
		if err := os.WriteFile(path, []byte(`{"args":[{"name":"target","kind":"string","required":true},{"name":"depth","kind":"string"}]}`), 0o644); err != nil {
			t.Fatal(err)
		}
		r := run(fp, pf, "without depth")
		if errCode(r) != CodeStaleFingerprint {
			t.Errorf("result %v", r)
		}
	})
}

func problemsOf(t testing.TB, r map[string]any) []Problem {
	t.Helper()
	e, ok := r["error"].(map[string]any)
	if !ok {
		t.Fatalf("no error in %v", r)
	}
	var ps []Problem
	if err := json.Unmarshal([]byte(mustJSON(t, e["problems"])), &ps); err != nil {
		t.Fatal(err)
	}
	return ps
}

// TestArgumentErrorsTeach: every error about an op's arguments or
// fingerprint carries the schema, the current fingerprint and the exact
// help call, so recovery is one step.
func TestArgumentErrorsTeach(t *testing.T) {
	fx := newFixture(t)
	fp := fx.fingerprint(t, "agent.submit")
	tests := []struct {
		rule, op, code string
	}{
		{"invalid args", `{"op":"agent.submit","args":{"modle":"m","prompt":"p"},"fingerprint":` + quote(fp) + `}`, CodeInvalidArgs},
		{"missing fingerprint", `{"op":"agent.submit","args":{"model":"m","prompt":"p"}}`, CodeMissingFingerprint},
		{"stale fingerprint", `{"op":"agent.submit","args":{"model":"m","prompt":"p"},"fingerprint":"sf1-0000000000000000"}`, CodeStaleFingerprint},
		{"invalid args of an observe verb", `{"op":"job.status","args":{}}`, CodeInvalidArgs},
		{"a preparer's refusal", `{"op":"agent.submit","args":{"model":"m","prompt_file":"relative.txt"},"fingerprint":` + quote(fp) + `}`, CodeInvalidArgs},
	}
	for _, tt := range tests {
		t.Run(tt.rule, func(t *testing.T) {
			r := result(t, fx.do(t, `{"ops":[`+tt.op+`]}`), 0)
			e, _ := r["error"].(map[string]any)
			if e["code"] != tt.code {
				t.Fatalf("code %v, want %s: %v", e["code"], tt.code, r)
			}
			verb := r["op"].(string)
			if e["schema"] == nil || e["schema_fingerprint"] != fx.fingerprint(t, verb) {
				t.Errorf("error lacks schema or current fingerprint: %v", e)
			}
			if got := mustJSON(t, e["help_call"]); got != `{"help":`+quote(verb)+`}` {
				t.Errorf("help_call %s", got)
			}
			if msg, _ := e["message"].(string); msg == "" || strings.Count(msg, "\n") > 0 {
				t.Errorf("message %q", msg)
			}
		})
	}
}

func TestInvalidArgsReportsEveryProblem(t *testing.T) {
	fx := newFixture(t)
	fp := fx.fingerprint(t, "agent.submit")
	r := result(t, fx.do(t, `{"ops":[{"op":"agent.submit","fingerprint":`+quote(fp)+`,"args":{"extra_args":["--all"],"prompt":"p","prompt_file":"/f","max_turns":1000,"temperature":"hot","tag":["ok","a\rb"],"dry_run":"yes"}}]}`), 0)
	// Unknown first, then parameters in parser order (pflag lists flags
	// sorted), then the exclusive pair.
	want := []ruleAt{
		{"extra_args", RuleUnknownParameter},
		{"dry_run", RuleWrongType},
		{"max_turns", RuleAboveMaximum},
		{"model", RuleMissingRequired},
		{"tag", RulePattern},
		{"temperature", RuleWrongType},
		{"prompt", RuleMutuallyExclusive},
	}
	if diff := cmp.Diff(want, rulesOf(problemsOf(t, r))); diff != "" {
		t.Errorf("problems (-want +got):\n%s", diff)
	}
}

func TestUnknownVerbSuggestsCloseMatches(t *testing.T) {
	fx := newFixture(t)
	tests := []struct {
		rule, name string
		want       []string
	}{
		{"one typo", "job.stauts", []string{"job.status"}},
		{"case and whitespace are a near miss, not a match", " Job.Status ", []string{"job.status"}},
		{"words in another order", "submit.agent", []string{"agent.submit"}},
		{"v1 style spelling of a verb", "job_list", []string{"job.list"}},
		{"shared prefix when nothing is closer", "agent", []string{"agent.submit"}},
		{"nothing close", "zzzzzz", nil},
		{"a long unrelated name suggests nothing", strings.Repeat("q", 300), nil},
	}
	for _, tt := range tests {
		t.Run(tt.rule, func(t *testing.T) {
			r := result(t, fx.do(t, `{"ops":[{"op":`+quote(tt.name)+`}]}`), 0)
			e := r["error"].(map[string]any)
			if e["code"] != CodeUnknownVerb || r["class"] != "none" || r["op"] != tt.name {
				t.Fatalf("result %v", r)
			}
			if diff := cmp.Diff(tt.want, toStrings(e["matches"])); diff != "" {
				t.Errorf("matches (-want +got):\n%s", diff)
			}
			if len(tt.want) == 0 && !strings.Contains(e["message"].(string), `{"help": true}`) {
				t.Errorf("message without matches does not point at the catalog: %q", e["message"])
			}
		})
	}
}

func TestFingerprintRules(t *testing.T) {
	fx := newFixture(t)
	fp := fx.fingerprint(t, "agent.submit")
	t.Run("spawn runs with the current fingerprint", func(t *testing.T) {
		r := result(t, fx.do(t, `{"ops":[{"op":"agent.submit","fingerprint":`+quote(fp)+`,"args":{"model":"m","prompt":"hi"}}]}`), 0)
		if r["ok"] != true || r["class"] != "spawn" {
			t.Fatalf("result %v", r)
		}
		id := r["result"].(map[string]any)["job_id"].(string)
		if !fileExists(filepath.Join(fx.env.State, id+".job"), 0) {
			t.Errorf("the CLI did not record job %s", id)
		}
	})
	t.Run("a spawn op without a fingerprint does not run", func(t *testing.T) {
		before, _ := filepath.Glob(filepath.Join(fx.env.State, "*.job"))
		r := result(t, fx.do(t, `{"ops":[{"op":"agent.submit","args":{"model":"m","prompt":"hi"}}]}`), 0)
		after, _ := filepath.Glob(filepath.Join(fx.env.State, "*.job"))
		if errCode(r) != CodeMissingFingerprint || len(after) != len(before) {
			t.Errorf("result %v; jobs before %d after %d", r, len(before), len(after))
		}
	})
	t.Run("observe and control verbs are exempt, job.kill included", func(t *testing.T) {
		resp := fx.do(t, `{"ops":[{"op":"job.list"},{"op":"job.kill","args":{"id":"j1","force":true}},{"op":"mode.set","args":{"mode":"fast"}}]}`)
		for i := range 3 {
			if r := result(t, resp, i); r["ok"] != true {
				t.Errorf("op %d: %v", i, r)
			}
		}
		if !fileExists(filepath.Join(fx.env.State, "j1.killed"), 0) {
			t.Error("job.kill did not run the kill command")
		}
	})
	t.Run("a fingerprint on an exempt verb is ignored, even a wrong one", func(t *testing.T) {
		r := result(t, fx.do(t, `{"ops":[{"op":"job.list","fingerprint":"sf1-bogus"}]}`), 0)
		if r["ok"] != true {
			t.Errorf("result %v", r)
		}
	})
}

func TestRenderingRoundTripsThroughTheRealCLI(t *testing.T) {
	fx := newFixture(t)
	fp := fx.fingerprint(t, "agent.submit")
	args := map[string]any{
		"model": "-m", "prompt": "--help", "tag": []any{"a,b", `"q"`, "--x"}, "env": []any{"A=1", "--json"},
		"max_turns": json.Number("3.0"), "temperature": json.Number("1e-7"), "timeout": "1h30m", "dry_run": true,
		"priority": 0, "workdir": "--", "retry_codes": []any{-1, 2},
	}
	r := result(t, fx.do(t, mustJSON(t, map[string]any{"ops": []any{map[string]any{"op": "agent.submit", "fingerprint": fp, "args": args}}})), 0)
	if r["ok"] != true {
		t.Fatalf("result %v", r)
	}
	echo := r["result"].(map[string]any)["echo"].(map[string]any)
	want := map[string]any{
		"model": "-m", "prompt": "--help", "tag": []any{"a,b", `"q"`, "--x"}, "env": []any{"A=1", "--json"},
		"max-turns": "3", "temperature": "1e-07", "timeout": "1h30m0s", "dry-run": "true", "priority": "0",
		"workdir": "--", "retry-codes": []any{"-1", "2"},
	}
	if diff := cmp.Diff(want, echo); diff != "" {
		t.Errorf("the CLI parsed (-want +got):\n%s", diff)
	}
	t.Run("hostile positionals stay positionals", func(t *testing.T) {
		r := result(t, fx.do(t, `{"ops":[{"op":"job.tag","args":{"id":"--force","tags":["-h","--","--json=false"]}}]}`), 0)
		if r["ok"] != true {
			t.Fatalf("result %v", r)
		}
		if got := mustJSON(t, r["result"]); got != `{"id":"--force","tags":["-h","--","--json=false"]}` {
			t.Errorf("the CLI parsed %s", got)
		}
	})
}

func TestPreparerInfoIsMergedIntoTheResult(t *testing.T) {
	fx := newFixture(t)
	fp := fx.fingerprint(t, "agent.submit")
	promptPath := filepath.Join(t.TempDir(), "prompt.txt")
	if err := os.WriteFile(promptPath, []byte("audit the repo"), 0o644); err != nil {
		t.Fatal(err)
	}
	r := result(t, fx.do(t, `{"ops":[{"op":"agent.submit","fingerprint":`+quote(fp)+`,"args":{"model":"m","prompt_file":`+quote(promptPath)+`}}]}`), 0)
	if r["ok"] != true {
		t.Fatalf("result %v", r)
	}
	cli := r["result"].(map[string]any)
	if r["prompt_source"] != "prompt_file" || r["prompt_bytes"] != float64(len("audit the repo")) || r["prompt_sha256"] != cli["prompt_sha256"] {
		t.Errorf("info not merged or not what the CLI read: %v", r)
	}
	snap := cli["echo"].(map[string]any)["prompt-file"].(string)
	if snap == promptPath {
		t.Error("the CLI read the caller's file, not the snapshot")
	}
	// The CLI read it as an inherited descriptor (/dev/fd/N) or by its
	// name; either way nothing of it is left once the command exited.
	if left, _ := filepath.Glob(filepath.Join(fx.env.State, "dispatch-prompt-*")); len(left) != 0 || (!strings.HasPrefix(snap, "/dev/fd/") && fileExists(snap, 0)) {
		t.Errorf("the snapshot %s was not cleaned up after the command exited: %v", snap, left)
	}
}

func TestCLIErrorsPassThrough(t *testing.T) {
	fx := newFixture(t)
	r := result(t, fx.do(t, `{"ops":[{"op":"job.status","args":{"id":"nope"}}]}`), 0)
	e := r["error"].(map[string]any)
	if e["code"] != CodeCLIError || e["message"] != `no job "nope"` {
		t.Fatalf("error %v", e)
	}
	if d := e["details"].(map[string]any); d["code"] != "not_found" || d["details"].(map[string]any)["id"] != "nope" {
		t.Errorf("details %v", d)
	}
}

func TestHandlerVerbs(t *testing.T) {
	fx := newFixture(t)
	fp := fx.fingerprint(t, "agent.submit")
	sub := result(t, fx.do(t, `{"ops":[{"op":"agent.submit","fingerprint":`+quote(fp)+`,"args":{"model":"m","prompt":"p"}}]}`), 0)
	id := sub["result"].(map[string]any)["job_id"].(string)
	t.Run("job.wait runs its handler with validated args, and its schema is projected from job wait", func(t *testing.T) {
		r := result(t, fx.do(t, `{"ops":[{"op":"job.wait","args":{"id":`+quote(id)+`,"timeout":"5s"}}]}`), 0)
		if r["ok"] != true || r["result"].(map[string]any)["waited"] != id {
			t.Fatalf("result %v", r)
		}
		bad := result(t, fx.do(t, `{"ops":[{"op":"job.wait","args":{"id":`+quote(id)+`,"timeout":"soon"}}]}`), 0)
		if got := rulesOf(problemsOf(t, bad)); !reflect.DeepEqual(got, []ruleAt{{"timeout", RulePattern}}) {
			t.Errorf("problems %v", got)
		}
	})
	t.Run("handler errors with a dispatch code keep it", func(t *testing.T) {
		r := result(t, fx.do(t, `{"ops":[{"op":"job.wait","args":{"id":"missing"}}]}`), 0)
		if errCode(r) != CodeCLIError {
			t.Errorf("result %v", r)
		}
	})
}

func TestHandlerErrorsStayInTheClosedSet(t *testing.T) {
	fx := newFixture(t, func(c *fixtureConfig) {
		c.verbs = func(fx *fixture) []Verb {
			return []Verb{
				{Name: "job.wait", Class: ClassObserve, Path: []string{"job", "wait"}, Handler: func(context.Context, *Call) (any, error) {
					return nil, &codedErr{code: "deadline_unreachable", details: map[string]any{"why": "x"}}
				}},
				{Name: "job.list", Class: ClassObserve, Path: []string{"job", "list"}, Handler: func(context.Context, *Call) (any, error) {
					return func() {}, nil // cannot marshal
				}},
			}
		}
	})
	resp := fx.do(t, `{"ops":[{"op":"job.wait","args":{"id":"x"}},{"op":"job.list"}]}`)
	e := result(t, resp, 0)["error"].(map[string]any)
	if e["code"] != CodeHandlerError || e["details"].(map[string]any)["code"] != "deadline_unreachable" {
		t.Errorf("error %v", e)
	}
	if c := errCode(result(t, resp, 1)); c != CodeInternalError {
		t.Errorf("unmarshalable handler result: %v", c)
	}
}

type codedErr struct {
	code    string
	details map[string]any
}

func (e *codedErr) Error() string                { return "coded failure " + e.code }
func (e *codedErr) ErrorCode() string            { return e.code }
func (e *codedErr) ErrorDetails() map[string]any { return e.details }

func TestUnavailableVerbOps(t *testing.T) {
	fx := newFixture(t)
	resp := fx.do(t, `{"ops":[{"op":"net.allow","args":{"cidr":"10.0.0.0/8"}},{"op":"job.group"}]}`)
	e := result(t, resp, 0)["error"].(map[string]any)
	if e["code"] != CodeUnavailableVerb || e["param"] != "cidr" || !strings.Contains(e["message"].(string), "intSlice") {
		t.Errorf("net.allow: %v", e)
	}
	if c := errCode(result(t, resp, 1)); c != CodeUnavailableVerb {
		t.Errorf("job.group: %v", c)
	}
	if result(t, resp, 0)["class"] != "control" {
		t.Errorf("an unavailable verb's result does not name its class: %v", result(t, resp, 0))
	}
}

func TestPolicy(t *testing.T) {
	t.Run("ReadOnly admits only observe verbs", func(t *testing.T) {
		fx := newFixture(t, func(c *fixtureConfig) { c.opts.Policy = ReadOnly })
		fp := fx.fingerprint(t, "agent.submit")
		resp := fx.do(t, `{"ops":[{"op":"job.list"},{"op":"agent.submit","fingerprint":`+quote(fp)+`,"args":{"model":"m","prompt":"p"}},{"op":"job.kill","args":{"id":"k"}}]}`)
		if r := result(t, resp, 0); r["ok"] != true || r["class"] != "observe" {
			t.Errorf("observe op: %v", r)
		}
		for i, class := range map[int]string{1: "spawn", 2: "control"} {
			r := result(t, resp, i)
			if errCode(r) != CodePolicyRefused || r["class"] != class {
				t.Errorf("op %d: %v", i, r)
			}
		}
		if jobs, _ := filepath.Glob(filepath.Join(fx.env.State, "*")); len(jobs) != 0 {
			t.Errorf("refused ops ran: %v", jobs)
		}
	})
	t.Run("a payload-aware policy sees verb, class and args", func(t *testing.T) {
		var seen []PolicyOp
		fx := newFixture(t, func(c *fixtureConfig) {
			c.opts.Policy = func(_ context.Context, op PolicyOp) error {
				seen = append(seen, op)
				if op.Verb == "mode.set" && op.Args["mode"] == "fast" {
					return errorString("fast mode needs an operator")
				}
				return nil
			}
		})
		resp := fx.do(t, `{"ops":[{"op":"mode.set","args":{"mode":"safe"}},{"op":"mode.set","args":{"mode":"fast"}}]}`)
		if r := result(t, resp, 0); r["ok"] != true {
			t.Errorf("safe: %v", r)
		}
		r := result(t, resp, 1)
		if errCode(r) != CodePolicyRefused || !strings.Contains(r["error"].(map[string]any)["message"].(string), "fast mode needs an operator") {
			t.Errorf("fast: %v", r)
		}
		if len(seen) != 2 || seen[1].Class != ClassControl || seen[1].Verb != "mode.set" {
			t.Errorf("policy saw %+v", seen)
		}
	})
	t.Run("the policy sees only validated args", func(t *testing.T) {
		called := false
		fx := newFixture(t, func(c *fixtureConfig) {
			c.opts.Policy = func(context.Context, PolicyOp) error { called = true; return nil }
		})
		if c := errCode(result(t, fx.do(t, `{"ops":[{"op":"mode.set","args":{"mode":"turbo"}}]}`), 0)); c != CodeInvalidArgs || called {
			t.Errorf("code %s, policy called %v", c, called)
		}
	})
}

type errorString string

func (e errorString) Error() string { return string(e) }

func TestBatches(t *testing.T) {
	fx := newFixture(t)
	fp := fx.fingerprint(t, "agent.submit")
	t.Run("ops run in order and a failure does not stop the rest", func(t *testing.T) {
		resp := fx.do(t, `{"ops":[
			{"op":"agent.submit","fingerprint":`+quote(fp)+`,"args":{"model":"first","prompt":"p"}},
			{"op":"no.such.verb"},
			{"op":"job.list"}]}`)
		if resp["status"] != StatusPartial {
			t.Errorf("status %v", resp["status"])
		}
		if r := result(t, resp, 1); errCode(r) != CodeUnknownVerb {
			t.Errorf("op 1: %v", r)
		}
		// job.list ran after agent.submit: it sees the job.
		jobs := result(t, resp, 2)["result"].(map[string]any)["jobs"].([]any)
		if len(jobs) != 1 || jobs[0].(map[string]any)["model"] != "first" {
			t.Errorf("job.list saw %v", jobs)
		}
	})
	t.Run("a batch of exactly MaxOps runs", func(t *testing.T) {
		ops := strings.TrimSuffix(strings.Repeat(`{"op":"mode.set","args":{"mode":"safe"}},`, DefaultMaxOps), ",")
		resp := fx.do(t, `{"ops":[`+ops+`]}`)
		if resp["status"] != StatusSuccess || len(resp["results"].([]any)) != DefaultMaxOps {
			t.Errorf("response %v", resp)
		}
	})
	t.Run("one more is batch_too_large naming the cap, and nothing runs", func(t *testing.T) {
		ops := strings.TrimSuffix(strings.Repeat(`{"op":"job.kill","args":{"id":"over"}},`, DefaultMaxOps+1), ",")
		res := fx.surface.Handle(context.Background(), json.RawMessage(`{"ops":[`+ops+`]}`), nil)
		if !res.IsError() || res.Error.Code != CodeBatchTooLarge || res.Error.Limit != DefaultMaxOps || !strings.Contains(res.Error.Message, "16") {
			t.Errorf("response %s", res.JSON())
		}
		if fileExists(filepath.Join(fx.env.State, "over.killed"), 0) {
			t.Error("an op of a refused batch ran")
		}
	})
	t.Run("the cap is configurable", func(t *testing.T) {
		small := newFixture(t, func(c *fixtureConfig) { c.opts.MaxOps = 2 })
		resp := small.do(t, `{"ops":[{"op":"job.list"},{"op":"job.list"},{"op":"job.list"}]}`)
		if resp["error"].(map[string]any)["limit"] != float64(2) {
			t.Errorf("response %v", resp)
		}
		if !strings.Contains(string(small.surface.EnvelopeSchema()), `"maxItems":2`) {
			t.Errorf("envelope schema does not carry the cap: %s", small.surface.EnvelopeSchema())
		}
	})
	t.Run("ops and help together", func(t *testing.T) {
		resp := fx.do(t, `{"ops":[{"op":"job.list"}],"help":"job.list"}`)
		if resp["status"] != StatusSuccess || resp["help"].(map[string]any)["verb"] != "job.list" || len(resp["results"].([]any)) != 1 {
			t.Errorf("response %v", resp)
		}
	})
}

func TestMalformedEnvelopes(t *testing.T) {
	fx := newFixture(t)
	tests := []struct {
		rule, req string
		param     string // first problem's param
	}{
		{"not JSON", `{"ops":`, ""},
		{"an array", `[{"op":"job.list"}]`, ""},
		{"a string", `"job.list"`, ""},
		{"a number", `42`, ""},
		{"two JSON values", `{"help":true} {"help":true}`, ""},
		{"empty object", `{}`, "ops"},
		{"no arguments at all", ``, "ops"},
		{"null", `null`, "ops"},
		{"unknown top-level key", `{"help":true,"extra_args":["--all"]}`, "extra_args"},
		{"ops not an array", `{"ops":{"op":"job.list"}}`, "ops"},
		{"ops empty", `{"ops":[]}`, "ops"},
		{"op entry not an object", `{"ops":["job.list"]}`, "ops[0]"},
		{"op missing op", `{"ops":[{"args":{}}]}`, "ops[0].op"},
		{"op not a string", `{"ops":[{"op":7}]}`, "ops[0].op"},
		{"unknown op key", `{"ops":[{"op":"job.list","argv":["--all"]}]}`, "ops[0].argv"},
		{"args not an object", `{"ops":[{"op":"job.list","args":["--all"]}]}`, "ops[0].args"},
		{"fingerprint not a string", `{"ops":[{"op":"job.list","fingerprint":1}]}`, "ops[0].fingerprint"},
		{"help false", `{"help":false}`, "help"},
		{"help a number", `{"help":1}`, "help"},
		{"help object with a non-string value", `{"help":{"verb":"play.submit","playbook":1}}`, "help.playbook"},
	}
	for _, tt := range tests {
		t.Run(tt.rule, func(t *testing.T) {
			res := fx.surface.Handle(context.Background(), json.RawMessage(tt.req), nil)
			if !res.IsError() || res.Status != StatusError || res.Error == nil || res.Error.Code != CodeMalformedEnvelope {
				t.Fatalf("response %s", res.JSON())
			}
			if res.Results != nil || res.Help != nil {
				t.Errorf("a malformed envelope ran something: %s", res.JSON())
			}
			if len(res.Error.Problems) == 0 || res.Error.Problems[0].Param != tt.param {
				t.Errorf("problems %+v, want first on %q", res.Error.Problems, tt.param)
			}
			if res.Error.Schema == nil || !strings.Contains(mustJSON(t, res.Error.Schema), `"fingerprint"`) {
				t.Errorf("error lacks the envelope schema: %s", res.JSON())
			}
		})
	}
}

// TestEnvelopeSchemaAgreesWithParsing checks the advertised envelope schema
// against the parser on the same corpus the malformed-envelope test uses
// plus valid envelopes: what the schema rejects, the parser rejects.
func TestEnvelopeSchemaAgreesWithParsing(t *testing.T) {
	var s jsonschema.Schema
	if err := json.Unmarshal(envelopeSchemaJSON(DefaultMaxOps), &s); err != nil {
		t.Fatal(err)
	}
	rs, err := s.Resolve(nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, doc := range []string{
		`{"help":true}`, `{"help":"x"}`, `{"help":{"verb":"a","p":"v"}}`, `{"ops":[{"op":"a"}]}`,
		`{"ops":[{"op":"a","args":{"x":1},"fingerprint":"f","playbook_fingerprint":"p"}],"help":true}`,
		`{}`, `{"help":false}`, `{"help":1}`, `{"help":{"p":"v"}}`, `{"help":{"verb":"a","p":1}}`, `{"ops":[]}`,
		`{"ops":["a"]}`, `{"ops":[{}]}`, `{"ops":[{"op":1}]}`, `{"ops":[{"op":"a","x":1}]}`, `{"ops":[{"op":"a","args":[]}]}`,
		`{"x":1}`, `[]`, `"s"`,
	} {
		var inst any
		if err := json.Unmarshal([]byte(doc), &inst); err != nil {
			t.Fatal(err)
		}
		schemaOK := rs.Validate(inst) == nil
		_, problems := parseEnvelope(json.RawMessage(doc), DefaultMaxOps)
		if parseOK := len(problems) == 0; parseOK != schemaOK {
			t.Errorf("%s: schema accepts=%v, parser accepts=%v (%v)", doc, schemaOK, parseOK, problems)
		}
	}
}

func TestSynonyms(t *testing.T) {
	sunset := time.Date(2026, 9, 30, 0, 0, 0, 0, time.UTC)
	at := func(now time.Time) *fixture {
		return newFixture(t, func(c *fixtureConfig) {
			c.opts.SynonymSunset = sunset
			c.opts.Now = func() time.Time { return now }
		})
	}
	t.Run("accepted before the sunset, resolved to the verb", func(t *testing.T) {
		fx := at(sunset.Add(-time.Nanosecond))
		r := result(t, fx.do(t, `{"ops":[{"op":"jobs_list"},{"op":"job_kill","args":{"id":"s1"}}]}`), 0)
		if r["ok"] != true || r["op"] != "job.list" || r["class"] != "observe" {
			t.Errorf("result %v", r)
		}
		if !fileExists(filepath.Join(fx.env.State, "s1.killed"), 0) {
			t.Error("job_kill did not run job.kill")
		}
	})
	t.Run("a synonym still needs the verb's fingerprint for spawn", func(t *testing.T) {
		fx := at(sunset.Add(-time.Hour))
		r := result(t, fx.do(t, `{"ops":[{"op":"submit_agent","args":{"model":"m","prompt":"p"}}]}`), 0)
		if errCode(r) != CodeMissingFingerprint || r["op"] != "agent.submit" {
			t.Errorf("result %v", r)
		}
	})
	t.Run("retired at the sunset, naming the verb", func(t *testing.T) {
		for _, now := range []time.Time{sunset, sunset.Add(time.Hour)} {
			fx := at(now)
			r := result(t, fx.do(t, `{"ops":[{"op":"job_status","args":{"id":"x"}}]}`), 0)
			e := r["error"].(map[string]any)
			if e["code"] != CodeRetiredSynonym || e["use"] != "job.status" || !strings.Contains(e["message"].(string), "job.status") {
				t.Errorf("at %v: %v", now, r)
			}
			if r["op"] != "job_status" || r["class"] != "none" {
				t.Errorf("at %v: %v", now, r)
			}
		}
	})
	t.Run("without a sunset they are accepted", func(t *testing.T) {
		fx := newFixture(t)
		if r := result(t, fx.do(t, `{"ops":[{"op":"job_output","args":{"id":"x"}}]}`), 0); r["op"] != "job.output" {
			t.Errorf("result %v", r)
		}
	})
	t.Run("never advertised", func(t *testing.T) {
		fx := at(sunset.Add(-time.Hour))
		for _, req := range []string{`{"help":true}`, `{"help":"job.status"}`, `{"help":"job_status"}`} {
			out := mustJSON(t, fx.do(t, req))
			for _, syn := range []string{"submit_agent", "job_status", "jobs_list", "job_output", "job_kill"} {
				if strings.Contains(out, syn) {
					t.Errorf("%s mentions %s: %s", req, syn, out)
				}
			}
		}
	})
}

func TestEveryResultNamesItsClass(t *testing.T) {
	fx := newFixture(t)
	resp := fx.do(t, `{"ops":[{"op":"job.list"},{"op":"agent.submit"},{"op":"mode.set","args":{"mode":1}},{"op":"bogus"},{"op":"state.migrate"}]}`)
	want := []string{"observe", "spawn", "control", "none", "none"}
	for i, c := range want {
		if got := result(t, resp, i)["class"]; got != c {
			t.Errorf("op %d class %v, want %s", i, got, c)
		}
	}
}

// TestSchemasAreLive: the tree source is asked on every request and a
// changed command changes the schema and fingerprint on the next request;
// the cache is keyed on the command's content, not on the verb.
func TestSchemasAreLive(t *testing.T) {
	var extra bool
	fx := newFixture(t)
	base := fx.env
	calls := 0
	fx.surface.opts.Source = func(context.Context) (*projector.Tree, error) {
		calls++
		tr, err := base.tree()
		if err != nil || !extra {
			return tr, err
		}
		cmd := tr.Find("job", "list")
		cmd.Params = append(cmd.Params, &projector.Param{Name: "owner", Options: []string{"--owner"}, Kind: projector.KindString, Arity: projector.ArityOne, Action: "pflag:string", Type: "string"})
		return tr, nil
	}
	before := fx.fingerprint(t, "job.list")
	if c := errCode(result(t, fx.do(t, `{"ops":[{"op":"job.list","args":{"owner":"me"}}]}`), 0)); c != CodeInvalidArgs {
		t.Errorf("owner accepted before the CLI had it: %s", c)
	}
	extra = true
	after := fx.fingerprint(t, "job.list")
	if before == after {
		t.Error("the fingerprint did not change with the command")
	}
	if strings.Contains(mustJSON(t, fx.do(t, `{"help":"job.list"}`)), `"owner"`) == false {
		t.Error("help does not show the new parameter")
	}
	extra = false
	if again := fx.fingerprint(t, "job.list"); again != before {
		t.Errorf("fingerprint %s after reverting, want %s", again, before)
	}
	if calls < 5 {
		t.Errorf("source asked %d times for 5 requests", calls)
	}
}

func TestCacheByFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "cli")
	if err := os.WriteFile(path, []byte("v1"), 0o755); err != nil {
		t.Fatal(err)
	}
	loads := 0
	src := CacheByFile(path, func(context.Context) (*projector.Tree, error) {
		loads++
		return &projector.Tree{Program: "cli", Dialect: projector.DialectPflag}, nil
	})
	for range 3 {
		if _, err := src(context.Background()); err != nil {
			t.Fatal(err)
		}
	}
	if loads != 1 {
		t.Errorf("%d loads for an unchanged file", loads)
	}
	if err := os.WriteFile(path, []byte("v2 longer"), 0o755); err != nil { // size changes
		t.Fatal(err)
	}
	if _, err := src(context.Background()); err != nil || loads != 2 {
		t.Errorf("loads %d after the size changed (%v)", loads, err)
	}
	later := time.Now().Add(time.Hour)
	if err := os.Chtimes(path, later, later); err != nil { // only the mtime changes
		t.Fatal(err)
	}
	if _, err := src(context.Background()); err != nil || loads != 3 {
		t.Errorf("loads %d after the mtime changed (%v)", loads, err)
	}
	os.Remove(path)
	if _, err := src(context.Background()); err == nil {
		t.Error("a missing executable served the cached tree")
	}
}

func TestTreeSourceFailureMakesVerbsUnavailable(t *testing.T) {
	fx := newFixture(t, func(c *fixtureConfig) {
		c.opts.Source = func(context.Context) (*projector.Tree, error) { return nil, errorString("walker crashed") }
	})
	resp := fx.do(t, `{"ops":[{"op":"job.list"}],"help":true}`)
	if e := result(t, resp, 0)["error"].(map[string]any); e["code"] != CodeUnavailableVerb || !strings.Contains(e["message"].(string), "walker crashed") {
		t.Errorf("op: %v", e)
	}
	cat := resp["help"].(map[string]any)
	if len(cat["verbs"].([]any)) != 0 || len(cat["unavailable"].([]any)) != 12 {
		t.Errorf("catalog %v", cat)
	}
}

func TestRegisterValidation(t *testing.T) {
	inject := func(string) (*projector.Command, string, error) { return nil, "", nil }
	tests := []struct {
		rule string
		verb Verb
	}{
		{"name must be dotted lowercase", Verb{Name: "Agent.Submit", Class: ClassSpawn, Path: []string{"a"}}},
		{"name must not be empty", Verb{Name: "", Class: ClassSpawn, Path: []string{"a"}}},
		{"class must be known", Verb{Name: "a.b", Class: "write", Path: []string{"a"}}},
		{"a stored command must allow something", Verb{Name: "a.b", Class: ClassControl, Path: []string{"a"}, StoredCommand: &StoredCommand{Param: "command"}}},
		{"a stored command may not allow a fenced path", Verb{Name: "a.b", Class: ClassControl, Path: []string{"a"}, StoredCommand: &StoredCommand{Param: "command", Allow: [][]string{{"state", "migrate"}}}}},
		{"a stored command may not allow the root", Verb{Name: "a.b", Class: ClassControl, Path: []string{"a"}, StoredCommand: &StoredCommand{Param: "command", Allow: [][]string{{}}}}},
		{"a verb's machine position must be known", Verb{Name: "a.b", Class: ClassObserve, Path: []string{"a"}, Machine: &Machine{At: "middle"}}},
		{"a verb's machine arguments start with an option", Verb{Name: "a.b", Class: ClassObserve, Path: []string{"a"}, Machine: &Machine{Args: []string{"json"}}}},
		{"fixed arguments hold no empty word", Verb{Name: "a.b", Class: ClassObserve, Path: []string{"a"}, Args: []string{""}}},
		{"path elements must not be blank", Verb{Name: "a.b", Class: ClassObserve, Path: []string{"a", " "}}},
		{"summary is one line", Verb{Name: "a.b", Class: ClassObserve, Path: []string{"a"}, Summary: "x\ny"}},
		{"synonym must be a v1 name", Verb{Name: "a.b", Class: ClassObserve, Path: []string{"a"}, Synonyms: []string{"a.b.c"}}},
		{"synonym must differ from the name", Verb{Name: "ab", Class: ClassObserve, Path: []string{"a"}, Synonyms: []string{"ab"}}},
		{"dynamic needs an injector", Verb{Name: "a.b", Class: ClassSpawn, Path: []string{"a"}, Dynamic: &Dynamic{Param: "p"}}},
		{"dynamic needs a parameter", Verb{Name: "a.b", Class: ClassSpawn, Path: []string{"a"}, Dynamic: &Dynamic{Inject: inject}}},
	}
	for _, tt := range tests {
		t.Run(tt.rule, func(t *testing.T) {
			reg, _ := NewRegistry(nil)
			if err := reg.Register(tt.verb); err == nil {
				t.Errorf("registered %+v", tt.verb)
			}
		})
	}
	t.Run("names and synonyms are unique", func(t *testing.T) {
		reg, _ := NewRegistry(nil)
		if err := reg.Register(Verb{Name: "job.list", Class: ClassObserve, Path: []string{"job", "list"}, Synonyms: []string{"jobs_list"}}); err != nil {
			t.Fatal(err)
		}
		for _, v := range []Verb{
			{Name: "job.list", Class: ClassObserve, Path: []string{"x"}},
			{Name: "job.all", Class: ClassObserve, Path: []string{"x"}, Synonyms: []string{"jobs_list"}},
			{Name: "jobs_list", Class: ClassObserve, Path: []string{"x"}},
		} {
			if err := reg.Register(v); err == nil {
				t.Errorf("registered a duplicate: %+v", v)
			}
		}
	})
	t.Run("New needs a source, and a runner for command verbs", func(t *testing.T) {
		reg, _ := NewRegistry(nil)
		_ = reg.Register(Verb{Name: "job.list", Class: ClassObserve, Path: []string{"job", "list"}})
		if _, err := New(reg, &Options{Runner: RunnerFunc(nil)}); err == nil {
			t.Error("New without a source")
		}
		if _, err := New(reg, &Options{Source: StaticTree(&projector.Tree{})}); err == nil {
			t.Error("New without a runner for a command verb")
		}
		if _, err := New(reg, &Options{Source: StaticTree(&projector.Tree{}), Runner: RunnerFunc(nil), MaxOps: -1}); err == nil {
			t.Error("New with a negative MaxOps")
		}
	})
}

// TestErrorCodesAreDocumented: every code of the closed set is a Code*
// constant with its own doc comment where it is declared, and every Code*
// constant is in the closed set.
func TestErrorCodesAreDocumented(t *testing.T) {
	f, err := parser.ParseFile(token.NewFileSet(), "errors.go", nil, parser.ParseComments)
	if err != nil {
		t.Fatal(err)
	}
	declared := map[string]bool{}
	for _, decl := range f.Decls {
		gd, ok := decl.(*ast.GenDecl)
		if !ok || gd.Tok != token.CONST {
			continue
		}
		for _, spec := range gd.Specs {
			vs := spec.(*ast.ValueSpec)
			for i, name := range vs.Names {
				if !strings.HasPrefix(name.Name, "Code") {
					continue
				}
				lit, _ := vs.Values[i].(*ast.BasicLit)
				code := strings.Trim(lit.Value, `"`)
				declared[code] = true
				if vs.Doc == nil || !strings.HasPrefix(vs.Doc.Text(), name.Name+" ("+code+"): ") {
					t.Errorf("%s has no doc comment of its own saying what %q means", name.Name, code)
				}
			}
		}
	}
	for _, code := range Codes() {
		if !declared[code] {
			t.Errorf("Codes() has %q, which no Code constant declares", code)
		}
	}
	if len(declared) != len(Codes()) {
		t.Errorf("%d Code constants, %d codes in Codes()", len(declared), len(Codes()))
	}
}

// TestConcurrentRequests serves many requests at once while verbs are being
// registered, under -race: the projection cache, the registry and the
// per-request tree memo are shared.
func TestConcurrentRequests(t *testing.T) {
	fx := newFixture(t)
	want := fx.fingerprint(t, "agent.submit")
	var wg sync.WaitGroup
	errs := make(chan string, 256)
	for g := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 6 {
				switch i % 3 {
				case 0:
					if cat := fx.do(t, `{"help":true}`)["help"].(map[string]any); len(cat["verbs"].([]any)) < 10 {
						errs <- fmt.Sprintf("catalog %v", cat)
					}
				case 1:
					if got := fx.fingerprint(t, "agent.submit"); got != want {
						errs <- "fingerprint " + got
					}
				case 2:
					resp := fx.do(t, `{"ops":[{"op":"mode.set","args":{"mode":"safe"}},{"op":"play.submit","args":{"playbook":"audit","target":"x"}}]}`)
					if r := result(t, resp, 0); r["ok"] != true {
						errs <- fmt.Sprintf("mode.set %v", r)
					}
					if c := errCode(result(t, resp, 1)); c != CodeMissingFingerprint {
						errs <- "play.submit " + c
					}
				}
			}
			if err := fx.reg.Register(Verb{Name: fmt.Sprintf("extra.v%d", g), Class: ClassObserve, Path: []string{"job", "list"}}); err != nil {
				errs <- err.Error()
			}
		}()
	}
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Error(e)
	}
	if n := len(fx.reg.Verbs()); n != 12+8 {
		t.Errorf("%d verbs registered", n)
	}
}
