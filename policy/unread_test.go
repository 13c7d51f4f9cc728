package policy

import (
	"strings"
	"testing"
)

// TestParseUnreadVerb: a verb whose parameters are not known yet
// (Verb.Unread) accepts conditions on any parameter, of any kind; the
// same rule on the verb once read fails as it always did; and the verb's
// name is still checked.
func TestParseUnreadVerb(t *testing.T) {
	const rule = "version: 1\nrules:\n  - verbs: [pkg.install]\n    when: {%s}\n    decision: deny\n"
	unread := []Verb{{Name: "pkg.install", Class: "control", Unread: true}}
	read := []Verb{{Name: "pkg.install", Class: "control", Params: map[string]string{"name": "string"}}}
	for _, when := range []string{
		"force: {in: [true]}",
		"name: {min: 3}",
		"name: {max_items: 2}",
	} {
		text := strings.Replace(rule, "%s", when, 1)
		if _, err := Parse("test.yaml", []byte(text), unread); err != nil {
			t.Errorf("Unread verb, when {%s}: %v", when, err)
		}
		if _, err := Parse("test.yaml", []byte(text), read); err == nil {
			t.Errorf("read verb, when {%s}: parsed, want an error", when)
		}
	}
	if _, err := Parse("test.yaml", []byte("version: 1\nrules:\n  - verbs: [pkg.instal]\n    decision: deny\n"), unread); err == nil ||
		!strings.Contains(err.Error(), `"pkg.instal" matches no verb`) {
		t.Errorf("a misspelt Unread verb: %v, want matches no verb", err)
	}
}

// TestEvaluateUnreadVerbArray: a pattern on an Unread verb's parameter
// judges an array argument element by element (it may be an array once
// read), and a scalar whole.
func TestEvaluateUnreadVerbArray(t *testing.T) {
	p, err := Parse("test.yaml", []byte(`
version: 1
default: allow
rules:
  - verbs: [lint]
    when: {files: {pattern: "^/srv/prod/"}}
    decision: deny
`), []Verb{{Name: "lint", Class: "observe", Unread: true}})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		files any
		want  string
	}{
		{[]any{"/tmp/a", "/srv/prod/b"}, Deny},
		{[]any{"/tmp/a"}, Allow},
		{"/srv/prod/c", Deny},
		{"/tmp/c", Allow},
	} {
		if got := p.Evaluate("lint", map[string]any{"files": tc.files}).Decision; got != tc.want {
			t.Errorf("files %v: %s, want %s", tc.files, got, tc.want)
		}
	}
}
