//go:build unix

package verbsurface

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/verbsurface/verbsurface/projector"
)

// TestHardLinksInRoots: a hard link inside a root to a file outside it is
// the attack (the kernel's path for it is inside the root), and since a
// file's other names cannot be found, every regular file with more than
// one name is refused, for reading and for writing over, unless the
// operator allows hard links; nothing of it is read. A file with one name
// is read as before.
func TestHardLinksInRoots(t *testing.T) {
	base := t.TempDir()
	root, outside := filepath.Join(base, "root"), filepath.Join(base, "outside")
	for _, d := range []string{root, outside} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	secret := filepath.Join(outside, "secret.txt")
	if err := os.WriteFile(secret, []byte("SECRET"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, "one.txt"), []byte("one name"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, "a.txt"), []byte("two names inside"), 0o600); err != nil {
		t.Fatal(err)
	}
	for old, link := range map[string]string{secret: filepath.Join(root, "linked-secret"), filepath.Join(root, "a.txt"): filepath.Join(root, "b.txt")} {
		if err := os.Link(old, link); err != nil {
			t.Skipf("hard links are not possible here: %v", err)
		}
	}
	// plain is a read_or_dir parameter: a linter's FILE_OR_DIR, click's
	// Path by default.
	s := rootsSurface(t, []string{root}, map[string]projector.PathUse{"plain": projector.PathUseReadOrDir})
	for _, c := range []struct {
		name string
		args map[string]any
	}{
		{"read through a hard link to a file outside", map[string]any{"file": filepath.Join(root, "linked-secret")}},
		{"write over a hard link to a file outside", map[string]any{"out": filepath.Join(root, "linked-secret")}},
		{"read a file whose two names are both inside", map[string]any{"file": filepath.Join(root, "b.txt")}},
		{"read_or_dir through a hard link to a file outside", map[string]any{"plain": filepath.Join(root, "linked-secret")}},
	} {
		t.Run(c.name, func(t *testing.T) {
			got := readOp(t, s, c.args)
			if got.ok || got.rule != RuleOutsideRoots {
				t.Fatalf("got ok=%v rule %q (%s) content %q; want outside_roots", got.ok, got.rule, got.reason, got.content)
			}
			for _, want := range []string{"2 names (hard links)", "AllowHardLinks", "nothing was read"} {
				if !strings.Contains(got.reason, want) {
					t.Errorf("the reason lacks %q: %s", want, got.reason)
				}
			}
			if !got.hasHelp {
				t.Error("the refusal does not carry the schema and help call")
			}
		})
	}
	if got := readOp(t, s, map[string]any{"file": filepath.Join(root, "one.txt")}); !got.ok || got.content != "one name" {
		t.Fatalf("a file with one name: %+v", got)
	}

	s.opts.AllowHardLinks = true
	if got := readOp(t, s, map[string]any{"file": filepath.Join(root, "b.txt")}); !got.ok || got.content != "two names inside" {
		t.Fatalf("with AllowHardLinks, a hard-linked file: %+v", got)
	}
}

// TestWriteLinksResolveBeforeJudgement: the file a write names may be a
// symlink whose target does not exist yet. The program would create the
// target, so the target is what the op runs with and what policy sees:
// dev/new -> ../prod/new reaches the handler (and a policy) as
// ROOT/prod/new, a dangling link out of the root is outside_roots, an
// absolute one inside is followed, and a loop ends in a refusal.
func TestWriteLinksResolveBeforeJudgement(t *testing.T) {
	base := t.TempDir()
	root, outside := filepath.Join(base, "root"), filepath.Join(base, "outside")
	for _, d := range []string{filepath.Join(root, "dev"), filepath.Join(root, "prod"), outside} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	real, err := filepath.EvalSymlinks(root)
	if err != nil {
		t.Fatal(err)
	}
	for link, target := range map[string]string{
		"dev/new":      "../prod/new",
		"dev/chain":    "new", // a link to the dangling link
		"dev/abs":      filepath.Join(real, "prod", "abs-target"),
		"dev/escape":   "../../outside/new",
		"dev/abs-out":  filepath.Join(outside, "new"),
		"dev/loop-a":   "loop-b",
		"dev/loop-b":   "loop-a",
		"dev/no-dir":   "../nowhere/new",
		"dev/existing": "../prod/old",
	} {
		if err := os.Symlink(target, filepath.Join(root, link)); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(root, "prod", "old"), []byte("old"), 0o644); err != nil {
		t.Fatal(err)
	}
	s := rootsSurface(t, []string{root}, nil)
	for _, c := range []struct{ name, out, want, rule string }{
		{"a dangling link into another directory", "dev/new", real + "/prod/new", ""},
		{"a link to a dangling link", "dev/chain", real + "/prod/new", ""},
		{"an absolute dangling link inside the root", "dev/abs", real + "/prod/abs-target", ""},
		{"a link to an existing file", "dev/existing", real + "/prod/old", ""},
		{"a dangling link out of the root", "dev/escape", "", RuleOutsideRoots},
		{"an absolute dangling link out of the root", "dev/abs-out", "", RuleOutsideRoots},
		{"a loop of links", "dev/loop-a", "", RuleUnusablePath},
		{"a dangling link into a missing directory", "dev/no-dir", "", RuleUnusablePath},
	} {
		t.Run(c.name, func(t *testing.T) {
			got := readOp(t, s, map[string]any{"out": filepath.Join(root, c.out)})
			if c.rule == "" {
				if !got.ok || got.args["out"] != c.want {
					t.Fatalf("%+v; want out %s", got, c.want)
				}
				return
			}
			if got.ok || got.rule != c.rule {
				t.Fatalf("%+v; want %s", got, c.rule)
			}
			if !strings.HasPrefix(got.reason, "out "+short(filepath.Join(root, c.out))+" ") || strings.Contains(got.reason, outside) {
				t.Errorf("the reason should name the caller's path and not the link's target: %s", got.reason)
			}
		})
	}
	if _, err := os.Lstat(filepath.Join(outside, "new")); err == nil {
		t.Fatal("something was written outside")
	}
}

// TestPrivateNeverInsideARoot: New refuses a root that holds, is, or lies
// inside a directory the server keeps private (its state home, the token
// file), naming both, also when the directory does not exist yet or is
// reached through a symlink; a private directory beside the roots is fine.
func TestPrivateNeverInsideARoot(t *testing.T) {
	base, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	root, home := filepath.Join(base, "root"), filepath.Join(base, "home")
	for _, d := range []string{filepath.Join(root, "sub"), filepath.Join(home, "runs")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink(root, filepath.Join(base, "via-link")); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name           string
		roots, private []string
		wantRoot, want string
	}{
		{"the home inside the root", []string{root}, []string{filepath.Join(root, "state")}, root, filepath.Join(root, "state")},
		{"a home not yet made, through a symlink", []string{root}, []string{filepath.Join(base, "via-link", "a", "b")}, root, filepath.Join(root, "a", "b")},
		{"the root is the home", []string{home}, []string{home}, home, home},
		{"the root inside the home", []string{filepath.Join(home, "runs")}, []string{home}, filepath.Join(home, "runs"), home},
		{"the root is /", []string{"/"}, []string{home}, "/", home},
		{"beside the roots", []string{root}, []string{home}, "", ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			reg, _ := NewRegistry(nil)
			_, err := New(reg, &Options{Source: StaticTree(rootsTree()), Roots: c.roots, Private: c.private})
			var in *PrivateInRootError
			if c.want == "" {
				if err != nil {
					t.Fatal(err)
				}
				return
			}
			if !errors.As(err, &in) || in.Root != c.wantRoot || in.Private != c.want {
				t.Fatalf("New: %v; want a PrivateInRootError for %s and %s", err, c.wantRoot, c.want)
			}
			if !strings.Contains(err.Error(), c.wantRoot) || !strings.Contains(err.Error(), c.want) {
				t.Errorf("the error does not name both: %v", err)
			}
		})
	}
}
