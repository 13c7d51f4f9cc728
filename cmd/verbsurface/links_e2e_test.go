//go:build unix

package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// The third security pass (issue 36) on links, against the built binary
// serving testdata/links: a program that writes a file, prints a file or
// a directory's files, and lints a list of files.

// linksFixture is a root holding prod and dev directories, and a secret
// outside it, all by real path.
type linksFixture struct{ root, outside, secret string }

func newLinksFixture(t *testing.T) linksFixture {
	t.Helper()
	base, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	f := linksFixture{root: filepath.Join(base, "root"), outside: filepath.Join(base, "outside")}
	f.secret = filepath.Join(f.outside, "secret.txt")
	writeFiles(t, base, map[string]string{
		"root/prod/.keep":    "",
		"root/dev/.keep":     "",
		"outside/secret.txt": "secretline\n",
	})
	return f
}

// linksConfig copies testdata/links and returns its configuration, with
// the fixture's root and the lines given added.
func linksConfig(t *testing.T, f linksFixture, more ...string) string {
	t.Helper()
	dir := copyTestdata(t, "links", "links.py", "links.yaml")
	config := filepath.Join(dir, "links.yaml")
	b, err := os.ReadFile(config)
	if err != nil {
		t.Fatal(err)
	}
	cfg := string(b) + "roots: [" + strconv.Quote(f.root) + "]\n" + strings.Join(more, "")
	if err := os.WriteFile(config, []byte(cfg), 0o644); err != nil {
		t.Fatal(err)
	}
	return config
}

// serveLinks serves linksConfig's configuration over stdio.
func serveLinks(t *testing.T, f linksFixture, more ...string) *client {
	t.Helper()
	return serve(t, linksConfig(t, f, more...))
}

// notProd writes a policy denying verb when param is under ROOT/prod
// ("prod is off limits"), and returns the configuration line naming it.
func notProd(t *testing.T, f linksFixture, verb, param string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "policy.yaml")
	body := `version: 1
default: allow
rules:
  - name: not-prod
    verbs: [` + verb + `]
    when: {` + param + `: {pattern: "^` + regexp.QuoteMeta(f.root) + `/prod(/|$)"}}
    decision: deny
    reason: prod is off limits
`
	if err := os.WriteFile(p, []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
	return "policy: " + strconv.Quote(p) + "\n"
}

// TestDanglingWriteLinkJudgedAtItsTarget (HIGH #1): with a deny rule on
// ROOT/prod, out=ROOT/dev/new where dev/new -> ../prod/new and prod/new
// does not exist was judged as ROOT/dev/new and the program wrote
// ROOT/prod/new. The link's target is what policy judges now: refused,
// nothing written; a dangling link within dev writes its target, and the
// program is handed the target's real path.
func TestDanglingWriteLinkJudgedAtItsTarget(t *testing.T) {
	f := newLinksFixture(t)
	for link, target := range map[string]string{"dev/new": "../prod/new", "dev/abs": filepath.Join(f.root, "prod", "abs"), "dev/fine": "made.txt"} {
		if err := os.Symlink(target, filepath.Join(f.root, link)); err != nil {
			t.Fatal(err)
		}
	}
	c := serveLinks(t, f, notProd(t, f, "file.write", "out"))
	for _, link := range []string{"dev/new", "dev/abs"} {
		r := c.op(`{"op":"file.write","args":{"out":` + quoted(filepath.Join(f.root, link)) + `,"text":"pwned"}}`)
		if code(r) != "policy_refused" || !strings.Contains(fmt.Sprint(r["error"]), "prod is off limits") {
			t.Errorf("out=%s: %v; want policy_refused by not-prod", link, r)
		}
	}
	for _, name := range []string{"new", "abs"} {
		if _, err := os.Lstat(filepath.Join(f.root, "prod", name)); err == nil {
			t.Fatalf("prod/%s was written through a dangling link", name)
		}
	}
	r := resultOf(t, c.op(`{"op":"file.write","args":{"out":`+quoted(filepath.Join(f.root, "dev", "fine"))+`,"text":"ok"}}`))
	if out := textOf(t, r); out != "wrote "+filepath.Join(f.root, "dev", "made.txt")+"\n" {
		t.Errorf("a dangling link within dev: %q; want the target's real path", out)
	}
	unchanged(t, filepath.Join(f.root, "dev", "made.txt"), "ok")
}

// TestReadOrDirRefusesHardLinks (HIGH #2): a read_or_dir parameter (click's
// Path by default; a linter's FILE_OR_DIR) naming a hard link inside the
// root to a secret outside it printed the secret. It is refused like a
// read parameter's, saying why, and allow_hard_links admits it.
func TestReadOrDirRefusesHardLinks(t *testing.T) {
	f := newLinksFixture(t)
	link := filepath.Join(f.root, "dev", "innocent.txt")
	if err := os.Link(f.secret, link); err != nil {
		t.Skipf("no hard links here: %v", err)
	}
	c := serveLinks(t, f)
	for _, op := range []string{
		`{"op":"file.cat","args":{"path":` + quoted(link) + `}}`,
		`{"op":"file.lint","args":{"files":[` + quoted(filepath.Join(f.root, "dev")) + `,` + quoted(link) + `]}}`,
	} {
		r := c.op(op)
		msg := fmt.Sprint(r["error"])
		if code(r) != "invalid_args" || !strings.Contains(msg, "outside_roots") || !strings.Contains(msg, "hard links") {
			t.Errorf("%s: %v; want outside_roots naming hard links", op, r)
		}
		if strings.Contains(fmt.Sprint(r), "secretline") {
			t.Errorf("%s: the answer holds the secret: %v", op, r)
		}
	}
	allowed := serveLinks(t, f, "allow_hard_links: true\n")
	if out := textOf(t, resultOf(t, allowed.op(`{"op":"file.cat","args":{"path":`+quoted(link)+`}}`))); out != "secretline\n" {
		t.Errorf("allow_hard_links: %q", out)
	}
}

// TestPolicyOnArrayPaths ("Also seen"): a path condition on a linter's
// files failed the policy at load, so "not under prod" could not be said
// for a linter. Each element is judged on its real path now: one element
// under prod, however spelt (a symlink, dev/../prod), denies the op; files
// all under dev run.
func TestPolicyOnArrayPaths(t *testing.T) {
	f := newLinksFixture(t)
	writeFiles(t, f.root, map[string]string{"dev/a.txt": "a\n", "dev/b.txt": "b\n", "prod/p.txt": "p\n"})
	if err := os.Symlink("../prod", filepath.Join(f.root, "dev", "to-prod")); err != nil {
		t.Fatal(err)
	}
	c := serveLinks(t, f, notProd(t, f, "file.lint", "files"))
	dev := filepath.Join(f.root, "dev")
	for _, prod := range []string{filepath.Join(f.root, "prod"), filepath.Join(dev, "to-prod", "p.txt"), dev + "/../prod/p.txt"} {
		r := c.op(`{"op":"file.lint","args":{"files":[` + quoted(filepath.Join(dev, "a.txt")) + `,` + quoted(prod) + `]}}`)
		if code(r) != "policy_refused" || !strings.Contains(fmt.Sprint(r["error"]), "prod is off limits") {
			t.Errorf("files with %s: %v; want policy_refused by not-prod", prod, r)
		}
	}
	r := resultOf(t, c.op(`{"op":"file.lint","args":{"files":[`+quoted(filepath.Join(dev, "a.txt"))+`,`+quoted(dev+"/./b.txt")+`]}}`))
	if out := textOf(t, r); out != "linted "+filepath.Join(dev, "a.txt")+"\nlinted "+filepath.Join(dev, "b.txt")+"\n" {
		t.Errorf("files under dev: %q", out)
	}
}

// TestTokenNeverInsideARoot (LOW #16): a root holding the state directory
// of a generated token, or the --token-file, would let a caller name the
// token as a file and read it. Now the token (and a generated token's
// directory) is carved out of the root: serve serves the root, and naming
// the token, or a directory holding it, is outside_roots, the token never
// in the answer.
func TestTokenNeverInsideARoot(t *testing.T) {
	f := newLinksFixture(t)
	config := linksConfig(t, f)
	token := filepath.Join(f.root, "dev", "token")
	if err := os.WriteFile(token, []byte(httpToken+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	inRoot := filepath.Join(f.root, "state")
	for _, c := range []struct {
		name string
		env  []string
		args []string
		file string
	}{
		{"a generated token's directory inside the root", vsEnv(t, inRoot), []string{"--http", "127.0.0.1:0"}, filepath.Join(inRoot, "verbsurface", "links", "mcp-token")},
		{"a token file inside the root", vsEnv(t, t.TempDir()), []string{"--http", "127.0.0.1:0", "--token-file", token}, token},
	} {
		t.Run(c.name, func(t *testing.T) {
			srv := serveHTTPBin(t, c.env, append([]string{"-c", config}, c.args...)...)
			b, err := os.ReadFile(c.file)
			if err != nil {
				t.Fatalf("the token: %v\n%s", err, srv.log)
			}
			cl := httpClient(t, srv.url, strings.TrimSpace(string(b)))
			for _, named := range []string{c.file, filepath.Dir(c.file)} {
				r := cl.op(`{"op":"file.cat","args":{"path":` + strconv.Quote(named) + `}}`)
				if code(r) != "invalid_args" || !strings.Contains(fmt.Sprint(r), "outside_roots") || strings.Contains(fmt.Sprint(r), strings.TrimSpace(string(b))) {
					t.Errorf("file.cat %s: %v; want outside_roots and no token", named, r)
				}
			}
		})
	}
}

// TestLinksLeavingRootsAreWarned (MED #4): files:[ROOT/proj] where
// proj/notes.txt -> ../../outside/secret.txt hands the program the
// directory, and the program reads the secret through the link:
// confinement checks what it opens, not what the program opens. It stays
// so (SECURITY.md states the limit); check warns, naming the link and its
// target, and exits 0, and serve says the same on stderr at start.
func TestLinksLeavingRootsAreWarned(t *testing.T) {
	f := newLinksFixture(t)
	writeFiles(t, f.root, map[string]string{"proj/readme.txt": "hello\n"})
	link := filepath.Join(f.root, "proj", "notes.txt")
	if err := os.Symlink("../../outside/secret.txt", link); err != nil {
		t.Fatal(err)
	}
	config := linksConfig(t, f)
	want := fmt.Sprintf("%s:9: roots (file.cat, file.lint): warning: %s is a symbolic link to %s, outside the roots", config, link, f.secret)
	stdout, stderr, status := runVS(t, "check", "-c", config)
	if status != 0 || !strings.Contains(stdout, want) || !strings.HasSuffix(stdout, "ok: 3 verbs offered, 1 warning\n") {
		t.Errorf("check: status %d, want 0 and %q in\n%s%s", status, want, stdout, stderr)
	}
	serve := exec.Command(vsBin, "serve", "-c", config)
	serve.Stdin = strings.NewReader("") // the client leaves at once
	out, err := serve.CombinedOutput()
	if err != nil || !strings.Contains(string(out), "verbsurface: "+want) {
		t.Errorf("serve: %v; want %q on stderr at start:\n%s", err, want, out)
	}

	// The limit itself: the program reads the directory's link.
	c := serveLinks(t, f)
	if out := textOf(t, resultOf(t, c.op(`{"op":"file.cat","args":{"path":`+quoted(filepath.Join(f.root, "proj"))+`}}`))); !strings.Contains(out, "secretline") {
		t.Errorf("the program did not follow the link (has the limit gone? then SECURITY.md should say so): %q", out)
	}
	refused := c.op(`{"op":"file.cat","args":{"path":` + quoted(link) + `}}`)
	if code(refused) != "invalid_args" || !strings.Contains(fmt.Sprint(refused["error"]), "outside_roots") {
		t.Errorf("naming the link itself: %v", refused)
	}
}
