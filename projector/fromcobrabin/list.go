package fromcobrabin

import (
	"context"
	"fmt"
	"strings"
	"sync"

	"github.com/verbsurface/verbsurface/projector"
	"github.com/verbsurface/verbsurface/projector/internal/treecache"
)

// A Lister reads a program's commands one at a time, on demand: [List]
// reads only what a server needs before its first answer, and
// [Lister.Read] the rest as it is asked for.
//
// Reading every command a front names costs some four program calls a
// command (about 10 s for a program of 200 commands on a 2-core machine,
// however many calls run at once: each call execs the program, which
// builds its whole command tree first). Listing them costs one call per
// parent. A Lister is safe for concurrent use.
type Lister struct {
	start func(ctx context.Context, cancel context.CancelFunc) *walker
	prog  *program // the calls a test counts

	mu       sync.Mutex
	listings map[string]listing
}

// listing is what reading a listed command needs: its summary in its
// parent's listing and its parent's help text (a value that completion
// offers prints its parent's help, and is then no command).
type listing struct {
	summary    string
	parentText string
}

func listKey(path []string) string { return strings.Join(path, "\x00") }

// List is [Walk] of argv limited to opts.Paths that reads only the
// ancestors of the paths (the root and the groups above them): each
// command at a path, and every command below one, is in the tree as its
// parent's listing shows it, Unread (projector.Command.Unread: its Path
// and Summary, no parameters). A path that names no command the program
// lists is not in the tree, as with Walk. Read each Unread command with
// the Lister before anything projects it.
//
// A path with another path below it is read, as an ancestor.
func List(ctx context.Context, argv []string, opts *Options) (*projector.Tree, *Lister, error) {
	var paths [][]string
	if opts != nil {
		paths = opts.Paths
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	w, own, err := start(ctx, cancel, argv, opts, nil)
	if err != nil {
		return nil, nil, err
	}
	w.listOnly, w.listings = true, map[string]listing{}
	root := w.visit(ctx, nil, "", "", own, wanted(paths))
	if err := w.failure(); err != nil {
		return nil, nil, w.fatal(ctx, err)
	}
	// The program, its name and the bounds, for the reads to come.
	prog, name, exclude, max := w.prog, w.root, w.exclude, w.max
	l := &Lister{prog: prog, listings: w.listings, start: func(ctx context.Context, cancel context.CancelFunc) *walker {
		return &walker{prog: prog, argv: argv, exclude: exclude, root: name, max: max,
			cancel: cancel, resolved: map[string]*pending{}}
	}}
	return w.tree(root), l, nil
}

// listed is the Unread node of the command candidate c lists below path,
// whose help text is parentText.
func (w *walker) listed(path []string, c candidate, parentText string) *node {
	p := append(append([]string{}, path...), c.value)
	w.mu.Lock()
	w.listings[listKey(p)] = listing{summary: c.desc, parentText: parentText}
	w.mu.Unlock()
	return &node{cmd: &projector.Command{Path: p, Summary: c.desc, Params: []*projector.Param{}, Unread: true}}
}

// Read reads the command at path, which [List] listed, and every command
// below it, as [Walk] reads them, and returns them parents first (the
// command at path first). It returns no commands and no error when the
// name is no command after all: a value completion offered, or cobra's
// own completion command, which Walk leaves out.
//
// A failure to run the program, a call past its bound or a cancelled ctx
// is an error, and nothing is read; the command stays Unread and can be
// read again.
func (l *Lister) Read(ctx context.Context, path []string) ([]*projector.Command, error) {
	l.mu.Lock()
	li, ok := l.listings[listKey(path)]
	l.mu.Unlock()
	if !ok {
		return nil, fmt.Errorf("fromcobrabin: %q is no command List listed", strings.Join(path, " "))
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	w := l.start(ctx, cancel)
	n := w.visit(ctx, path, li.summary, li.parentText, false, nil)
	if err := w.failure(); err != nil {
		return nil, w.fatal(ctx, err)
	}
	if n == nil || len(path) == 1 && w.cobras(n) {
		return nil, nil
	}
	return w.flatten(n, nil), nil
}

// CachedList is [List] through the cache file [CachedWalk] keeps: while
// the program and the reader are unchanged, the tree a walk or a Lister
// kept there is returned, whole, with no Lister (nothing is left to
// read). Otherwise the tree is listed, and store keeps a tree read to
// the end (no command Unread) under the key the program had when it was
// listed, if it still has it: a program changed while its commands were
// being read is never kept.
func CachedList(ctx context.Context, argv []string, opts *Options, cacheFile string) (t *projector.Tree, l *Lister, store func(*projector.Tree) error, err error) {
	c := &treecache.Cache{Format: cacheFormat, Dialect: projector.DialectPflag, File: cacheFile}
	key, err := cacheKey(c, argv, opts)
	if err != nil {
		t, l, err := List(ctx, argv, opts) // List names what is wrong with argv
		return t, l, func(*projector.Tree) error { return nil }, err
	}
	if t := c.Lookup(key); t != nil {
		return t, nil, func(*projector.Tree) error { return nil }, nil
	}
	t, l, err = List(ctx, argv, opts)
	if err != nil {
		return nil, nil, nil, err
	}
	store = func(t *projector.Tree) error {
		for _, cmd := range t.Commands {
			if cmd.Unread {
				return fmt.Errorf("fromcobrabin: %q is not read yet", strings.Join(cmd.Path, " "))
			}
		}
		if now, err := cacheKey(c, argv, opts); err != nil || now != key {
			return fmt.Errorf("fromcobrabin: %s changed while its commands were read", argv[0])
		}
		return c.Store(key, t)
	}
	return t, l, store, nil
}
