//go:build unix

package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// The corpus's rows for the parser families read after cobra, argparse
// and click: pip (optparse), fd and bat (clap 4 and clap 3). Each op's output is compared
// byte for byte with what the program prints when run directly with the
// argv the front renders.
func init() {
	corpusPrograms = append(corpusPrograms, corpusProgram{
		name: "pip", bin: "/usr/bin/python3", module: "pip",
		version: []string{"-m", "pip", "--version"}, want: "pip 23.0.1", install: "apt-get install python3-pip",
		spot: "packages.list",
		setup: func(t *testing.T, dir string) []string {
			writeFiles(t, dir, map[string]string{
				"site/tidy-2.5.dist-info/METADATA":  "Metadata-Version: 2.1\nName: tidy\nVersion: 2.5\n",
				"site/plumb-0.1.dist-info/METADATA": "Metadata-Version: 2.1\nName: plumb\nVersion: 0.1\n",
				"dist/tidy-2.5-py3-none-any.whl":    "not really a wheel\n",
			})
			return nil
		},
		ops: func(t *testing.T, c *client, dir string) {
			site := filepath.Join(dir, "site")
			r := resultOf(t, c.op(`{"op":"packages.list","args":{"path":[`+quoted(site)+`]}}`))
			direct := runDirect(t, dir, "/usr/bin/python3", "-m", "pip", "list", "--format=json", "--disable-pip-version-check", "--no-input", "--isolated", "--path="+site)
			if !jsonEqual(string(r.Output), direct) || !strings.Contains(direct, `"name": "tidy", "version": "2.5"`) {
				t.Errorf("packages.list: %s, pip list printed %s", r.Output, direct)
			}
			wheel := filepath.Join(dir, "dist", "tidy-2.5-py3-none-any.whl")
			r = resultOf(t, c.op(`{"op":"archive.hash","args":{"args":[`+quoted(wheel)+`],"algorithm":"sha512"}}`))
			if got, want := textOf(t, r), runDirect(t, dir, "/usr/bin/python3", "-m", "pip", "hash", "--disable-pip-version-check", "--no-input", "--isolated", "--algorithm=sha512", "--", wheel); got != want || !strings.Contains(got, "--hash=sha512:") {
				t.Errorf("archive.hash: %q, pip hash printed %q", got, want)
			}
			if r := c.op(`{"op":"archive.hash","args":{"args":["x"],"algorithm":"md5"}}`); code(r) != "invalid_args" {
				t.Errorf("a choice pip does not offer: %v", r)
			}
			outsideRefused(t, c, `{"op":"archive.hash","args":{"args":["/etc/passwd"]}}`)
			outsideRefused(t, c, `{"op":"packages.list","args":{"path":["/usr/lib/python3/dist-packages"]}}`)
		},
	}, corpusProgram{
		name: "fd", bin: "fdfind",
		version: []string{"--version"}, want: "fdfind 8.6.0", install: "apt-get install fd-find",
		spot: "files.find",
		setup: func(t *testing.T, dir string) []string {
			writeFiles(t, dir, map[string]string{
				"tree/src/main.go": "package main\n", "tree/src/util.go": "package main\n",
				"tree/src/notes.txt": "x\n", "tree/docs/-dash.go": "package x\n",
			})
			return nil
		},
		ops: func(t *testing.T, c *client, dir string) {
			tree := filepath.Join(dir, "tree")
			r := resultOf(t, c.op(`{"op":"files.find","args":{"pattern":"\\.go$","path":[`+quoted(tree)+`],"type":"f","color":"never"}}`))
			direct := runDirect(t, dir, "fdfind", "--type=f", "--color=never", "--", `\.go$`, tree)
			if got := textOf(t, r); got != direct || strings.Count(got, "\n") != 3 {
				t.Errorf("files.find: %q, fdfind printed %q", got, direct)
			}
			// A pattern that starts with a dash reaches fd as the pattern.
			r = resultOf(t, c.op(`{"op":"files.find","args":{"pattern":"^-dash","path":[`+quoted(tree)+`],"glob":false}}`))
			if got := textOf(t, r); !strings.HasSuffix(got, "-dash.go\n") {
				t.Errorf("a dash-leading pattern: %q", got)
			}
			if r := c.op(`{"op":"files.find","args":{"color":"sometimes"}}`); code(r) != "invalid_args" {
				t.Errorf("a colour fd does not list: %v", r)
			}
			if r := c.op(`{"op":"files.find","args":{"exec":["rm"]}}`); code(r) != "invalid_args" {
				t.Errorf("the excluded --exec: %v", r)
			}
			outsideRefused(t, c, `{"op":"files.find","args":{"pattern":"x","path":["/etc"]}}`)
		},
	}, corpusProgram{
		name: "bat", bin: "batcat",
		version: []string{"--version"}, want: "bat 0.22.1", install: "apt-get install bat",
		spot: "file.show",
		setup: func(t *testing.T, dir string) []string {
			writeFiles(t, dir, map[string]string{"notes/list.txt": "one\ntwo\nthree\nfour\n", "notes/-dash.txt": "dash\n"})
			return nil
		},
		ops: func(t *testing.T, c *client, dir string) {
			list := filepath.Join(dir, "notes", "list.txt")
			r := resultOf(t, c.op(`{"op":"file.show","args":{"FILE":[`+quoted(list)+`],"number":true,"decorations":"always","line_range":"2:3"}}`))
			direct := runDirect(t, dir, "batcat", "--paging=never", "--color=never", "--number", "--decorations=always", "--line-range=2:3", "--", list)
			if got := textOf(t, r); got != direct || !strings.Contains(got, "2 two") {
				t.Errorf("file.show: %q, batcat printed %q", got, direct)
			}
			// A file whose name starts with a dash reaches bat as a file.
			dash := filepath.Join(dir, "notes", "-dash.txt")
			if got := textOf(t, resultOf(t, c.op(`{"op":"file.show","args":{"FILE":[`+quoted(dash)+`]}}`))); got != "dash\n" {
				t.Errorf("a dash-leading file: %q", got)
			}
			if r := c.op(`{"op":"file.show","args":{"pager":"sh -c id"}}`); code(r) != "invalid_args" {
				t.Errorf("the excluded --pager: %v", r)
			}
			outsideRefused(t, c, `{"op":"file.show","args":{"FILE":["/etc/hostname"]}}`)
		},
	})
}

// runDirect runs a program as a user would, in dir with the environment
// the front passes (PATH, HOME and the like), and returns its stdout.
func runDirect(t *testing.T, dir, name string, args ...string) string {
	t.Helper()
	cmd := exec.Command(name, args...)
	cmd.Dir = dir
	cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + os.Getenv("HOME"), "LANG=" + os.Getenv("LANG")}
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("%s %s: %v", name, strings.Join(args, " "), err)
	}
	return string(out)
}
