package policy

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// testVerbs is a small surface shaped like limcp's.
func testVerbs() []Verb {
	return []Verb{
		{Name: "agent.submit", Class: "spawn", Synonyms: []string{"submit_agent"},
			Params: map[string]string{"model": "string", "prompt": "string", "timeout": "string", "tags": "array"}},
		{Name: "fanout.submit", Class: "spawn", Params: map[string]string{"n": "integer", "model": "string", "prompt": "string"}},
		{Name: "job.status", Class: "observe", Params: map[string]string{"ids": "array"}},
		{Name: "job.list", Class: "observe", Params: map[string]string{"limit": "integer", "status": "string"}},
		{Name: "job.kill", Class: "control", Params: map[string]string{"id": "string"}},
	}
}

func mustParse(t testing.TB, text string) *Policy {
	t.Helper()
	p, err := Parse("test.yaml", []byte(text), testVerbs())
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func num(s string) json.Number { return json.Number(s) }

// TestEvaluateArrayElements: in, not_in and pattern on an array argument
// (a linter's files) judge each element as if it were the only value, and
// the op gets the most restrictive decision: one element a deny rule
// matches denies, an allow rule admits only when it admits every element,
// an earlier ask for one element does not hide a later deny for another.
func TestEvaluateArrayElements(t *testing.T) {
	verbs := []Verb{{Name: "lint", Class: "observe", Params: map[string]string{"files": "array", "rules": "array", "strict": "boolean"}}}
	p, err := Parse("test.yaml", []byte(`
version: 1
default: deny
rules:
  - name: scratch-asks
    verbs: [lint]
    when: {files: {pattern: "^/srv/scratch/"}}
    decision: ask
  - name: not-prod
    verbs: [lint]
    when: {files: {pattern: "^/srv/prod(/|$)"}}
    decision: deny
    reason: prod is off limits
  - name: no-secret-rule
    verbs: [lint]
    when: {files: {pattern: "^/srv/dev/"}, rules: {in: [secrets]}}
    decision: deny
  - name: few-files
    verbs: [lint]
    when: {files: {pattern: "^/srv/", max_items: 3}}
    decision: allow
  - name: dev-only
    verbs: [lint]
    when: {files: {pattern: "^/srv/dev/"}}
    decision: allow
`), verbs)
	if err != nil {
		t.Fatal(err)
	}
	many := []any{}
	for range 5 {
		many = append(many, "/srv/dev/a")
	}
	for _, tc := range []struct {
		name     string
		args     map[string]any
		decision string
		rule     string
	}{
		{"one element in prod denies", map[string]any{"files": []any{"/srv/dev/a", "/srv/prod/b"}}, Deny, "not-prod"},
		{"prod first or last, the same", map[string]any{"files": []any{"/srv/prod", "/srv/dev/a"}}, Deny, "not-prod"},
		{"an earlier ask does not hide a deny", map[string]any{"files": []any{"/srv/scratch/x", "/srv/prod/b"}}, Deny, "not-prod"},
		{"ask for one element, allow for the rest: ask", map[string]any{"files": []any{"/srv/scratch/x", "/srv/dev/a"}}, Ask, "scratch-asks"},
		{"every element allowed", map[string]any{"files": []any{"/srv/dev/a", "/srv/dev/b"}}, Allow, "few-files"},
		{"max_items sees the whole array", map[string]any{"files": many}, Allow, "dev-only"},
		{"an element no rule admits falls to the default", map[string]any{"files": []any{"/srv/dev/a", "/etc/passwd"}}, Deny, RuleDefault},
		{"two arrays: one combination denies", map[string]any{"files": []any{"/srv/other/a", "/srv/dev/b"}, "rules": []any{"style", "secrets"}}, Deny, "no-secret-rule"},
		{"two arrays: no combination denies", map[string]any{"files": []any{"/srv/dev/b"}, "rules": []any{"style"}}, Allow, "few-files"},
		{"an empty array is absent", map[string]any{"files": []any{}}, Deny, RuleDefault},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d := p.Evaluate("lint", tc.args)
			if d.Decision != tc.decision || d.Rule != tc.rule {
				t.Fatalf("Evaluate(lint, %v) = %+v, want %s by %s", tc.args, d, tc.decision, tc.rule)
			}
		})
	}

	var files, rules []any
	for i := range 100 {
		files = append(files, fmt.Sprintf("/srv/dev/%d", i))
		rules = append(rules, fmt.Sprintf("r%d", i))
	}
	if d := p.Evaluate("lint", map[string]any{"files": files, "rules": rules}); d.Decision != Deny || !strings.Contains(d.Reason, "more than 4096") {
		t.Fatalf("10,000 combinations: %+v; want deny naming the bound", d)
	}
	if d := p.Evaluate("lint", map[string]any{"files": files}); d.Decision != Allow {
		t.Fatalf("100 files in dev: %+v", d)
	}
}

func TestEvaluateRuleKinds(t *testing.T) {
	p := mustParse(t, `
version: 1
default: deny
reason: not in the policy
rules:
  - name: big-fanout
    verbs: [fanout.submit]
    when: {n: {min: 9}}
    decision: deny
    reason: fanouts above 8 are refused
  - name: small-fanout
    verbs: [fanout.submit]
    when: {n: {max: 8}}
    decision: ask
  - name: cheap-models
    verbs: [agent.submit]
    when: {model: {in: [haiku, sonnet]}}
    decision: allow
  - name: not-opus
    verbs: [agent.submit]
    when: {model: {not_in: [opus]}}
    decision: ask
  - name: many-tags
    verbs: [agent.submit]
    when: {tags: {min_items: 3}}
    decision: deny
  - name: kill-test-runs
    verbs: [job.kill]
    when: {id: {pattern: "^test-"}}
    decision: allow
  - name: no-kill
    verbs: [job.kill]
    decision: deny
    reason: kills are the operator's
  - name: reads
    verbs: ["job.*"]
    decision: allow
  - name: listed-limit
    verbs: [job.list]
    when: {limit: {in: [5]}}
    decision: deny
`)
	for _, tc := range []struct {
		name, verb string
		args       map[string]any
		decision   string
		rule       string
	}{
		{"min: above is denied", "fanout.submit", map[string]any{"n": num("9")}, Deny, "big-fanout"},
		{"max: at the bound matches", "fanout.submit", map[string]any{"n": num("8")}, Ask, "small-fanout"},
		{"min and max read float64 too", "fanout.submit", map[string]any{"n": 20.0}, Deny, "big-fanout"},
		{"absent argument matches no condition", "fanout.submit", map[string]any{}, Deny, RuleDefault},
		{"in: listed value", "agent.submit", map[string]any{"model": "haiku"}, Allow, "cheap-models"},
		{"not_in: value not listed", "agent.submit", map[string]any{"model": "gpt"}, Ask, "not-opus"},
		{"not_in: listed value falls through", "agent.submit", map[string]any{"model": "opus"}, Deny, RuleDefault},
		{"synonym evaluates as its verb", "submit_agent", map[string]any{"model": "sonnet"}, Allow, "cheap-models"},
		{"min_items on an array", "agent.submit", map[string]any{"tags": []any{"a", "b", "c"}}, Deny, "many-tags"},
		{"min_items below", "agent.submit", map[string]any{"tags": []any{"a"}}, Deny, RuleDefault},
		{"pattern matches", "job.kill", map[string]any{"id": "test-1"}, Allow, "kill-test-runs"},
		{"pattern misses", "job.kill", map[string]any{"id": "prod-1"}, Deny, "no-kill"},
		{"glob", "job.status", nil, Allow, "reads"},
		{"first match wins", "job.list", map[string]any{"limit": num("5")}, Allow, "reads"},
		{"an earlier exact rule beats a later glob", "job.kill", map[string]any{}, Deny, "no-kill"},
		{"unknown verb is denied", "state.migrate", nil, Deny, RuleDefault},
		{"wrong type does not match", "fanout.submit", map[string]any{"n": "nine"}, Deny, RuleDefault},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d := p.Evaluate(tc.verb, tc.args)
			if d.Decision != tc.decision || d.Rule != tc.rule {
				t.Fatalf("Evaluate(%s, %v) = %+v, want %s by %s", tc.verb, tc.args, d, tc.decision, tc.rule)
			}
		})
	}
	if d := p.Evaluate("fanout.submit", map[string]any{"n": num("9")}); d.Reason != "fanouts above 8 are refused" {
		t.Errorf("reason = %q", d.Reason)
	}
	if d := p.Evaluate("fanout.submit", nil); d.Reason != "not in the policy" {
		t.Errorf("default reason = %q", d.Reason)
	}
}

func TestDefaults(t *testing.T) {
	p := mustParse(t, "version: 1\n")
	if d := p.Evaluate("job.status", nil); d.Decision != Deny || d.Rule != RuleDefault {
		t.Errorf("no default: %+v, want deny", d)
	}
	p = mustParse(t, "version: 1\ndefault: allow\n")
	if d := p.Evaluate("job.status", nil); d.Decision != Allow {
		t.Errorf("default allow: %+v", d)
	}
	if d := p.Evaluate("no.such", nil); d.Decision != Deny {
		t.Errorf("an unknown verb under default allow: %+v, want deny", d)
	}
	p = mustParse(t, "version: 1\nlimits: {runs_per_minute: 30, live_runs: 8}\n")
	if p.Limits != (Limits{RunsPerMinute: 30, LiveRuns: 8}) {
		t.Errorf("limits = %+v", p.Limits)
	}
}

func TestLoadErrors(t *testing.T) {
	for _, tc := range []struct {
		name, text, want string
	}{
		{"unknown top-level key", "version: 1\ndefualt: allow\n", "test.yaml:2: key defualt not found at the top level"},
		{"unknown rule key", "version: 1\nrules:\n  - verbs: [job.status]\n    decison: allow\n", "test.yaml:4: key decison not found in a rule"},
		{"unknown condition key", "version: 1\nrules:\n  - verbs: [job.list]\n    when: {limit: {maximum: 3}}\n    decision: allow\n", "key maximum not found in a condition"},
		{"version", "version: 2\n", "test.yaml:1: version: must be 1, got 2"},
		{"missing version", "default: allow\n", "version: must be 1, got 0"},
		{"default", "version: 1\ndefault: maybe\n", `test.yaml:2: default: "maybe" is not allow, ask or deny`},
		{"decision", "version: 1\nrules:\n  - verbs: [job.list]\n    decision: yes\n", `test.yaml:3: rule rules[0]: decision: "yes" is not allow, ask or deny`},
		{"no verbs", "version: 1\nrules:\n  - name: r\n    decision: allow\n", "test.yaml:3: rule r: verbs: required"},
		{"unknown verb", "version: 1\nrules:\n  - verbs: [job.lsit]\n    decision: allow\n", `test.yaml:3: rule rules[0]: verbs: "job.lsit" matches no verb of this surface`},
		{"glob matching nothing", "version: 1\nrules:\n  - verbs: [\"team.*\"]\n    decision: allow\n", `"team.*" matches no verb`},
		{"bad glob", "version: 1\nrules:\n  - verbs: [\"job.[\"]\n    decision: allow\n", "is not a valid glob"},
		{"unknown parameter", "version: 1\nrules:\n  - verbs: [job.list]\n    when: {limt: {max: 3}}\n    decision: allow\n", `rule rules[0]: when: limt: verb job.list has no parameter "limt"`},
		{"parameter missing from one glob match", "version: 1\nrules:\n  - verbs: [\"*.submit\"]\n    when: {n: {max: 3}}\n    decision: allow\n", `verb agent.submit has no parameter "n"`},
		{"min on a string", "version: 1\nrules:\n  - verbs: [agent.submit]\n    when: {model: {min: 3}}\n    decision: allow\n", "min and max test numbers"},
		{"min_items on a number", "version: 1\nrules:\n  - verbs: [fanout.submit]\n    when: {n: {min_items: 3}}\n    decision: allow\n", "min_items and max_items test arrays"},
		{"max_items on a string", "version: 1\nrules:\n  - verbs: [agent.submit]\n    when: {model: {max_items: 3}}\n    decision: allow\n", "min_items and max_items test arrays"},
		{"empty condition", "version: 1\nrules:\n  - verbs: [agent.submit]\n    when: {model: {}}\n    decision: allow\n", "no condition given"},
		{"bad pattern", "version: 1\nrules:\n  - verbs: [job.kill]\n    when: {id: {pattern: \"(\"}}\n    decision: allow\n", "pattern: error parsing regexp"},
		{"negative limit", "version: 1\nlimits: {live_runs: -1}\n", "test.yaml:2: limits: runs_per_minute and live_runs must not be negative"},
		{"two documents", "version: 1\n---\nversion: 1\n", "more than one YAML document"},
		{"malformed", "version: [1\n", "test.yaml:"},
		{"second rule line", "version: 1\nrules:\n  - verbs: [job.list]\n    decision: allow\n  - verbs: [nope]\n    decision: deny\n", "test.yaml:5:"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Parse("test.yaml", []byte(tc.text), testVerbs())
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("Parse = %v, want an error containing %q", err, tc.want)
			}
			if !strings.HasPrefix(err.Error(), "policy: test.yaml") {
				t.Errorf("error %q does not name the file", err)
			}
		})
	}
}

func TestLoadFile(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "p.yaml")
	if err := os.WriteFile(path, []byte("version: 1\nrules:\n  - verbs: [job.status]\n    decision: allow\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	p, err := Load(path, testVerbs())
	if err != nil {
		t.Fatal(err)
	}
	if p.File != path || p.Evaluate("job.status", nil).Decision != Allow {
		t.Fatalf("loaded %+v", p)
	}
	if _, err := Load(filepath.Join(dir, "missing.yaml"), testVerbs()); err == nil || !strings.Contains(err.Error(), "missing.yaml") {
		t.Fatalf("missing file: %v", err)
	}
	big := filepath.Join(dir, "big.yaml")
	if err := os.WriteFile(big, []byte("version: 1\n#"+strings.Repeat("x", MaxFileBytes)+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := Load(big, testVerbs()); err == nil || !strings.Contains(err.Error(), "larger than") {
		t.Fatalf("big file: %v", err)
	}
}

// TestEvaluationProperties: for random policies that load and random ops,
// evaluation is deterministic (the same op twice, and on a second load of
// the same text, decides the same), always yields a valid decision, and
// never matches a name the surface does not have by a rule.
func TestEvaluationProperties(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	patterns := []string{"job.*", "*.submit", "agent.submit", "submit_agent", "job.kill", "*", "fanout.*", "job.?ist", "nope.*", "ghost"}
	conds := []string{"", "when: {n: {min: 3}}", "when: {model: {in: [a, b]}}", "when: {limit: {max: 10}}", "when: {id: {pattern: \"^x\"}}"}
	decisions := []string{Allow, Ask, Deny}
	names := []string{"agent.submit", "submit_agent", "fanout.submit", "job.status", "job.list", "job.kill", "ghost", "job.lost", "", "JOB.STATUS", "job.*"}
	loaded := 0
	for i := 0; i < 3000; i++ {
		var b strings.Builder
		fmt.Fprintf(&b, "version: 1\ndefault: %s\nrules:\n", decisions[rng.IntN(3)])
		for r := rng.IntN(6); r >= 0; r-- {
			fmt.Fprintf(&b, "  - verbs: [%q]\n    decision: %s\n", patterns[rng.IntN(len(patterns))], decisions[rng.IntN(3)])
			if c := conds[rng.IntN(len(conds))]; c != "" {
				fmt.Fprintf(&b, "    %s\n", c)
			}
		}
		text := b.String()
		p1, err := Parse("p.yaml", []byte(text), testVerbs())
		if err != nil {
			continue
		}
		loaded++
		p2, _ := Parse("p.yaml", []byte(text), testVerbs())
		for j := 0; j < 20; j++ {
			name := names[rng.IntN(len(names))]
			args := map[string]any{"n": json.Number(fmt.Sprint(rng.IntN(6))), "model": []string{"a", "c"}[rng.IntN(2)],
				"limit": float64(rng.IntN(20)), "id": []string{"x1", "y1"}[rng.IntN(2)]}
			d1, d2, d3 := p1.Evaluate(name, args), p1.Evaluate(name, args), p2.Evaluate(name, args)
			if d1 != d2 || d1 != d3 {
				t.Fatalf("policy\n%s\nnot deterministic on %s: %+v %+v %+v", text, name, d1, d2, d3)
			}
			if !validDecision(d1.Decision) {
				t.Fatalf("invalid decision %+v", d1)
			}
			if _, known := p1.Canonical(name); !known && (d1.Decision != Deny || d1.Rule != RuleDefault) {
				t.Fatalf("policy\n%s\nmatched unknown verb %q: %+v", text, name, d1)
			}
		}
	}
	if loaded < 150 {
		t.Fatalf("only %d of 3000 random policies loaded; the property was barely exercised", loaded)
	}
}

func TestMost(t *testing.T) {
	for _, tc := range [][3]string{{Allow, Allow, Allow}, {Allow, Ask, Ask}, {Ask, Allow, Ask}, {Ask, Deny, Deny}, {Deny, Allow, Deny}, {Allow, "bogus", "bogus"}} {
		if got := Most(tc[0], tc[1]); got != tc[2] {
			t.Errorf("Most(%s, %s) = %s, want %s", tc[0], tc[1], got, tc[2])
		}
	}
}

// fiftyRules is a 50-rule policy whose matching rule for agent.submit is
// the last one, so evaluation walks every rule that names the verb.
func fiftyRules() string {
	var b strings.Builder
	b.WriteString("version: 1\ndefault: deny\nrules:\n")
	for i := 0; i < 49; i++ {
		switch i % 3 {
		case 0:
			fmt.Fprintf(&b, "  - verbs: [\"*.submit\"]\n    when: {model: {in: [m%d, n%d]}}\n    decision: deny\n", i, i)
		case 1:
			fmt.Fprintf(&b, "  - verbs: [agent.submit]\n    when: {model: {pattern: \"^z%d\"}}\n    decision: ask\n", i)
		default:
			fmt.Fprintf(&b, "  - verbs: [job.list]\n    when: {limit: {min: %d}}\n    decision: allow\n", 1000+i)
		}
	}
	b.WriteString("  - verbs: [agent.submit]\n    decision: ask\n")
	return b.String()
}

// BenchmarkEvaluate50Rules: one op against a 50-rule file, worst case (the
// matching rule is the file's last).
func BenchmarkEvaluate50Rules(b *testing.B) {
	p := mustParse(b, fiftyRules())
	args := map[string]any{"model": "sonnet", "prompt": "hello", "tags": []any{"a"}}
	if d := p.Evaluate("agent.submit", args); d.Decision != Ask || d.Rule != "rules[49]" {
		b.Fatalf("benchmark policy decided %+v", d)
	}
	b.ReportAllocs()
	for b.Loop() {
		p.Evaluate("agent.submit", args)
	}
}

func TestReadOnly(t *testing.T) {
	p := ReadOnly(testVerbs())
	for verb, want := range map[string]string{"job.status": Allow, "job.list": Allow, "agent.submit": Deny, "submit_agent": Deny, "job.kill": Deny, "ghost": Deny} {
		if d := p.Evaluate(verb, nil); d.Decision != want {
			t.Errorf("%s: %+v, want %s", verb, d, want)
		}
	}
}

// TestPatternPrefix: the literal-prefix shortcut never rejects a value the
// regexp matches.
func TestPatternPrefix(t *testing.T) {
	for _, tc := range []struct {
		pattern, value string
		want           bool
	}{
		{"^test-", "test-1", true}, {"^test-", "prod-test-1", false}, {"test-", "prod-test-1", true},
		{"(?i)^TEST", "test", true}, {"a|b", "b", true}, {"x.*y", "xzzy", true}, {"x.*y", "yx", false}, {"", "anything", true},
	} {
		p := mustParse(t, fmt.Sprintf("version: 1\nrules:\n  - verbs: [job.kill]\n    when: {id: {pattern: %q}}\n    decision: allow\n", tc.pattern))
		if got := p.Evaluate("job.kill", map[string]any{"id": tc.value}).Decision == Allow; got != tc.want {
			t.Errorf("pattern %q on %q: matched %v, want %v", tc.pattern, tc.value, got, tc.want)
		}
	}
}
