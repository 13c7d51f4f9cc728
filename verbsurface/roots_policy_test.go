//go:build unix

package verbsurface

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"

	"github.com/verbsurface/verbsurface/policy"
)

// policyRoot is a root with prod and dev directories, files, and symlinks
// (relative and absolute) into prod.
func policyRoot(t *testing.T) string {
	t.Helper()
	root := t.TempDir()
	root, _ = filepath.EvalSymlinks(root)
	for _, d := range []string{"prod", "dev"} {
		if err := os.Mkdir(filepath.Join(root, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for _, f := range []string{"prod/secret.txt", "dev/a.txt", "dev/b.txt"} {
		if err := os.WriteFile(filepath.Join(root, f), []byte(f), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	for link, target := range map[string]string{
		"to-prod": "prod", "to-prod-abs": filepath.Join(root, "prod"), "dev/up-prod": "../prod",
		"to-secret": "prod/secret.txt", "current": "dev/a.txt",
	} {
		if err := os.Symlink(target, filepath.Join(root, link)); err != nil {
			t.Fatal(err)
		}
	}
	return root
}

// decidedSurface is the roots surface with a policy file enforced.
func decidedSurface(t *testing.T, root, file string, opts Options) *Surface {
	t.Helper()
	verbs := rootsSurface(t, []string{root}, nil).PolicyVerbs(context.Background())
	p, err := policy.Parse("policy.yaml", []byte(file), verbs)
	if err != nil {
		t.Fatal(err)
	}
	opts.Roots, opts.Decide = []string{root}, p
	return rootsSurfaceOpts(t, nil, &opts)
}

// TestPolicySeesRealPaths: a deny rule on a path parameter cannot be
// bypassed by spelling the path another way: "/./", "/../", a doubled
// slash, a relative or absolute symlink all reach the rule as the real
// path, as do Options.Policy and the audit hook; a path the rule does not
// name runs, with its real path.
func TestPolicySeesRealPaths(t *testing.T) {
	root := policyRoot(t)
	var mu sync.Mutex
	var policySaw, auditSaw []any
	s := decidedSurface(t, root, `version: 1
default: allow
rules:
  - name: not-prod
    verbs: [file.read]
    when: {dir: {pattern: "^`+regexp.QuoteMeta(root)+`/prod(/|$)"}}
    decision: deny
    reason: prod is off limits
`, Options{
		Policy: func(_ context.Context, op PolicyOp) error {
			mu.Lock()
			defer mu.Unlock()
			policySaw = append(policySaw, op.Args["dir"])
			return nil
		},
		OnOp: func(_ context.Context, rec *OpRecord) {
			mu.Lock()
			defer mu.Unlock()
			auditSaw = append(auditSaw, rec.Args["dir"])
		},
	})
	prod := filepath.Join(root, "prod")
	for _, given := range []string{
		prod,
		root + "/./prod",
		root + "/dev/../prod",
		root + "//prod",
		prod + "/.",
		filepath.Join(root, "to-prod"),
		filepath.Join(root, "to-prod-abs"),
		filepath.Join(root, "dev", "up-prod"),
	} {
		t.Run(strings.TrimPrefix(given, root), func(t *testing.T) {
			policySaw, auditSaw = nil, nil
			b, _ := json.Marshal(map[string]any{"ops": []any{map[string]any{"op": "file.read", "args": map[string]any{"dir": given}}}})
			r := s.Handle(context.Background(), b, nil).Results[0]
			if r.OK || r.Error.Code != CodePolicyRefused || r.Error.Rule != "not-prod" {
				t.Fatalf("dir %s: %s; want policy_refused by not-prod", given, mustJSON(t, r))
			}
			if len(policySaw) != 1 || policySaw[0] != prod || len(auditSaw) != 1 || auditSaw[0] != prod {
				t.Fatalf("Options.Policy saw %v and the audit %v; want the real path %s", policySaw, auditSaw, prod)
			}
		})
	}
	got := readOp(t, s, map[string]any{"dir": root + "/prod/../dev"})
	if !got.ok || got.args["dir"] != filepath.Join(root, "dev") {
		t.Fatalf("a directory the rule does not name: %+v", got)
	}
}

// TestConfirmationBindsRealPaths: an ask about a path argument shows the
// person the real path, and the confirmation binds it: the same answer
// runs the op while the path still resolves there, and once the symlink
// points elsewhere the retry does not run (confirmation invalid).
func TestConfirmationBindsRealPaths(t *testing.T) {
	root := policyRoot(t)
	s := decidedSurface(t, root, `version: 1
default: allow
rules:
  - name: reads-need-my-ok
    verbs: [file.read]
    when: {file: {pattern: "^/"}}
    decision: ask
`, Options{})
	ctx := context.Background()
	req, _ := json.Marshal(map[string]any{"ops": []any{map[string]any{"op": "file.read", "args": map[string]any{"file": filepath.Join(root, "current")}}}})
	asks := s.Confirmations(ctx, req)
	a := filepath.Join(root, "dev", "a.txt")
	if len(asks) != 1 || asks[0].Args["file"] != a {
		t.Fatalf("asks %+v; want one, about the real path %s", asks, a)
	}
	if msg := ConfirmMessage(asks); !strings.Contains(msg, "  file: "+a) {
		t.Fatalf("the question does not show the real path:\n%s", msg)
	}
	accepted := withAnswers(ctx, map[int]answer{0: {verb: asks[0].Verb, digest: asks[0].ArgsDigest, rule: asks[0].Rule, answer: AnswerAccept}})
	r := s.Handle(accepted, req, nil).Results[0]
	if !r.OK || !strings.Contains(string(r.Result), `"content":"dev/a.txt"`) {
		t.Fatalf("accepted: %s", mustJSON(t, r))
	}

	if err := os.Remove(filepath.Join(root, "current")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("dev/b.txt", filepath.Join(root, "current")); err != nil {
		t.Fatal(err)
	}
	r = s.Handle(accepted, req, nil).Results[0]
	if r.OK || r.Error.Code != CodePolicyRefused || r.Error.Confirmation != AnswerInvalid {
		t.Fatalf("the symlink re-pointed after the answer: %s; want policy_refused, confirmation invalid", mustJSON(t, r))
	}
}
