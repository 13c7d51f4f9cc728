//go:build unix

package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// corpusPrograms is the corpus, one row a program; docs/corpus.md has the
// same table for readers. The versions are those of Debian bookworm's
// packages and of the go install lines in .ci/run.
var corpusPrograms = []corpusProgram{
	{
		name: "codespell", bin: "codespell", module: "codespell_lib",
		version: []string{"--version"}, want: "2.2.2", install: "apt-get install codespell",
		spot: "spell.check", folded: []string{"--enable-colors"}, // the fixed --disable-colors' dest
		setup: func(t *testing.T, dir string) []string {
			writeFiles(t, dir, map[string]string{
				"docs/notes.txt": "teh quick fox\nwill recieve it\n",
				"docs/clean.txt": "the quick fox\n",
			})
			return nil
		},
		ops: func(t *testing.T, c *client, dir string) {
			docs := filepath.Join(dir, "docs")
			r := resultOf(t, c.op(`{"op":"spell.check","args":{"files":[`+quoted(docs)+`]}}`))
			out := textOf(t, r)
			for _, want := range []string{"notes.txt:1: teh ==> the\n", "notes.txt:2: recieve ==> receive\n"} {
				if r.ExitCode != 65 || !strings.Contains(out, want) {
					t.Errorf("a directory with misspellings: exit %d, want 65 and %q in\n%s", r.ExitCode, want, out)
				}
			}
			if r := resultOf(t, c.op(`{"op":"spell.check","args":{"files":[`+quoted(filepath.Join(docs, "clean.txt"))+`]}}`)); r.ExitCode != 0 || textOf(t, r) != "" {
				t.Errorf("a clean file: %+v", r)
			}
			if r := c.op(`{"op":"spell.check","args":{"files":["x"],"write_changes":true}}`); code(r) != "invalid_args" {
				t.Errorf("the excluded --write-changes: %v", r)
			}
			unchanged(t, filepath.Join(docs, "notes.txt"), "teh quick fox\nwill recieve it\n")
			outsideRefused(t, c, `{"op":"spell.check","args":{"files":["/etc/passwd"]}}`)
		},
	},
	{
		name: "csvjson", bin: "csvjson", module: "csvkit",
		version: []string{"--version"}, want: "csvjson 1.0.7", install: "apt-get install csvkit",
		spot: "csv.json",
		setup: func(t *testing.T, dir string) []string {
			writeFiles(t, dir, map[string]string{"trees.csv": "name,height,planted\noak,20,2001-04-01\nash,25.5,\n"})
			return nil
		},
		ops: func(t *testing.T, c *client, dir string) {
			r := resultOf(t, c.op(`{"op":"csv.json","args":{"input_path":`+quoted(filepath.Join(dir, "trees.csv"))+`}}`))
			if want := `[{"name":"oak","height":20.0,"planted":"2001-04-01"},{"name":"ash","height":25.5,"planted":null}]`; !jsonEqual(string(r.Output), want) {
				t.Errorf("csv.json: %s, want %s", r.Output, want)
			}
			r = resultOf(t, c.op(`{"op":"csv.json","args":{"input_path":`+quoted(filepath.Join(dir, "trees.csv"))+`,"key":"name","no_inference":true}}`))
			if want := `{"oak":{"name":"oak","height":"20","planted":"2001-04-01"},"ash":{"name":"ash","height":"25.5","planted":null}}`; !jsonEqual(string(r.Output), want) {
				t.Errorf("csv.json keyed, no inference: %s, want %s", r.Output, want)
			}
			outsideRefused(t, c, `{"op":"csv.json","args":{"input_path":"/etc/passwd"}}`)
		},
	},
	{
		name: "pygmentize", bin: "/usr/bin/pygmentize", module: "pygments",
		version: []string{"-V"}, want: "Pygments version 2.14.0", install: "apt-get install python3-pygments",
		spot: "highlight",
		setup: func(t *testing.T, dir string) []string {
			writeFiles(t, dir, map[string]string{"greet.py": "def greet():\n    return 'hi'\n"})
			return nil
		},
		ops: func(t *testing.T, c *client, dir string) {
			r := resultOf(t, c.op(`{"op":"highlight","args":{"INPUTFILE":`+quoted(filepath.Join(dir, "greet.py"))+`,"l":"python","f":"html"}}`))
			out := textOf(t, r)
			for _, want := range []string{`<div class="highlight"><pre>`, `<span class="k">def</span> <span class="nf">greet</span>`, `<span class="s1">&#39;hi&#39;</span>`} {
				if !strings.Contains(out, want) {
					t.Errorf("highlight: want %q in\n%s", want, out)
				}
			}
			if r := resultOf(t, c.op(`{"op":"highlight","args":{"N":"build.rs"}}`)); textOf(t, r) != "rust\n" {
				t.Errorf("a lexer guessed from a name: %+v", r)
			}
			if r := c.op(`{"op":"highlight","args":{"INPUTFILE":"greet.py","o":"out.html"}}`); code(r) != "invalid_args" {
				t.Errorf("the excluded -o: %v", r)
			}
			outsideRefused(t, c, `{"op":"highlight","args":{"INPUTFILE":"/etc/passwd","l":"text"}}`)
		},
	},
	{
		name: "reuse", bin: "reuse", module: "reuse",
		version: []string{"--version"}, want: "reuse 1.1.2", install: "apt-get install reuse",
		spot: "project.lint",
		setup: func(t *testing.T, dir string) []string {
			writeFiles(t, dir, map[string]string{
				"a.py": "print(1)\n",
				"b.py": "# SPDX-FileCopyrightText: 2026 The corpus\n# SPDX-License-Identifier: MIT\nprint(2)\n",
			})
			return nil
		},
		ops: func(t *testing.T, c *client, dir string) {
			r := resultOf(t, c.op(`{"op":"project.lint"}`))
			out := textOf(t, r)
			for _, want := range []string{"The following files have no copyright and licensing information:\n* " + filepath.Join(dir, "a.py"), "* Missing licenses: MIT\n", "* Files with copyright information: 1 / 3\n"} {
				if r.ExitCode != 1 || !strings.Contains(out, want) {
					t.Errorf("project.lint: exit %d, want 1 and %q in\n%s", r.ExitCode, want, out)
				}
			}
			r = resultOf(t, c.op(`{"op":"project.spdx"}`))
			out = textOf(t, r)
			for _, want := range []string{"SPDXVersion: SPDX-2.1\n", "FileName: ./a.py\n", "FileName: ./b.py\n", "LicenseInfoInFile: MIT\n", "FileCopyrightText: <text>SPDX-FileCopyrightText: 2026 The corpus</text>\n"} {
				if !strings.Contains(out, want) {
					t.Errorf("project.spdx: want %q in\n%s", want, out)
				}
			}
			if r := resultOf(t, c.op(`{"op":"licenses.list"}`)); !strings.Contains(textOf(t, r), "MIT") {
				t.Errorf("licenses.list: %+v", r)
			}
		},
	},
	{
		name: "isort", bin: "isort", module: "isort",
		version: []string{"--version"}, want: "VERSION 5.6.4", install: "apt-get install isort",
		spot: "imports.check",
		setup: func(t *testing.T, dir string) []string {
			writeFiles(t, dir, map[string]string{"src/app.py": "import sys\nimport os\n", "src/ok.py": "import os\nimport sys\n"})
			return nil
		},
		ops: func(t *testing.T, c *client, dir string) {
			app := filepath.Join(dir, "src", "app.py")
			r := resultOf(t, c.op(`{"op":"imports.check","args":{"files":[`+quoted(app)+`]}}`))
			out := textOf(t, r)
			if r.ExitCode != 1 || !strings.Contains(out, "@@ -1,2 +1,2 @@\n+import os\n import sys\n-import os\n") || !strings.Contains(r.Stderr, "Imports are incorrectly sorted") {
				t.Errorf("an unsorted file: %+v\n%s", r, out)
			}
			unchanged(t, app, "import sys\nimport os\n")
			if r := resultOf(t, c.op(`{"op":"imports.check","args":{"files":[`+quoted(filepath.Join(dir, "src", "ok.py"))+`]}}`)); r.ExitCode != 0 || textOf(t, r) != "" {
				t.Errorf("a sorted file: %+v", r)
			}
			// A directory (read_or_dir): isort finds app.py in it.
			if r := resultOf(t, c.op(`{"op":"imports.check","args":{"files":[`+quoted(filepath.Join(dir, "src"))+`]}}`)); r.ExitCode != 1 || !strings.Contains(textOf(t, r), "app.py:before") {
				t.Errorf("a directory: %+v", r)
			}
			if r := c.op(`{"op":"imports.check","args":{"files":["src"],"check_only":false}}`); code(r) != "invalid_args" {
				t.Errorf("the fixed --check-only: %v", r)
			}
		},
	},
	{
		name: "sqlfluff", bin: "sqlfluff", module: "sqlfluff",
		version: []string{"--version"}, want: "sqlfluff, version 1.4.5", install: "apt-get install sqlfluff",
		spot: "sql.lint",
		setup: func(t *testing.T, dir string) []string {
			writeFiles(t, dir, map[string]string{"sql/q.sql": "SELECT a+b  FROM t\n", "sql/ok.sql": "SELECT a + b FROM t\n"})
			return nil
		},
		ops: func(t *testing.T, c *client, dir string) {
			q := filepath.Join(dir, "sql", "q.sql")
			r := resultOf(t, c.op(`{"op":"sql.lint","args":{"paths":[`+quoted(q)+`],"dialect":"ansi"}}`))
			var files []struct {
				Filepath   string `json:"filepath"`
				Violations []struct {
					Line int    `json:"line_no"`
					Pos  int    `json:"line_pos"`
					Code string `json:"code"`
				} `json:"violations"`
			}
			outputOf(t, r, &files)
			var got []string
			for _, f := range files {
				for _, v := range f.Violations {
					got = append(got, fmt.Sprintf("%s:%d:%d:%s", filepath.Base(f.Filepath), v.Line, v.Pos, v.Code))
				}
			}
			if want := []string{"q.sql:1:9:L006", "q.sql:1:10:L006", "q.sql:1:11:L039"}; r.ExitCode != 1 || !slices.Equal(got, want) {
				t.Errorf("sql.lint: exit %d, findings %v, want 1 and %v", r.ExitCode, got, want)
			}
			// A directory, one rule: the file with findings, and only that
			// rule's.
			r = resultOf(t, c.op(`{"op":"sql.lint","args":{"paths":[`+quoted(filepath.Join(dir, "sql"))+`],"dialect":"ansi","rules":"L039"}}`))
			files = nil
			outputOf(t, r, &files)
			if len(files) != 1 || filepath.Base(files[0].Filepath) != "q.sql" || len(files[0].Violations) != 1 || files[0].Violations[0].Code != "L039" || r.ExitCode != 1 {
				t.Errorf("sql.lint of a directory: %+v", files)
			}
			r = resultOf(t, c.op(`{"op":"sql.parse","args":{"path":`+quoted(q)+`,"dialect":"ansi"}}`))
			if !strings.Contains(string(r.Output), `"select_clause":{"keyword":"SELECT"`) || !strings.Contains(string(r.Output), `{"binary_operator":"+"}`) {
				t.Errorf("sql.parse: %s", r.Output)
			}
			if r := c.op(`{"op":"sql.lint","args":{"paths":["sql"],"write_output":"out.json"}}`); code(r) != "invalid_args" {
				t.Errorf("the excluded --write-output: %v", r)
			}
		},
	},
	{
		name: "black", bin: "black", module: "black",
		version: []string{"--version"}, want: "black, 23.1.0", install: "apt-get install black",
		spot: "format.check",
		setup: func(t *testing.T, dir string) []string {
			writeFiles(t, dir, map[string]string{"pkg/ugly.py": "x = {  'a':37,'b':42}\n", "pkg/fine.py": "y = 1\n"})
			return nil
		},
		ops: func(t *testing.T, c *client, dir string) {
			// The package directory: click's Path allows files and
			// directories, and the click adapter marks it read_or_dir.
			r := resultOf(t, c.op(`{"op":"format.check","args":{"src":[`+quoted(filepath.Join(dir, "pkg"))+`]}}`))
			out := textOf(t, r)
			if r.ExitCode != 1 || !strings.Contains(out, "-x = {  'a':37,'b':42}\n+x = {\"a\": 37, \"b\": 42}\n") || strings.Contains(out, "fine.py") || !strings.Contains(r.Stderr, "1 file would be reformatted, 1 file would be left unchanged.") {
				t.Errorf("format.check of a directory: %+v\n%s", r, out)
			}
			unchanged(t, filepath.Join(dir, "pkg", "ugly.py"), "x = {  'a':37,'b':42}\n")
			r = resultOf(t, c.op(`{"op":"format.check","args":{"src":[`+quoted(filepath.Join(dir, "pkg", "ugly.py"))+`],"skip_string_normalization":true}}`))
			if r.ExitCode != 1 || !strings.Contains(textOf(t, r), "+x = {'a': 37, 'b': 42}\n") {
				t.Errorf("format.check -S: %+v", r)
			}
			outsideRefused(t, c, `{"op":"format.check","args":{"src":["/etc"]}}`)
			// A hard link inside the root to a file outside it (issue 36):
			// src is read_or_dir, and it refuses a file with two names as a
			// read parameter does, before black reads a byte of it.
			secret := filepath.Join(t.TempDir(), "secret.py")
			if err := os.WriteFile(secret, []byte("SECRET = {  'k':1}\n"), 0o600); err != nil {
				t.Fatal(err)
			}
			if err := os.Link(secret, filepath.Join(dir, "linked.py")); err != nil {
				t.Fatal(err)
			}
			linked := c.op(`{"op":"format.check","args":{"src":[` + quoted(filepath.Join(dir, "linked.py")) + `]}}`)
			if code(linked) != "invalid_args" || !strings.Contains(fmt.Sprint(linked["error"]), "hard links") || strings.Contains(fmt.Sprint(linked), "SECRET") {
				t.Errorf("a hard link to a file outside the root: %v", linked)
			}
		},
	},
	{
		name: "restic", bin: "restic",
		version: []string{"version"}, want: "restic 0.14.0", install: "apt-get install restic",
		spot: "file.list",
		setup: func(t *testing.T, dir string) []string {
			writeFiles(t, dir, map[string]string{"data/oak.txt": "an oak\n", "data/sub/ash.txt": "an ash\n"})
			env := []string{"RESTIC_REPOSITORY=" + filepath.Join(dir, "repo"), "RESTIC_PASSWORD=corpus"}
			cache := "--cache-dir=" + filepath.Join(dir, "cache")
			runProgram(t, dir, env, "restic", "init", cache)
			runProgram(t, dir, env, "restic", "backup", cache, "--tag=corpus", filepath.Join(dir, "data"))
			return env
		},
		ops: func(t *testing.T, c *client, dir string) {
			data := filepath.Join(dir, "data")
			var snaps []struct {
				ID    string   `json:"short_id"`
				Paths []string `json:"paths"`
				Tags  []string `json:"tags"`
			}
			outputOf(t, resultOf(t, c.op(`{"op":"snapshot.list"}`)), &snaps)
			if len(snaps) != 1 || !slices.Equal(snaps[0].Paths, []string{data}) || !slices.Equal(snaps[0].Tags, []string{"corpus"}) {
				t.Fatalf("snapshot.list: %+v", snaps)
			}
			var nodes []struct {
				StructType string `json:"struct_type"`
				Path       string `json:"path"`
				Type       string `json:"type"`
				Size       int    `json:"size"`
			}
			outputOf(t, resultOf(t, c.op(`{"op":"file.list","args":{"snapshot_id":`+quoted(snaps[0].ID)+`,"dir":[`+quoted(filepath.Join(data, "sub"))+`]}}`)), &nodes)
			var files []string
			for _, n := range nodes {
				if n.StructType == "node" && n.Type == "file" {
					files = append(files, fmt.Sprintf("%s %d", n.Path, n.Size))
				}
			}
			if len(nodes) == 0 || nodes[0].StructType != "snapshot" || !slices.Equal(files, []string{filepath.Join(data, "sub", "ash.txt") + " 7"}) {
				t.Errorf("file.list: %+v", nodes)
			}
			r := resultOf(t, c.op(`{"op":"file.find","args":{"pattern":["oak.txt"]}}`))
			if !strings.Contains(string(r.Output), quoted(filepath.Join(data, "oak.txt"))) {
				t.Errorf("file.find: %s", r.Output)
			}
			var stats struct {
				Size int `json:"total_size"`
			}
			outputOf(t, resultOf(t, c.op(`{"op":"repo.stats"}`)), &stats)
			if stats.Size != len("an oak\n")+len("an ash\n") {
				t.Errorf("repo.stats: %+v", stats)
			}
			for _, arg := range []string{`"repo":"/elsewhere"`, `"option":["s3.region=x"]`, `"no_lock":false`} {
				if r := c.op(`{"op":"snapshot.list","args":{` + arg + `}}`); code(r) != "invalid_args" {
					t.Errorf("%s: %v", arg, r)
				}
			}
			if locks, _ := os.ReadDir(filepath.Join(dir, "repo", "locks")); len(locks) != 0 {
				t.Errorf("the verbs left locks in the repository: %v", locks)
			}
		},
	},
	{
		name: "hugo", bin: "hugo",
		version: []string{"version"}, want: "hugo v0.111.3", install: "apt-get install hugo",
		spot: "content.list",
		setup: func(t *testing.T, dir string) []string {
			runProgram(t, dir, nil, "hugo", "new", "site", "site")
			writeFiles(t, dir, map[string]string{
				"site/content/posts/oak.md": "---\ntitle: Oak\ndate: 2023-01-02\n---\nAn oak.\n",
				"site/content/posts/ash.md": "---\ntitle: Ash\ndate: 2023-01-03\ndraft: true\n---\nAn ash.\n",
			})
			return []string{"HUGO_CACHEDIR=" + filepath.Join(dir, "cache")}
		},
		ops: func(t *testing.T, c *client, dir string) {
			site := filepath.Join(dir, "site")
			out := textOf(t, resultOf(t, c.op(`{"op":"content.list","args":{"source":`+quoted(site)+`}}`)))
			lines := strings.Split(strings.TrimSpace(out), "\n")
			if len(lines) != 3 || !strings.HasPrefix(lines[0], "path,slug,title,date,") ||
				!strings.HasPrefix(lines[1], "content/posts/ash.md,,Ash,2023-01-03") || !strings.HasPrefix(lines[2], "content/posts/oak.md,,Oak,2023-01-02") {
				t.Errorf("content.list: %q", lines)
			}
			if out := textOf(t, resultOf(t, c.op(`{"op":"content.drafts","args":{"source":`+quoted(site)+`}}`))); out != "content/posts/ash.md\n" {
				t.Errorf("content.drafts: %q", out)
			}
			if out := textOf(t, resultOf(t, c.op(`{"op":"site.config","args":{"source":`+quoted(site)+`}}`))); !strings.Contains(out, `title = "My New Hugo Site"`) || !strings.Contains(out, `cachedir = "`+filepath.Join(dir, "cache")) {
				t.Errorf("site.config: %s", out)
			}
			outsideRefused(t, c, `{"op":"content.list","args":{"source":"/usr/share"}}`)

			// Reading hugo's tree runs none of its commands: read as
			// cobra's, `hugo mod get --help` runs `go get` and makes
			// public/, resources/ and a cache where it runs.
			empty := t.TempDir()
			check := exec.Command(vsBin, "check", "-c", filepath.Join(dir, "hugo.yaml"))
			check.Dir, check.Env = empty, append(os.Environ(), "TMPDIR="+empty)
			if out, err := check.CombinedOutput(); err != nil {
				t.Fatalf("check: %v\n%s", err, out)
			}
			if left, _ := os.ReadDir(empty); len(left) != 0 {
				t.Errorf("reading hugo's tree left %v in its directory", left)
			}
		},
	},
	{
		name: "yq", bin: "yq",
		version: []string{"--version"}, want: "mikefarah/yq/) version v4.54.3", install: "go install github.com/mikefarah/yq/v4@v4.54.3, first on PATH",
		spot: "data.eval",
		setup: func(t *testing.T, dir string) []string {
			writeFiles(t, dir, map[string]string{
				"trees.yaml": "trees:\n  - {name: oak, height: 20}\n  - {name: ash, height: 25}\n",
				"more.yaml":  "trees:\n  - {name: elm, height: 30}\n",
			})
			return nil
		},
		ops: func(t *testing.T, c *client, dir string) {
			var got []any
			outputOf(t, resultOf(t, c.op(`{"op":"data.eval","args":{"expression":".trees[] | select(.height > 21) | .name","expression_arg":`+quoted(filepath.Join(dir, "trees.yaml"))+`,"yaml_file1":[`+quoted(filepath.Join(dir, "more.yaml"))+`]}}`)), &got)
			if fmt.Sprint(got) != "[ash elm]" {
				t.Errorf("data.eval over two files: %v", got)
			}
			outputOf(t, resultOf(t, c.op(`{"op":"data.eval","args":{"expression":"{\"n\": (.trees | length)}","expression_arg":`+quoted(filepath.Join(dir, "trees.yaml"))+`}}`)), &got)
			if fmt.Sprint(got) != "[map[n:2]]" {
				t.Errorf("data.eval building an object: %v", got)
			}
			// The expression language's file and env operators are off.
			if r := c.op(`{"op":"data.eval","args":{"expression":"load(\"/etc/hostname\")","expression_arg":` + quoted(filepath.Join(dir, "trees.yaml")) + `}}`); code(r) != "nonzero_exit" || !strings.Contains(fmt.Sprint(r["error"]), "file operations have been disabled") {
				t.Errorf("load(): %v", r)
			}
			outsideRefused(t, c, `{"op":"data.eval","args":{"expression_arg":"/etc/hostname"}}`)
		},
	},
	{
		name: "scc", bin: "scc",
		version: []string{"--version"}, want: "scc version 3.5.0", install: "go install github.com/boyter/scc/v3@v3.5.0 (.ci/run builds it from .ci/corpus/scc)",
		spot: "code.count",
		setup: func(t *testing.T, dir string) []string {
			writeFiles(t, dir, map[string]string{
				"src/main.go": "package main\n\n// main says hello.\nfunc main() {\n\tif true {\n\t\tprintln(\"hi\")\n\t}\n}\n",
				"src/tool.py": "# a tool\nprint(1)\nprint(2)\n",
			})
			return nil
		},
		ops: func(t *testing.T, c *client, dir string) {
			var langs []struct {
				Name                               string
				Lines, Code, Comment, Blank, Count int
				Complexity                         int
				Files                              []struct{ Filename string }
			}
			outputOf(t, resultOf(t, c.op(`{"op":"code.count","args":{"files":`+quoted(filepath.Join(dir, "src"))+`}}`)), &langs)
			var got []string
			for _, l := range langs {
				got = append(got, fmt.Sprintf("%s files=%d lines=%d code=%d comment=%d blank=%d complexity=%d", l.Name, l.Count, l.Lines, l.Code, l.Comment, l.Blank, l.Complexity))
			}
			if want := []string{"Go files=1 lines=8 code=6 comment=1 blank=1 complexity=1", "Python files=1 lines=3 code=2 comment=1 blank=0 complexity=0"}; !slices.Equal(got, want) {
				t.Errorf("code.count: %q, want %q", got, want)
			}
			langs = nil
			outputOf(t, resultOf(t, c.op(`{"op":"code.files","args":{"files":`+quoted(filepath.Join(dir, "src"))+`,"include_ext":["go"]}}`)), &langs)
			if len(langs) != 1 || len(langs[0].Files) != 1 || langs[0].Files[0].Filename != "main.go" {
				t.Errorf("code.files: %+v", langs)
			}
			if r := c.op(`{"op":"code.count","args":{"output":"x.json"}}`); code(r) != "invalid_args" {
				t.Errorf("the excluded --output: %v", r)
			}
			outsideRefused(t, c, `{"op":"code.count","args":{"files":"/usr/share"}}`)
		},
	},
	{
		name: "kustomize", bin: "kustomize",
		version: []string{"version"}, want: "v5.8.2", install: "go install sigs.k8s.io/kustomize/kustomize/v5@v5.8.2",
		spot: "manifests.tree",
		setup: func(t *testing.T, dir string) []string {
			writeFiles(t, dir, map[string]string{
				"app/kustomization.yaml": "namePrefix: corpus-\ncommonLabels:\n  team: trees\nresources:\n- cm.yaml\n",
				"app/cm.yaml":            "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: heights\ndata:\n  oak: \"20\"\n",
			})
			return nil
		},
		ops: func(t *testing.T, c *client, dir string) {
			app := filepath.Join(dir, "app")
			out := textOf(t, resultOf(t, c.op(`{"op":"manifests.build","args":{"dir":`+quoted(app)+`}}`)))
			if want := "apiVersion: v1\ndata:\n  oak: \"20\"\nkind: ConfigMap\nmetadata:\n  labels:\n    team: trees\n  name: corpus-heights\n"; out != want {
				t.Errorf("manifests.build: %q, want %q", out, want)
			}
			if out := textOf(t, resultOf(t, c.op(`{"op":"manifests.count","args":{"dir":`+quoted(app)+`}}`))); !strings.Contains(out, "ConfigMap: 1\n") {
				t.Errorf("manifests.count: %q", out)
			}
			if out := textOf(t, resultOf(t, c.op(`{"op":"manifests.tree","args":{"dir":`+quoted(app)+`}}`))); !strings.Contains(out, "[cm.yaml]  ConfigMap heights") {
				t.Errorf("manifests.tree: %q", out)
			}
			for _, arg := range []string{`"dir":"https://github.com/kubernetes-sigs/kustomize.git/examples/helloWorld"`, `"dir":` + quoted(app) + `,"enable_helm":true`} {
				if r := c.op(`{"op":"manifests.build","args":{` + arg + `}}`); code(r) != "invalid_args" {
					t.Errorf("%s: %v", arg, r)
				}
			}
		},
	},
}
