// Package treecache keeps the tree a help reader read from an installed
// program in a private file, and gives it back while the program, the
// reader and what the reader was asked are unchanged (fromcobrabin's and
// fromclap's CachedWalk): a program of two hundred commands is read by
// running it some four times a command, and a server that starts against
// an unchanged binary need not run it at all.
//
// The file is keyed on everything that can change the answer ([Key]): the
// argv as given and the executable it resolves to, that executable's
// identity (device, inode, size, modification and change time), the
// reader's own executable's identity (a new build of the reader may read
// differently), and the reader's options. The change time is set by the
// kernel on every write, rename over and attribute change, and no process
// can set it back, so a binary rewritten in place at the same size with
// its modification time restored is still a change. No content hash:
// hashing a 13 MB binary cost 45 to 65 ms on the 2-core test machine
// under load, half the budget of a cached start, and more for larger
// programs, to catch only what needs the clock or the block device
// (root), who could rewrite the cache as well.
//
// The cache is never trusted across a change: a file whose format, key or
// dialect differs, or that cannot be read, decoded, or is not private (a
// regular file owned by this user, no group or other bits, in a directory
// of the same kind), is absent. A tree is written to a temporary file
// beside the cache file (0600), synced, and renamed over it, so a reader
// sees the old file or the new, never a part. Where the platform does not
// say who owns a file (Windows), nothing is kept.
package treecache

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"

	"github.com/verbsurface/verbsurface/projector"
)

// maxBytes bounds what a cache file may hold (and so what reading one may
// cost): far beyond the tree of any reader's command bound.
const maxBytes = 64 << 20

// Cache is one reader's cache file: its format (a name and version of the
// reader's layout; a file of another format is absent) and the dialect of
// the trees it keeps.
type Cache struct {
	Format  string
	Dialect projector.Dialect
	File    string
}

// Walk returns the tree kept under key, or else walk's, which it keeps
// under key. A failed walk writes nothing; failure to write is not an
// error: the tree is returned all the same. The directory is created 0700
// if missing.
func (c *Cache) Walk(ctx context.Context, key string, walk func(context.Context) (*projector.Tree, error)) (*projector.Tree, error) {
	if t := c.read(key); t != nil {
		return t, nil
	}
	t, err := walk(ctx)
	if err != nil {
		return nil, err
	}
	_ = c.write(key, t)
	return t, nil
}

// Reader is what a help reader's tree depends on besides the program's
// file: the argv as given, the executable it resolves to, the environment
// it runs the program in and its directory, the flags it excludes, and
// fields of its own (the command bound, the paths walked).
type Reader struct {
	Argv    []string
	Exe     string
	Env     []string // order does not matter
	Dir     string
	Exclude []string // order does not matter
	Fields  map[string]any
}

// Key is [Key] of r, under the cache's format.
func (c *Cache) Key(r Reader) (string, error) {
	env, exclude := slices.Clone(r.Env), slices.Clone(r.Exclude)
	slices.Sort(env)
	slices.Sort(exclude)
	if exclude == nil {
		exclude = []string{}
	}
	fields := map[string]any{"env": env, "dir": r.Dir, "exclude": exclude}
	for k, v := range r.Fields {
		fields[k] = v
	}
	return Key(c.Format, r.Argv, r.Exe, fields)
}

// Key is the SHA-256, in hex, of format, the argv as given, the
// executable exe it resolves to and that file's identity, the reader's own
// executable's identity, and fields: the reader's options, each a value
// encoding/json encodes the same way every time (sort a list whose order
// does not matter). It fails when exe's identity cannot be learnt.
func Key(format string, argv []string, exe string, fields map[string]any) (string, error) {
	exe, err := filepath.Abs(exe)
	if err != nil {
		return "", err
	}
	prog, err := fileIdentity(exe)
	if err != nil {
		return "", err
	}
	reader := "unknown"
	if self, err := os.Executable(); err == nil {
		if id, err := fileIdentity(self); err == nil {
			reader = self + " " + id
		}
	}
	all := map[string]any{"format": format, "argv": argv, "exe": exe, "exe_identity": prog, "reader": reader}
	for k, v := range fields {
		if _, taken := all[k]; taken {
			return "", fmt.Errorf("treecache: field %q is the key's own", k)
		}
		all[k] = v
	}
	b, err := json.Marshal(all)
	if err != nil {
		return "", err
	}
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:]), nil
}

// doc is the layout of a cache file.
type doc struct {
	Format string          `json:"format"`
	Key    string          `json:"key"`
	Types  []string        `json:"types"` // of the tree's free-form values (values.go)
	Tree   *projector.Tree `json:"tree"`
}

// read is the tree kept under key, or nil when there is none to trust.
func (c *Cache) read(key string) *projector.Tree {
	if !privateDir(filepath.Dir(c.File)) {
		return nil
	}
	f, err := openPrivate(c.File)
	if err != nil {
		return nil
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, maxBytes+1))
	if err != nil || len(b) > maxBytes {
		return nil
	}
	d, err := c.decode(b)
	if err != nil || d.Key != key {
		return nil
	}
	return d.Tree
}

// decode reads a cache file: of this format, a tree of this dialect,
// every value of the type recorded for it.
func (c *Cache) decode(b []byte) (*doc, error) {
	var d doc
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	if err := dec.Decode(&d); err != nil {
		return nil, err
	}
	if dec.More() {
		return nil, errors.New("more than one value")
	}
	if d.Format != c.Format || d.Tree == nil || d.Tree.Dialect != c.Dialect {
		return nil, errors.New("not a cache of this format")
	}
	for _, cmd := range d.Tree.Commands {
		if cmd == nil {
			return nil, errors.New("a null command")
		}
	}
	if err := retype(d.Tree, d.Types); err != nil {
		return nil, err
	}
	return &d, nil
}

// write keeps t under key: a temporary file beside the cache file,
// synced, renamed over it.
func (c *Cache) write(key string, t *projector.Tree) error {
	dir := filepath.Dir(c.File)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	if !privateDir(dir) {
		return fmt.Errorf("cache directory %s is not private", dir)
	}
	b, err := c.encode(key, t)
	if err != nil {
		return err // not kept: the program is walked next time
	}
	tmp, err := os.CreateTemp(dir, ".cache-*") // 0600
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name()) // once renamed, there is nothing to remove
	if _, err := tmp.Write(b); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Sync(); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), c.File)
}

// Lookup is the tree kept under key, or nil when there is none that can be
// trusted (see Walk).
func (c *Cache) Lookup(key string) *projector.Tree { return c.read(key) }

// Store keeps t under key, as Walk keeps a walk's tree: a reader that
// reads a program's commands one at a time (fromcobrabin's Lister) keeps
// the tree once the last of them is read.
func (c *Cache) Store(key string, t *projector.Tree) error { return c.write(key, t) }
