//go:build unix

package dispatch

import (
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// readSnapshot returns a snapshot's content by the key a preparer put in
// the args: through its open file when it has no name (Snapshot), else by
// its name.
func readSnapshot(t *testing.T, key string) (string, os.FileInfo) {
	t.Helper()
	f := Snapshot(key)
	if f == nil {
		var err error
		if f, err = os.Open(key); err != nil {
			t.Fatalf("snapshot %s: %v", key, err)
		}
		defer f.Close()
	}
	st, err := f.Stat()
	if err != nil {
		t.Fatal(err)
	}
	b, err := io.ReadAll(f)
	if err != nil {
		t.Fatal(err)
	}
	return string(b), st
}

func TestFileSnapshots(t *testing.T) {
	dir := t.TempDir()
	spec := filepath.Join(dir, "flow.yaml")
	if err := os.WriteFile(spec, []byte("steps: []\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	fs := FileSnapshots{Param: "spec", Dir: t.TempDir()}
	prepared, info, cleanup, err := fs.Prepare(context.Background(), map[string]any{"spec": spec, "other": 1})
	if err != nil {
		t.Fatal(err)
	}
	snap := prepared["spec"].(string)
	if snap == spec || prepared["other"] != 1 {
		t.Fatalf("prepared %v", prepared)
	}
	b, st := readSnapshot(t, snap)
	if st.Mode().Perm() != 0o600 {
		t.Fatalf("snapshot %s: mode %v", snap, st.Mode())
	}
	if b != "steps: []\n" || info["spec_bytes"] != 10 || len(info["spec_sha256"].(string)) != 64 {
		t.Fatalf("snapshot %q, info %v", b, info)
	}
	if ents, _ := os.ReadDir(fs.Dir); fdNames() && len(ents) != 0 {
		t.Fatalf("a live snapshot has a name in %s: %v (a killed server would leave it)", fs.Dir, ents)
	}
	// A later edit of the caller's file changes nothing.
	os.WriteFile(spec, []byte("changed"), 0o644)
	if b, _ := readSnapshot(t, snap); b != "steps: []\n" {
		t.Fatalf("snapshot changed with the original: %q", b)
	}
	cleanup()
	if _, err := os.Stat(snap); !os.IsNotExist(err) || Snapshot(snap) != nil {
		t.Fatalf("cleanup left %s", snap)
	}
}

func TestFileSnapshotsRefuse(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	big := filepath.Join(dir, "big")
	os.WriteFile(big, []byte(strings.Repeat("a", 2048)), 0o644)
	empty := filepath.Join(dir, "empty")
	os.WriteFile(empty, nil, 0o644)
	fs := FileSnapshots{Param: "spec", MaxBytes: 1024, Dir: t.TempDir()}
	for _, c := range []struct{ path, want string }{
		{fifo, "not a regular file"},
		{"/dev/zero", "not a regular file"},
		{big, "over the 1024-byte limit"},
		{empty, "is empty"},
		{"relative.yaml", "not an absolute path"},
		{dir, "a directory"},
	} {
		_, _, _, err := fs.Prepare(context.Background(), map[string]any{"spec": c.path})
		var pe *PromptError
		if !errors.As(err, &pe) || pe.Param() != "spec" || !strings.Contains(pe.Error(), c.want) {
			t.Errorf("%s: got %v, want a PromptError on spec saying %q", c.path, err, c.want)
		}
	}
	if ents, _ := os.ReadDir(fs.Dir); len(ents) != 0 {
		t.Errorf("refusals left snapshots behind: %v", ents)
	}
}

// TestOpenHookReplacesTheOpenByPath: with Open set, the file read is the
// one the hook hands over, not whatever the path names now.
func TestOpenHookReplacesTheOpenByPath(t *testing.T) {
	dir := t.TempDir()
	checked := filepath.Join(dir, "checked")
	os.WriteFile(checked, []byte("checked content"), 0o644)
	named := filepath.Join(dir, "named")
	os.WriteFile(named, []byte("swapped in"), 0o644)
	open := func(_ context.Context, param, path string) (*os.File, error) {
		if path != named {
			t.Errorf("hook got %s %s", param, path)
		}
		return os.Open(checked)
	}
	_, info, cleanup, err := PromptSnapshots{Dir: t.TempDir(), Open: open}.Prepare(context.Background(), map[string]any{"prompt_file": named})
	if err != nil {
		t.Fatal(err)
	}
	defer cleanup()
	if info["prompt_bytes"] != len("checked content") {
		t.Errorf("prompt read from the path, not the hook's file: %v", info)
	}
	prepared, _, cleanup2, err := FileSnapshots{Param: "spec", Dir: t.TempDir(), Open: open}.Prepare(context.Background(), map[string]any{"spec": named})
	if err != nil {
		t.Fatal(err)
	}
	defer cleanup2()
	if b, _ := readSnapshot(t, prepared["spec"].(string)); b != "checked content" {
		t.Errorf("spec snapshot %q, want the hook's file", b)
	}
}
