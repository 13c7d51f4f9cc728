//go:build unix

package verbsurface

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/verbsurface/verbsurface/projector"
)

// TestRootLinks: with a verb that hands the program a directory, the
// links under the roots that leave them are reported (relative, absolute,
// dangling, into /proc), those that stay inside are not, a link is never
// followed into, and the walk stops at its depth bound saying so. Without
// such a verb, or without roots, nothing is walked.
func TestRootLinks(t *testing.T) {
	base, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	root, other, outside := filepath.Join(base, "root"), filepath.Join(base, "other"), filepath.Join(base, "outside")
	for _, d := range []string{filepath.Join(root, "proj", "sub"), other, filepath.Join(outside, "tree")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(outside, "secret.txt"), []byte("SECRET"), 0o600); err != nil {
		t.Fatal(err)
	}
	links := map[string]string{
		"proj/notes.txt":   "../../outside/secret.txt",
		"proj/sub/abs":     filepath.Join(outside, "secret.txt"),
		"proj/gone":        "../../outside/not-yet",
		"proj/env":         "/proc/self/environ",
		"proj/inside":      "sub",
		"proj/other-root":  "../../other",
		"proj/outside-dir": "../../outside/tree", // not walked into
	}
	for l, target := range links {
		if err := os.Symlink(target, filepath.Join(root, l)); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink("../secret.txt", filepath.Join(outside, "tree", "deeper")); err != nil {
		t.Fatal(err)
	}
	dirVerb := map[string]projector.PathUse{"plain": projector.PathUseReadOrDir}
	scan := rootsSurface(t, []string{root, other}, dirVerb).RootLinks(context.Background())
	if scan == nil || scan.Truncated || scan.More != 0 || len(scan.Verbs) != 1 || scan.Verbs[0] != "file.read" {
		t.Fatalf("scan %+v", scan)
	}
	got := map[string]string{}
	for _, l := range scan.Links {
		got[strings.TrimPrefix(l.Path, root+"/")] = l.Target
	}
	want := map[string]string{
		"proj/notes.txt":   filepath.Join(outside, "secret.txt"),
		"proj/sub/abs":     filepath.Join(outside, "secret.txt"),
		"proj/gone":        filepath.Join(outside, "not-yet"),
		"proj/env":         "/proc/self/environ",
		"proj/outside-dir": filepath.Join(outside, "tree"),
	}
	if len(got) != len(want) {
		t.Errorf("links %v; want %v", got, want)
	}
	for l, target := range want {
		if !strings.HasPrefix(got[l], target) && !(l == "proj/env" && strings.HasPrefix(got[l], "/proc/")) {
			t.Errorf("%s: target %q, want %q", l, got[l], target)
		}
	}

	if scan := rootsSurface(t, []string{root}, nil).RootLinks(context.Background()); scan == nil {
		t.Error("the dir parameter of rootsTree's command takes a directory: want a scan")
	}
	noDir := map[string]projector.PathUse{"dir": projector.PathUseNone}
	if scan := rootsSurface(t, []string{root}, noDir).RootLinks(context.Background()); scan != nil {
		t.Errorf("no verb takes a directory, yet %+v", scan)
	}
	if scan := rootsSurface(t, nil, dirVerb).RootLinks(context.Background()); scan != nil {
		t.Errorf("no roots, yet %+v", scan)
	}

	deep := root
	for range RootLinksMaxDepth + 1 {
		deep = filepath.Join(deep, "d")
	}
	if err := os.MkdirAll(deep, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, filepath.Join(deep, "too-deep")); err != nil {
		t.Fatal(err)
	}
	scan = rootsSurface(t, []string{root}, dirVerb).RootLinks(context.Background())
	if !scan.Truncated {
		t.Errorf("a tree deeper than %d: not truncated", RootLinksMaxDepth)
	}
	for _, l := range scan.Links {
		if strings.HasSuffix(l.Path, "too-deep") {
			t.Errorf("found %s below the depth bound", l.Path)
		}
	}
}
