package verbsurface

import (
	"context"
	"errors"
	"fmt"
	"os"
	"sync"

	"github.com/verbsurface/verbsurface/projector"
)

// TreeSource supplies the CLI's parser tree, live: the surface asks for it
// on every request that needs a schema (once per request), and projects
// from what it returns. For a cobra CLI in the same binary it walks the
// command tree in-process (projector/fromcobra); for an external CLI it
// asks the CLI, typically wrapped in [CacheByFile].
//
// The surface caches projections keyed on the content of each command the
// tree returns, so a source that returns a changed tree gets changed
// schemas and fingerprints on the very next request. A source must not
// change a tree, or any command in it, once it has returned it: requests
// read it concurrently, and the cache knows a command it has already
// projected by its identity before it looks at its content. To change the
// parser, return a new tree; the commands it shares with the old one (the
// same *projector.Command) are not projected again.
type TreeSource func(ctx context.Context) (*projector.Tree, error)

// StaticTree returns a source that always returns t. Use it for a tree
// walked once from a cobra command tree compiled into the same binary:
// that tree cannot change while the process runs (dynamic injection, such
// as playbooks, goes through [Dynamic] and is resolved per call).
func StaticTree(t *projector.Tree) TreeSource {
	return func(context.Context) (*projector.Tree, error) { return t, nil }
}

// ExecutableTree returns a source for a tree that describes the executable
// file exe and is not re-read from it: a cobra tree walked in-process from
// the command tree compiled into the binary that will be run (exe is that
// binary, usually os.Executable()). It records exe's size and modification
// time now; once the file changes (the binary was rebuilt or replaced),
// the source fails, so every verb becomes unavailable_verb saying to
// restart the server, instead of serving the old schemas to a binary that
// may parse differently. Prefer it to [StaticTree] whenever the tree is
// tied to a file on disk. It fails only when exe cannot be read.
func ExecutableTree(t *projector.Tree, exe string) (TreeSource, error) {
	fi, err := os.Stat(exe)
	if err != nil {
		return nil, fmt.Errorf("verbsurface: ExecutableTree: %w", err)
	}
	want := keyOf(fi)
	return func(context.Context) (*projector.Tree, error) {
		fi, err := os.Stat(exe)
		if err != nil {
			return nil, fmt.Errorf("the CLI executable %s: %w", exe, err)
		}
		if keyOf(fi) != want {
			return nil, fmt.Errorf("the CLI executable %s changed on disk since this server started, so its schemas may be stale; restart the server", exe)
		}
		return t, nil
	}, nil
}

// CacheByFile wraps load so that it runs again only when the file at path
// (the external CLI's executable) changes: the cache key is the file's
// path, size, modification time and inode (where the platform has one:
// Unix; elsewhere the inode counts as 0), everything that can change the
// answer short of rewriting a file in place within the clock's resolution
// and at the same size. The inode catches an upgrade that installs a new
// file over the old one by rename — as package managers do — while
// keeping the old size and modification time (a build that fixes the
// mtime for reproducibility). A failed load is not cached. The wrapper is
// safe for concurrent use.
//
// One load runs at a time for a key: requests that find the files changed
// while a load for the same key is under way wait for it and share its
// tree or its error, instead of each reading the CLI again (a changed
// cobra binary, read by eight requests at once, was walked up to eight
// times). A waiter whose own ctx ends stops waiting; one whose leader was
// cancelled (its client went away) loads in its place.
//
// Key it on the file whose change changes the parser: for a Python CLI
// whose parser lives in an imported module, that module's source, not the
// python3 interpreter; name every such file in more (the key is then all
// of them together), since a change to any of them reloads the tree.
func CacheByFile(path string, load TreeSource, more ...string) TreeSource {
	var (
		mu     sync.Mutex
		key    string
		cache  *projector.Tree
		flight *treeFlight // the load under way, if any
	)
	return func(ctx context.Context) (*projector.Tree, error) {
		k, err := filesKey(append([]string{path}, more...))
		if err != nil {
			return nil, err
		}
		for {
			mu.Lock()
			if cache != nil && k == key {
				t := cache
				mu.Unlock()
				return t, nil
			}
			if f := flight; f != nil && f.key == k {
				mu.Unlock()
				select {
				case <-f.done:
				case <-ctx.Done():
					return nil, ctx.Err()
				}
				if f.err != nil && f.cancelled {
					continue // the leader's caller went away, not the load's fault
				}
				return f.tree, f.err
			}
			f := &treeFlight{key: k, done: make(chan struct{})}
			flight = f
			mu.Unlock()
			return f.run(ctx, load, func(t *projector.Tree, err error) {
				mu.Lock()
				defer mu.Unlock()
				if err == nil {
					key, cache = k, t
				}
				if flight == f {
					flight = nil
				}
			})
		}
	}
}

// treeFlight is one load of [CacheByFile] under way, for the requests that
// wait for it.
type treeFlight struct {
	key       string
	done      chan struct{} // closed once tree and err are set
	tree      *projector.Tree
	err       error
	cancelled bool // the leader's ctx had ended when the load returned
}

// run loads as the flight's leader, lets finish record the result, and
// then releases the waiters, even if load panics (they then load again).
func (f *treeFlight) run(ctx context.Context, load TreeSource, finish func(*projector.Tree, error)) (t *projector.Tree, err error) {
	err = errors.New("the tree source panicked")
	f.cancelled = true // what a waiter does if load panics: load itself
	defer func() {
		finish(t, err)
		f.tree, f.err = t, err
		close(f.done)
	}()
	t, err = load(ctx)
	f.cancelled = ctx.Err() != nil
	return t, err
}

type fileKey struct {
	size  int64
	mtime int64  // nanoseconds since the epoch
	inode uint64 // 0 where the platform has none (fileInode)
}

func keyOf(fi os.FileInfo) fileKey {
	return fileKey{size: fi.Size(), mtime: fi.ModTime().UnixNano(), inode: fileInode(fi)}
}

// filesKey is the size, modification time and inode of every file in
// paths.
func filesKey(paths []string) (string, error) {
	var b []byte
	for _, p := range paths {
		fi, err := os.Stat(p)
		if err != nil {
			return "", fmt.Errorf("verbsurface: CLI file %s: %w", p, err)
		}
		k := keyOf(fi)
		b = fmt.Appendf(b, "%d:%d:%d;", k.size, k.mtime, k.inode)
	}
	return string(b), nil
}
