package verbsurface

import (
	"context"
	"os"
	"path/filepath"
	"sort"

	"github.com/verbsurface/verbsurface/projector"
)

// Bounds of [Surface.RootLinks]'s walk: it looks at no more than
// RootLinksMaxEntries directory entries, no deeper than RootLinksMaxDepth
// directories below a root, and lists at most RootLinksMaxListed links.
const (
	RootLinksMaxEntries = 20000
	RootLinksMaxDepth   = 16
	RootLinksMaxListed  = 10
)

// RootLink is a symbolic link under a root whose target lies outside every
// root (or in /proc or /sys).
type RootLink struct {
	// Path is the link, Target where it leads (resolved as far as it
	// exists).
	Path, Target string
}

// RootLinkScan is what [Surface.RootLinks] found.
type RootLinkScan struct {
	// Verbs are the offered verbs that hand a program a directory (a dir
	// or read_or_dir parameter), sorted.
	Verbs []string
	// Links are the links found, at most RootLinksMaxListed, in walk
	// order (shallow first); More counts the others.
	Links []RootLink
	More  int
	// Truncated says the walk stopped at its bounds (entries or depth):
	// links beyond were not looked for.
	Truncated bool
}

// RootLinks looks for what confinement cannot stop: a verb that takes a
// directory (a dir or read_or_dir parameter: a linter's FILE_OR_DIR, a
// working directory) hands the program a real path inside a root, and the
// program then follows any symbolic link it meets under it, wherever the
// link leads. RootLinks walks the roots, breadth first and bounded (see
// RootLinksMaxEntries), and reports the links whose targets leave every
// root, so a front can warn its operator at start. It returns nil when
// no offered verb takes a directory, or there are no roots. It follows no
// link and reads no file; it does not look at hard links (a directory's
// file with two names is read by the program too: see AllowHardLinks).
func (s *Surface) RootLinks(ctx context.Context) *RootLinkScan {
	if len(s.roots) == 0 {
		return nil
	}
	scan := &RootLinkScan{}
	for _, vf := range s.FileParams(ctx) {
		for _, use := range vf.Paths {
			if use == projector.PathUseDir || use == projector.PathUseReadOrDir {
				scan.Verbs = append(scan.Verbs, vf.Verb)
				break
			}
		}
	}
	if len(scan.Verbs) == 0 {
		return nil
	}
	sort.Strings(scan.Verbs)
	type dir struct {
		path  string
		depth int
	}
	var queue []dir
	for _, r := range s.roots {
		queue = append(queue, dir{r, 0})
	}
	entries := 0
	for len(queue) > 0 && ctx.Err() == nil {
		d := queue[0]
		queue = queue[1:]
		list, err := os.ReadDir(d.path)
		if err != nil {
			continue // unreadable to the server: to the program too, as the same user
		}
		for _, e := range list {
			if entries == RootLinksMaxEntries {
				scan.Truncated = true
				return scan
			}
			entries++
			p := filepath.Join(d.path, e.Name())
			switch {
			case e.Type()&os.ModeSymlink != 0:
				if target, ok := s.leavesRoots(p); ok {
					if len(scan.Links) < RootLinksMaxListed {
						scan.Links = append(scan.Links, RootLink{Path: p, Target: target})
					} else {
						scan.More++
					}
				}
			case e.IsDir() && !inPseudo(p):
				if d.depth+1 > RootLinksMaxDepth {
					scan.Truncated = true
					continue
				}
				queue = append(queue, dir{p, d.depth + 1})
			}
		}
	}
	return scan
}

// leavesRoots reports whether the link at path leads outside every root,
// and where: its target resolved as far as it exists (a dangling link
// counts by where its target would be).
func (s *Surface) leavesRoots(path string) (string, bool) {
	target, err := filepath.EvalSymlinks(path)
	if err != nil {
		t, err := os.Readlink(path)
		if err != nil {
			return "", false
		}
		if !filepath.IsAbs(t) {
			t = filepath.Join(filepath.Dir(path), t)
		}
		target = realPathOf(t)
	}
	if inPseudo(target) {
		return target, true
	}
	for _, r := range s.roots {
		if within(target, r) {
			return "", false
		}
	}
	return target, true
}
