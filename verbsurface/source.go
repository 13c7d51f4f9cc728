package verbsurface

import (
	"context"
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
// schemas and fingerprints on the very next request.
type TreeSource func(ctx context.Context) (*projector.Tree, error)

// StaticTree returns a source that always returns t. Use it for a tree
// walked once from a cobra command tree compiled into the same binary:
// that tree cannot change while the process runs (dynamic injection, such
// as playbooks, goes through [Dynamic] and is resolved per call).
func StaticTree(t *projector.Tree) TreeSource {
	return func(context.Context) (*projector.Tree, error) { return t, nil }
}

// CacheByFile wraps load so that it runs again only when the file at path
// (the external CLI's executable) changes: the cache key is the file's
// path, size and modification time, everything that can change the answer
// short of rewriting a file in place within the clock's resolution and at
// the same size. A failed load is not cached. The wrapper is safe for
// concurrent use.
func CacheByFile(path string, load TreeSource) TreeSource {
	var (
		mu    sync.Mutex
		key   fileKey
		cache *projector.Tree
	)
	return func(ctx context.Context) (*projector.Tree, error) {
		fi, err := os.Stat(path)
		if err != nil {
			return nil, fmt.Errorf("verbsurface: CLI executable %s: %w", path, err)
		}
		k := fileKey{size: fi.Size(), mtime: fi.ModTime().UnixNano()}
		mu.Lock()
		if cache != nil && k == key {
			t := cache
			mu.Unlock()
			return t, nil
		}
		mu.Unlock()
		t, err := load(ctx)
		if err != nil {
			return nil, err
		}
		mu.Lock()
		key, cache = k, t
		mu.Unlock()
		return t, nil
	}
}

type fileKey struct {
	size  int64
	mtime int64 // nanoseconds since the epoch
}
