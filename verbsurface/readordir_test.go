//go:build unix

package verbsurface

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/verbsurface/verbsurface/projector"
)

// read_or_dir: a regular file or a directory inside a root, nothing else,
// and nothing outside; the real path is what runs.
func TestConfineReadOrDir(t *testing.T) {
	base := t.TempDir()
	root, outside := filepath.Join(base, "root"), filepath.Join(base, "outside")
	for _, d := range []string{filepath.Join(root, "sub"), outside} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(root, "a.yaml"), []byte("x: 1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(filepath.Join(root, "fifo"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, filepath.Join(root, "out")); err != nil {
		t.Fatal(err)
	}
	real, err := filepath.EvalSymlinks(root)
	if err != nil {
		t.Fatal(err)
	}
	s := rootsSurface(t, []string{root}, map[string]projector.PathUse{"plain": projector.PathUseReadOrDir})
	for _, tt := range []struct {
		name, path, rule string
	}{
		{"a file", filepath.Join(root, "a.yaml"), ""},
		{"a directory", filepath.Join(root, "sub"), ""},
		{"the root itself", root, ""},
		{"a FIFO", filepath.Join(root, "fifo"), RuleUnusablePath},
		{"a directory outside through a symlink", filepath.Join(root, "out"), RuleOutsideRoots},
		{"outside", outside, RuleOutsideRoots},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got := readOp(t, s, map[string]any{"plain": tt.path})
			if tt.rule == "" {
				if !got.ok || !strings.HasPrefix(got.args["plain"].(string), real) {
					t.Fatalf("%+v", got)
				}
				return
			}
			if got.ok || got.rule != tt.rule {
				t.Fatalf("%+v; want %s", got, tt.rule)
			}
		})
	}
}
