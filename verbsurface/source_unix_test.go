//go:build unix

package verbsurface

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/verbsurface/verbsurface/projector"
)

// An upgrade that renames a new file over the old one, keeping its size
// and modification time, is a change: the inode keys it.
func TestCacheByFileInode(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "cli")
	stamp := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	install := func(content string) {
		t.Helper()
		tmp := filepath.Join(dir, "cli.new")
		if err := os.WriteFile(tmp, []byte(content), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.Chtimes(tmp, stamp, stamp); err != nil {
			t.Fatal(err)
		}
		if err := os.Rename(tmp, path); err != nil {
			t.Fatal(err)
		}
	}
	install("v1")
	loads := 0
	src := CacheByFile(path, func(context.Context) (*projector.Tree, error) {
		loads++
		return &projector.Tree{Program: "cli", Dialect: projector.DialectPflag}, nil
	})
	if _, err := src(context.Background()); err != nil || loads != 1 {
		t.Fatalf("loads %d (%v)", loads, err)
	}
	install("v2") // same size, same mtime, another file
	if _, err := src(context.Background()); err != nil || loads != 2 {
		t.Errorf("loads %d after a same-size, same-mtime upgrade by rename (%v)", loads, err)
	}
	if _, err := src(context.Background()); err != nil || loads != 2 {
		t.Errorf("loads %d for an unchanged file", loads)
	}

	exe := filepath.Join(dir, "cli")
	ts, err := ExecutableTree(&projector.Tree{Program: "cli"}, exe)
	if err != nil {
		t.Fatal(err)
	}
	install("v3")
	if _, err := ts(context.Background()); err == nil {
		t.Error("ExecutableTree served a tree for a binary replaced by rename")
	}
}
