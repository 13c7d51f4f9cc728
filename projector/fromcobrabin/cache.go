package fromcobrabin

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
	"strings"

	"github.com/verbsurface/verbsurface/projector"
)

// maxCacheBytes bounds what a cache file may hold (and so what reading
// one may cost): far beyond the tree of Options.MaxCommands commands.
const maxCacheBytes = 64 << 20

// cacheFormat names the layout of a cache file; a file of another format
// is absent.
const cacheFormat = "verbsurface/fromcobrabin/v1"

// CachedWalk is [Walk] with its tree kept in cacheFile: while the program
// and the reader are unchanged, a later CachedWalk (the next start of a
// server) reads the file instead of running the program some four times a
// command.
//
// The file is keyed on everything that can change the answer: the argv as
// given and the executable it resolves to, that executable's identity
// (device, inode, size, modification and change time), the reader's own
// executable's identity (a new build of the reader may read differently),
// the environment, directory, exclusions and command bound of opts. The
// change time is set by the kernel on every write, rename over and
// attribute change, and no process can set it back, so a binary rewritten
// in place at the same size with its modification time restored is still
// a change. No content hash: hashing a 13 MB binary cost 45 to 65 ms on
// the 2-core test machine under load, half the budget of a cached start,
// and more for larger programs, to catch only what needs the clock or the
// block device (root), who could rewrite the cache as well.
//
// The cache is never trusted across a change: a file whose key differs,
// or that cannot be read, decoded, or is not private (a regular file
// owned by this user, no group or other bits, in a directory of the same
// kind), is absent, and the program is walked. A walk's tree is written to
// a temporary file beside cacheFile (0600), synced, and renamed over it,
// so a reader sees the old file or the new, never a part. A failed walk
// writes nothing. Failure to write is not an error: the tree is returned
// all the same. The directory is created 0700 if missing.
func CachedWalk(ctx context.Context, argv []string, opts *Options, cacheFile string) (*projector.Tree, error) {
	key, err := cacheKey(argv, opts)
	if err != nil {
		return Walk(ctx, argv, opts) // Walk names what is wrong with argv
	}
	if t := readCache(cacheFile, key); t != nil {
		return t, nil
	}
	t, err := Walk(ctx, argv, opts)
	if err != nil {
		return nil, err
	}
	_ = writeCache(cacheFile, key, t)
	return t, nil
}

// cacheDoc is the layout of a cache file.
type cacheDoc struct {
	Format string          `json:"format"`
	Key    string          `json:"key"`
	Types  []string        `json:"types"` // of the tree's free-form values (cachevalues.go)
	Tree   *projector.Tree `json:"tree"`
}

// cacheKey is the SHA-256, in hex, of everything the walk's answer
// depends on.
func cacheKey(argv []string, opts *Options) (string, error) {
	if len(argv) == 0 || argv[0] == "" {
		return "", errors.New("no program given")
	}
	if opts == nil {
		opts = &Options{}
	}
	exe, err := lookPath(argv[0])
	if err != nil {
		return "", err
	}
	if exe, err = filepath.Abs(exe); err != nil {
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
	env := opts.Env
	if env == nil {
		env = os.Environ()
	}
	env = environ(env)
	slices.Sort(env)
	exclude := slices.Clone(opts.ExcludeFlags)
	slices.Sort(exclude)
	// The commands walked (Options.Paths): a front that names another verb
	// must not read a tree walked for the old list.
	paths := make([]string, 0, len(opts.Paths))
	for _, p := range opts.Paths {
		paths = append(paths, strings.Join(p, "\x00"))
	}
	slices.Sort(paths)
	b, err := json.Marshal(map[string]any{
		"format":       cacheFormat,
		"argv":         argv,
		"exe":          exe,
		"exe_identity": prog,
		"reader":       reader,
		"env":          env,
		"dir":          opts.Dir,
		"exclude":      exclude,
		"paths":        paths,
		"max_commands": positive(opts.MaxCommands, DefaultMaxCommands),
	})
	if err != nil {
		return "", err
	}
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:]), nil
}

// readCache is the tree kept in path under key, or nil when there is
// none to trust.
func readCache(path, key string) *projector.Tree {
	if !privateDir(filepath.Dir(path)) {
		return nil
	}
	f, err := openPrivate(path)
	if err != nil {
		return nil
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, maxCacheBytes+1))
	if err != nil || len(b) > maxCacheBytes {
		return nil
	}
	c, err := decodeCache(b)
	if err != nil || c.Key != key {
		return nil
	}
	return c.Tree
}

// decodeCache reads a cache file: of this format, a tree of the pflag
// dialect, every value of the type recorded for it.
func decodeCache(b []byte) (*cacheDoc, error) {
	var c cacheDoc
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	if err := dec.Decode(&c); err != nil {
		return nil, err
	}
	if dec.More() {
		return nil, errors.New("more than one value")
	}
	if c.Format != cacheFormat || c.Tree == nil || c.Tree.Dialect != projector.DialectPflag {
		return nil, errors.New("not a cache of this format")
	}
	for _, cmd := range c.Tree.Commands {
		if cmd == nil {
			return nil, errors.New("a null command")
		}
	}
	if err := retype(c.Tree, c.Types); err != nil {
		return nil, err
	}
	return &c, nil
}

// writeCache keeps t in path under key: a temporary file beside it,
// synced, renamed over it.
func writeCache(path, key string, t *projector.Tree) error {
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	if !privateDir(dir) {
		return fmt.Errorf("cache directory %s is not private", dir)
	}
	b, err := encodeCache(key, t)
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
	return os.Rename(tmp.Name(), path)
}
