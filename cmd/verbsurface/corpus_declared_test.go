//go:build unix

package main

import (
	"bytes"
	"encoding/json"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// The corpus's declared programs: parsers of their own that no reader can
// read, fronted by source.declared (docs/fronting.md, "Declared verbs").
// corpusPrograms takes them in with the rest.
var declaredCorpus = []corpusProgram{
	{
		name: "jq", bin: "jq",
		version: []string{"--version"}, want: "jq-1.6", install: "apt-get install jq",
		spot: "json.query",
		setup: func(t *testing.T, dir string) []string {
			writeFiles(t, dir, map[string]string{"trees.json": `{"oak":{"height":20,"planted":"2001-04-01"},"ash":{"height":25.5}}` + "\n"})
			return nil
		},
		ops: func(t *testing.T, c *client, dir string) {
			data := filepath.Join(dir, "trees.json")
			// jq's own parser refuses "--" before the filter, which is
			// why the front renders none.
			if out, err := exec.Command("jq", "--", ".", data).CombinedOutput(); err == nil {
				t.Errorf("jq -- . FILE succeeded (%s): the declaration's separator: false is no longer needed", out)
			}
			// One op, byte for byte what jq prints for the same words.
			r := resultOf(t, c.op(`{"op":"json.query","args":{"filter":".oak","files":[`+quoted(data)+`],"sort_keys":true,"indent":1}}`))
			direct, err := exec.Command("jq", "-S", "--indent", "1", ".oak", data).Output()
			if err != nil {
				t.Fatal(err)
			}
			if got := textOf(t, r); got != string(direct) || r.ExitCode != 0 {
				t.Errorf("json.query: %q, jq itself printed %q", got, direct)
			}
			if got := textOf(t, resultOf(t, c.op(`{"op":"json.query","args":{"filter":"keys[]","files":[`+quoted(data)+`],"raw_output":true}}`))); got != "ash\noak\n" {
				t.Errorf("json.query raw: %q", got)
			}
			// A filter or a file that jq would read as an option is
			// refused before anything runs, as is an option jq has but
			// the declaration does not offer.
			for _, args := range []string{`"filter":"--help","files":[` + quoted(data) + `]`, `"filter":".","files":["-n"]`, `"filter":".","files":[` + quoted(data) + `],"null_input":true`} {
				if r := c.op(`{"op":"json.query","args":{` + args + `}}`); code(r) != "invalid_args" {
					t.Errorf("%s: %v", args, r)
				}
			}
			outsideRefused(t, c, `{"op":"json.query","args":{"filter":".","files":["/etc/passwd"]}}`)
		},
	},
	{
		name: "gcc", bin: "gcc",
		version: []string{"-dumpfullversion"}, want: "12.2.0", install: "apt-get install gcc",
		spot: "c.check",
		setup: func(t *testing.T, dir string) []string {
			writeFiles(t, dir, map[string]string{
				"bad.c": "int main(void) { return x; }\n",
				"ok.c":  "int main(void) { return 0; }\n",
			})
			return nil
		},
		ops: func(t *testing.T, c *client, dir string) {
			bad := filepath.Join(dir, "bad.c")
			// The report is gcc's JSON on stderr: byte for byte what gcc
			// writes there for the same words, once both pass through
			// the test client's JSON decoding (which sorts keys).
			r := resultOf(t, c.op(`{"op":"c.check","args":{"file":`+quoted(bad)+`,"std":"c99","wall":true}}`))
			cmd := exec.Command("gcc", "-fsyntax-only", "-fdiagnostics-format=json", "-std=c99", "-Wall", bad)
			var stderr bytes.Buffer
			cmd.Stderr = &stderr
			if err := cmd.Run(); err == nil {
				t.Fatal("gcc accepted bad.c")
			}
			var report any
			if err := json.Unmarshal(stderr.Bytes(), &report); err != nil {
				t.Fatalf("gcc's stderr is not JSON: %v", err)
			}
			want, _ := json.Marshal(report)
			if string(r.Output) != string(want) || r.ExitCode != 1 || !strings.Contains(string(r.Output), `"kind":"error"`) {
				t.Errorf("c.check: exit %d, %s; gcc itself wrote %s", r.ExitCode, r.Output, want)
			}
			if r := resultOf(t, c.op(`{"op":"c.check","args":{"file":`+quoted(filepath.Join(dir, "ok.c"))+`}}`)); string(r.Output) != "[]" || r.ExitCode != 0 {
				t.Errorf("a clean file: %+v", r)
			}
			// The fixed -fsyntax-only and -fdiagnostics-format are the
			// operator's; an option gcc has but the declaration does not
			// offer (-o writes) is unknown.
			for _, args := range []string{`"file":` + quoted(bad) + `,"syntax_only":false`, `"file":` + quoted(bad) + `,"o":"x"`} {
				if r := c.op(`{"op":"c.check","args":{` + args + `}}`); code(r) != "invalid_args" {
					t.Errorf("%s: %v", args, r)
				}
			}
			outsideRefused(t, c, `{"op":"c.check","args":{"file":"/etc/x.c"}}`)
		},
	},
}
