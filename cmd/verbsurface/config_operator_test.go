//go:build unix

package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestOperatorKeys: constraints:, fixed: and positionals: load as written
// and refuse what cannot mean anything, naming the file, line and field.
func TestOperatorKeys(t *testing.T) {
	dir := t.TempDir()
	base := "name: req\ncommand: [req]\nsource: {tree_file: tree.json}\n"
	load := func(body string) (*Config, error) {
		p := filepath.Join(dir, "front.yaml")
		if err := os.WriteFile(p, []byte(base+body), 0o644); err != nil {
			t.Fatal(err)
		}
		return LoadConfig(p)
	}
	c, err := load(`verbs:
  - name: get
    path: []
    class: observe
    fixed: {method: GET, -v: true, --header: [a, b], count: 3}
    constraints:
      url: {pattern: '^https://', no_dash: true}
      format: {enum: [json, 1, true]}
    positionals: [{name: method, arity: optional}, {name: url}, {name: rest, arity: exactly, n: 2, kind: integer}]
    files: ["special-opts:files:write"]
`)
	if err != nil {
		t.Fatalf("a good configuration: %v", err)
	}
	v := c.Verbs[0]
	if len(v.Fixed) != 4 || v.Constraints["url"].Pattern != "^https://" || !v.Constraints["url"].NoDash || len(v.Positionals) != 3 {
		t.Errorf("decoded: %+v", v.VerbOperatorConfig)
	}
	if name, use, err := fileParam(v.Files[0]); err != nil || name != "special-opts:files" || use != "write" {
		t.Errorf("a files: name with a colon: %q %q %v", name, use, err)
	}
	verb := "verbs:\n  - name: a\n    path: []\n    class: observe\n"
	for _, tc := range []struct{ name, body, want string }{
		{"a pattern that does not compile", verb + "    constraints: {url: {pattern: '('}}\n", `front.yaml:8: verbs[0].constraints: url: pattern "(":`},
		{"a constraint that says nothing", verb + "    constraints: {url: {}}\n", "verbs[0].constraints: url: says nothing"},
		{"an unknown constraint key", verb + "    constraints: {url: {regex: x}}\n", "regex: unknown key"},
		{"an enum value that is a list", verb + "    constraints: {url: {enum: [[a]]}}\n", "enum value [a] is not a string, number or boolean"},
		{"a fixed value that is a map", verb + "    fixed: {url: {a: b}}\n", "verbs[0].fixed: url: map[a:b] is not a string"},
		{"a positional without a name", verb + "    positionals: [{arity: one}]\n", "verbs[0].positionals: [0]: name: required"},
		{"a positional stated twice", verb + "    positionals: [{name: a}, {name: a}]\n", `[1]: "a" is stated twice`},
		{"an unknown arity", verb + "    positionals: [{name: a, arity: many}]\n", `arity "many" is not one, optional`},
		{"n without exactly", verb + "    positionals: [{name: a, n: 2}]\n", "n goes with arity exactly"},
		{"exactly without n", verb + "    positionals: [{name: a, arity: exactly}]\n", "arity exactly needs n"},
		{"an unknown kind", verb + "    positionals: [{name: a, kind: path}]\n", `kind "path" is not string, integer or number`},
		{"a files: name with a colon and no use", verb + "    files: [special-opts:files]\n", "spelled out: special-opts:files:read"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := load(tc.body)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %v; want %q", err, tc.want)
			}
		})
	}
}

// TestOperatorKeysCheck: a constraints: or fixed: name the command lacks
// is a mistake check names by file, line and field; a fixed value the
// parameter does not admit makes the verb unavailable, saying why.
func TestOperatorKeysCheck(t *testing.T) {
	dir := copyTestdata(t, "req", "req.py", "req.yaml")
	good, err := os.ReadFile(filepath.Join(dir, "req.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ name, old, new, want string }{
		{"a misspelt constraint name", "      url: {pattern: '^https://', no_dash: true}", "      ulr: {pattern: '^https://', no_dash: true}",
			`edited.yaml:13: verbs[0].constraints: "ulr" names no parameter of req (the root command) a caller could set`},
		{"a misspelt fixed name", "fixed: {method: DELETE}", "fixed: {methd: DELETE}", `verbs[1].fixed: "methd" names no parameter`},
		{"a fixed value outside the choices", "fixed: {method: DELETE}", "fixed: {method: PUT}", `fixed value for "method": value PUT is not one of the choices`},
		{"a fixed later positional before an earlier one", "fixed: {method: DELETE}", "fixed: {url: 'https://x'}",
			"positionals \"method\" (nargs=?) and \"items\" (nargs=*) both take a variable number of values"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if !strings.Contains(string(good), tc.old) {
				t.Fatalf("%q not in the fixture", tc.old)
			}
			p := filepath.Join(dir, "edited.yaml")
			if err := os.WriteFile(p, []byte(strings.Replace(string(good), tc.old, tc.new, 1)), 0o644); err != nil {
				t.Fatal(err)
			}
			stdout, _, status := runVS(t, "check", "-c", p)
			if status != 1 || !strings.Contains(stdout, tc.want) {
				t.Fatalf("check: status %d, want %q in\n%s", status, tc.want, stdout)
			}
		})
	}
}
