//go:build unix

package verbsurface

import (
	"context"
	"encoding/json"
	"path/filepath"
	"regexp"
	"testing"
)

// TestDryRunJudgesRealPaths: a dry run confines path arguments as the
// real op does: a symlink into a denied directory is refused by the same
// rule, and an allowed one is shown as the real path it resolves to.
func TestDryRunJudgesRealPaths(t *testing.T) {
	root := policyRoot(t)
	s := decidedSurface(t, root, `version: 1
default: allow
rules:
  - name: not-prod
    verbs: [file.read]
    when: {dir: {pattern: "^`+regexp.QuoteMeta(root)+`/prod(/|$)"}}
    decision: deny
`, Options{})
	run := func(dir string, dry bool) *OpResult {
		b, _ := json.Marshal(map[string]any{"ops": []any{map[string]any{"op": "file.read", "args": map[string]any{"dir": dir}, "dry_run": dry}}})
		return s.Handle(context.Background(), b, nil).Results[0]
	}
	link := filepath.Join(root, "to-prod")
	if r := run(link, true); r.OK || r.Error.Code != CodePolicyRefused || r.Error.Rule != "not-prod" {
		t.Fatalf("dry run through a symlink into prod: %s", mustJSON(t, r))
	}
	r := run(root+"/prod/../dev", true)
	var plan DryRun
	if !r.OK || json.Unmarshal(r.Result, &plan) != nil || plan.Args["dir"] != filepath.Join(root, "dev") {
		t.Fatalf("dry run of an allowed directory: %s", mustJSON(t, r))
	}
}
