//go:build unix

package verbsurface

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
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
	s := rootsSurface(t, []string{root}, nil)
	for _, c := range []struct {
		name string
		args map[string]any
	}{
		{"read through a hard link to a file outside", map[string]any{"file": filepath.Join(root, "linked-secret")}},
		{"write over a hard link to a file outside", map[string]any{"out": filepath.Join(root, "linked-secret")}},
		{"read a file whose two names are both inside", map[string]any{"file": filepath.Join(root, "b.txt")}},
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
