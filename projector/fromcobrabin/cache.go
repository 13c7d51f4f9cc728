package fromcobrabin

import (
	"context"
	"errors"
	"os"
	"slices"
	"strings"

	"github.com/verbsurface/verbsurface/projector"
	"github.com/verbsurface/verbsurface/projector/internal/treecache"
)

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
	walk := func(ctx context.Context) (*projector.Tree, error) { return Walk(ctx, argv, opts) }
	c := &treecache.Cache{Format: cacheFormat, Dialect: projector.DialectPflag, File: cacheFile}
	key, err := cacheKey(c, argv, opts)
	if err != nil {
		return walk(ctx) // Walk names what is wrong with argv
	}
	return c.Walk(ctx, key, walk)
}

// cacheKey is the SHA-256, in hex, of everything the walk's answer
// depends on.
func cacheKey(c *treecache.Cache, argv []string, opts *Options) (string, error) {
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
	env := opts.Env
	if env == nil {
		env = os.Environ()
	}
	// The commands walked (Options.Paths): a front that names another verb
	// must not read a tree walked for the old list.
	paths := make([]string, 0, len(opts.Paths))
	for _, p := range opts.Paths {
		paths = append(paths, strings.Join(p, "\x00"))
	}
	slices.Sort(paths)
	return c.Key(treecache.Reader{Argv: argv, Exe: exe, Env: environ(env), Dir: opts.Dir, Exclude: opts.ExcludeFlags,
		Fields: map[string]any{"paths": paths, "max_commands": positive(opts.MaxCommands, DefaultMaxCommands)}})
}
