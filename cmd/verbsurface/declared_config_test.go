//go:build unix

package main

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/verbsurface/verbsurface/projector"
	"github.com/verbsurface/verbsurface/verbsurface"
)

// declaredBase is a front for a program declared by hand; each test adds
// its source.declared.
const declaredBase = "name: prog\ncommand: [/bin/echo]\noutput: text\nverbs:\n  - {name: run, path: [run], class: observe}\nsource:\n  declared:\n"

func loadDeclared(t *testing.T, body string) (*Config, error) {
	t.Helper()
	p := filepath.Join(t.TempDir(), "front.yaml")
	if err := os.WriteFile(p, []byte(declaredBase+body), 0o644); err != nil {
		t.Fatal(err)
	}
	return LoadConfig(p)
}

// TestDeclaredLoads: a declaration loads into projector's model, with the
// rendering as written and the constraints projector.Declare adds.
func TestDeclaredLoads(t *testing.T) {
	c, err := loadDeclared(t, `    values: separate
    separator: false
    commands:
      - path: [run]
        summary: run it
        options:
          - {name: level, flags: [-l, --level], type: integer, maximum: 3, default: 1}
          - {name: verbose, flags: [-v], type: boolean}
          - {name: tag, flags: [--tag], arity: repeated, choices: [a, b]}
        positionals:
          - {name: input, path: read}
          - {name: rest, arity: zero_or_more, pattern: '^[a-z]+$'}
        exclusive: [[level, verbose]]
`)
	if err != nil {
		t.Fatal(err)
	}
	tr := c.declared
	cmd := tr.Find("run")
	if tr.Dialect != projector.DialectDeclared || cmd == nil || *cmd.Rendering != (projector.Rendering{Values: projector.ValuesSeparate, NoSeparator: true}) {
		t.Fatalf("tree %+v, command %+v", tr, cmd)
	}
	p := map[string]*projector.Param{}
	for _, x := range cmd.Params {
		p[x.Name] = x
	}
	if p["level"].Kind != projector.KindInteger || *p["level"].Minimum != 0 || p["verbose"].Arity != projector.ArityNone ||
		p["input"].Pattern != projector.DeclaredValuePattern || p["input"].Path != projector.PathUseRead || !p["input"].Required ||
		p["rest"].Pattern != "^[a-z]+$" {
		t.Errorf("params: level %+v verbose %+v input %+v rest %+v", p["level"], p["verbose"], p["input"], p["rest"])
	}
	argv, err := projector.RenderArgv(tr.Dialect, cmd, map[string]any{"level": 2, "verbose": true, "tag": []any{"a"}, "input": "f", "rest": []any{"x"}})
	if err == nil || !strings.Contains(err.Error(), "mutually exclusive") {
		t.Errorf("level and verbose are exclusive: %q %v", argv, err)
	}
	argv, err = projector.RenderArgv(tr.Dialect, cmd, map[string]any{"level": 2, "tag": []any{"a"}, "input": "f", "rest": []any{"x"}})
	if want := "--level 2 --tag a f x"; err != nil || strings.Join(argv, " ") != want {
		t.Errorf("rendered %q %v, want %q", argv, err, want)
	}
}

// TestDeclaredRefusedAtLoad: whatever the declaration gets wrong stops the
// load, naming the file, the line and the field; above all a positional
// that could be read as an option where no "--" protects it.
func TestDeclaredRefusedAtLoad(t *testing.T) {
	for _, tc := range []struct{ name, body, want string }{
		{"an unknown key", "    commands:\n      - path: [run]\n        options:\n          - {name: a, flags: [-a], typo: x}\n",
			"front.yaml:11: typo: unknown key"},
		{"no commands", "    values: equals\n", "front.yaml:7: source.declared.commands: required"},
		{"an unknown spelling", "    values: glued\n    commands:\n      - path: [run]\n", `front.yaml:8: source.declared.values: "glued" is not equals`},
		{"a command without a path", "    commands:\n      - summary: x\n", "front.yaml:9: source.declared.commands[0]: path: required"},
		{"a one-letter option glued by =", "    commands:\n      - path: [run]\n        options:\n          - {name: a, flags: [-a]}\n", "getopt reads"},
		{"an option without flags", "    commands:\n      - path: [run]\n        options:\n          - {name: a}\n", "front.yaml:9: source.declared.commands[0]: options[0] (a): flags: required"},
		{"a positional with flags", "    commands:\n      - path: [run]\n        positionals:\n          - {name: a, flags: [-a]}\n", "a positional has no flags"},
		{"an unknown type", "    commands:\n      - path: [run]\n        positionals:\n          - {name: a, type: date}\n", `type "date" is not string`},
		{"an unknown path use", "    commands:\n      - path: [run]\n        positionals:\n          - {name: a, path: exec}\n", `path "exec" is not read`},
		{"a help that is not an option", "    help: [help]\n    commands:\n      - path: [run]\n", `source.declared.help: "help" is not an option`},
		{"no separator and a pattern that admits a dash", "    separator: false\n    commands:\n      - path: [run]\n        positionals:\n          - {name: a, pattern: '^.*$'}\n",
			`front.yaml:10: source.declared.commands[0]: command "run": parameter "a": pattern "^.*$": its first character may be "-"`},
		{"no separator and an unanchored pattern", "    separator: false\n    commands:\n      - path: [run]\n        positionals:\n          - {name: a, pattern: '[a-z]+'}\n",
			`does not start with "^"`},
		{"no separator and a dashed choice", "    separator: false\n    commands:\n      - path: [run]\n        positionals:\n          - {name: a, choices: [-x, y]}\n",
			`choice "-x" starts with "-"`},
		{"separate values and a negative minimum", "    values: separate\n    commands:\n      - path: [run]\n        options:\n          - {name: n, flags: [-n], type: number, minimum: -5}\n",
			"minimum -5 admits negative numbers"},
		{"a default outside the choices", "    commands:\n      - path: [run]\n        options:\n          - {name: a, flags: [--a], choices: [x], default: y}\n", "default y"},
		{"an exclusive set naming no parameter", "    commands:\n      - path: [run]\n        exclusive: [[a, b]]\n", `names unknown parameter "a"`},
		{"a path declared twice", "    commands:\n      - path: [run]\n      - path: [run]\n", `front.yaml:8: source.declared.commands: command "run": declared twice`},
		{"two sources", "    commands:\n      - path: [run]\n  tree_file: t.json\n", "give exactly one of argparse, click, tree_command, tree_file, cobra, optparse, clap, declared (2 given)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := loadDeclared(t, tc.body)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("got %v, want %q", err, tc.want)
			}
		})
	}
}

// TestOutputStreamKey: output_stream loads and refuses what cannot mean
// anything.
func TestOutputStreamKey(t *testing.T) {
	base := "name: lint\ncommand: [lint]\nsource: {tree_file: tree.json}\n"
	for _, tc := range []struct{ name, body, want string }{
		{"stderr at the top", "output: json\noutput_stream: stderr\nverbs:\n  - {name: a, path: [a], class: observe}\n", ""},
		{"stderr on a verb with its output", "verbs:\n  - {name: a, path: [a], class: observe, output: json, output_stream: stderr}\n", ""},
		{"stderr under the envelope", "output_stream: stderr\nverbs:\n  - {name: a, path: [a], class: observe}\n", "front.yaml:4: output_stream: stderr applies to output json, jsonl and text"},
		{"an unknown stream", "output: json\noutput_stream: stdin\nverbs:\n  - {name: a, path: [a], class: observe}\n", `front.yaml:5: output_stream: "stdin" is not stdout or stderr`},
		{"a verb's stream without its output", "output: json\nverbs:\n  - name: a\n    path: [a]\n    class: observe\n    output_stream: stderr\n", "verbs[0].output_stream: a verb's output_stream goes with its own output"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := filepath.Join(t.TempDir(), "front.yaml")
			if err := os.WriteFile(p, []byte(base+tc.body), 0o644); err != nil {
				t.Fatal(err)
			}
			c, err := LoadConfig(p)
			switch {
			case tc.want == "" && err != nil:
				t.Fatal(err)
			case tc.want == "":
				if k := c.runnerKeyOf(0); k.stream != "stderr" {
					t.Errorf("runner key %+v", k)
				}
			case err == nil || !strings.Contains(err.Error(), tc.want):
				t.Fatalf("got %v, want %q", err, tc.want)
			}
		})
	}
}

// TestCheckComparesDeclaredWithHelp: check runs the program's help for
// each declared command a verb offers and warns about every option whose
// flags it does not show (not about one marked unlisted), and about a
// help it cannot read; the program here is a script printing a help text.
func TestCheckComparesDeclaredWithHelp(t *testing.T) {
	dir := t.TempDir()
	prog := filepath.Join(dir, "prog")
	script := "#!/bin/sh\nif [ \"$1 $2\" = 'run --help' ]; then printf 'usage: prog run [-l LEVEL] [--color] FILE\\n  -l, --level=N   how loud\\n  --color  colours\\n'; exit 2; fi\nexit 1\n"
	if err := os.WriteFile(prog, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	config := filepath.Join(dir, "front.yaml")
	body := `name: prog
command: [./prog]
output: text
source:
  declared:
    commands:
      - path: [run]
        options:
          - {name: level, flags: [-l, --level], type: integer}
          - {name: col, flags: [-c], type: boolean}
          - {name: quiet, flags: [-q], type: boolean, unlisted: true}
      - path: [other]
verbs:
  - {name: run, path: [run], class: observe}
  - {name: other, path: [other], class: observe}
`
	if err := os.WriteFile(config, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	stdout, stderr, status := runVS(t, "check", "-c", config)
	want := []string{
		config + ":7: source.declared.commands[0] (run): warning: option -c (col) is not in the output of `./prog run --help`",
		config + ":12: source.declared.commands[1] (other): warning: could not read the program's help to compare the declaration with",
		": ok: 2 verbs offered, 2 warnings\n",
	}
	for _, w := range want {
		if status != 0 || !strings.Contains(stdout, w) {
			t.Errorf("check: status %d, want %q in\n%s%s", status, w, stdout, stderr)
		}
	}
	if strings.Contains(stdout, "(level)") || strings.Contains(stdout, "(quiet)") {
		t.Errorf("check warned about a listed or unlisted: option:\n%s", stdout)
	}
}

// TestDeclaredVerbThroughTheSurface: a declared verb gets the gates a read
// one does — closed validation, a fingerprint when the verb asks for one,
// one that changes with the declaration, the operator's policy on its
// arguments — and runs the argv its rendering says, here shown by
// /bin/echo, a real program that prints its argv.
func TestDeclaredVerbThroughTheSurface(t *testing.T) {
	dir := t.TempDir()
	write := func(choices string) *front {
		body := `name: echo
command: [/bin/echo]
output: text
source:
  declared:
    values: separate
    separator: false
    help: []
    commands:
      - path: []
        options:
          - {name: mode, flags: [--mode], choices: ` + choices + `}
        positionals:
          - {name: words, arity: one_or_more}
verbs:
  - {name: say, path: [], class: control, fingerprint: true}
policy: policy.yaml
`
		p := filepath.Join(dir, "front.yaml")
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		cfg, err := LoadConfig(p)
		if err != nil {
			t.Fatal(err)
		}
		f, err := newFront(cfg)
		if err != nil {
			t.Fatal(err)
		}
		return f
	}
	policy := "version: 1\ndefault: allow\nrules:\n  - {name: no-b, verbs: [say], when: {mode: {in: [b]}}, decision: deny, reason: mode b needs a person}\n"
	if err := os.WriteFile(filepath.Join(dir, "policy.yaml"), []byte(policy), 0o600); err != nil {
		t.Fatal(err)
	}
	handle := func(f *front, req string) map[string]any {
		var out map[string]any
		if err := json.Unmarshal(f.surface.Handle(context.Background(), json.RawMessage(req), nil).JSON(), &out); err != nil {
			t.Fatal(err)
		}
		return out
	}
	result := func(resp map[string]any) map[string]any {
		return resp["results"].([]any)[0].(map[string]any)
	}
	f := write("[a, b]")
	help := handle(f, `{"help":"say"}`)["help"].(map[string]any)
	fp := help["schema_fingerprint"].(string)

	if r := result(handle(f, `{"ops":[{"op":"say","args":{"words":["hi"]}}]}`)); r["error"].(map[string]any)["code"] != "missing_fingerprint" {
		t.Errorf("no fingerprint: %v", r)
	}
	r := result(handle(f, `{"ops":[{"op":"say","args":{"mode":"b","words":["hi"]},"fingerprint":"`+fp+`"}]}`))
	if e, _ := r["error"].(map[string]any); e["code"] != "policy_refused" {
		t.Errorf("the policy's denied mode: %v", r)
	}
	r = result(handle(f, `{"ops":[{"op":"say","args":{"mode":"a","words":["hi","there"]},"fingerprint":"`+fp+`"}]}`))
	if out := r["result"].(map[string]any)["output"]; out != "--mode a hi there\n" {
		t.Errorf("echo printed %q, want the rendered argv", out)
	}
	for _, args := range []string{`{"words":["-n"]}`, `{"words":["hi"],"mode":"c"}`, `{"words":["hi"],"extra":1}`, `{}`} {
		r := result(handle(f, `{"ops":[{"op":"say","args":`+args+`,"fingerprint":"`+fp+`"}]}`))
		if e, _ := r["error"].(map[string]any); e["code"] != "invalid_args" {
			t.Errorf("%s: %v", args, r)
		}
	}
	if fp2 := handle(write("[a, b, c]"), `{"help":"say"}`)["help"].(map[string]any)["schema_fingerprint"]; fp2 == fp {
		t.Errorf("a changed declaration kept fingerprint %s", fp)
	}
}

// A declared verb's fixed args may glue a value to a declared option of
// more than one letter (gcc's -fdiagnostics-format=json), as the program's
// own parser reads it; "-n=5" stays refused (getopt reads "=5"), and so
// does an option the declaration lacks.
func TestDeclaredFixedArgs(t *testing.T) {
	tr, err := projector.Declare("gcc", projector.Rendering{NoSeparator: true}, &projector.Command{Params: []*projector.Param{
		{Name: "format", Options: []string{"-fdiagnostics-format"}, Choices: []any{"text", "json"}},
		{Name: "n", Options: []string{"-n"}, Kind: projector.KindBoolean},
		{Name: "file"},
	}})
	if err != nil {
		t.Fatal(err)
	}
	root := tr.Find()
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"-fdiagnostics-format=json", "-n"}, ""},
		{[]string{"-fdiagnostics-format=yaml"}, "not one of"},
		{[]string{"-n=5"}, `give a short option's value as the next word`},
		{[]string{"-std=c11"}, "give a short option's value"},
		{[]string{"-Wall"}, "-Wall is not an option"},
	} {
		err := verbsurface.CheckFixedArgs(root, tc.args)
		if tc.want == "" && err != nil || tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)) {
			t.Errorf("%q: %v, want %q", tc.args, err, tc.want)
		}
	}
}
