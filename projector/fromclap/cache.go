package fromclap

import (
	"context"
	"errors"
	"os"
	"slices"

	"github.com/verbsurface/verbsurface/projector"
	"github.com/verbsurface/verbsurface/projector/internal/helprun"
	"github.com/verbsurface/verbsurface/projector/internal/treecache"
)

// cacheFormat names the layout of a cache file; a file of another format
// is absent.
const cacheFormat = "verbsurface/fromclap/v1"

// CachedWalk is [Walk] with its tree kept in cacheFile, as
// fromcobrabin.CachedWalk keeps a cobra program's (the same code, package
// projector/internal/treecache): while the program, the reader and opts
// are unchanged, a later CachedWalk (the next start of a server) reads
// the file instead of running the program once a command.
//
// The file is keyed on the argv as given and the executable it resolves
// to, that executable's identity (device, inode, size, modification and
// change time), the reader's own executable's identity, and the
// environment, directory, exclusions and command bound of opts (a clap
// walk reads every command, so the bound is what says which). A file
// whose key differs, or that cannot be read, decoded, or is not private
// (a regular file owned by this user, no group or other bits, in a
// directory of the same kind), is absent, and the program is walked. A
// walk's tree is written to a temporary file beside cacheFile (0600) and
// renamed over it; a failed walk writes nothing, and failure to write is
// not an error. The directory is created 0700 if missing.
func CachedWalk(ctx context.Context, argv []string, opts *Options, cacheFile string) (*projector.Tree, error) {
	walk := func(ctx context.Context) (*projector.Tree, error) { return Walk(ctx, argv, opts) }
	key, err := cacheKey(argv, opts)
	if err != nil {
		return walk(ctx) // Walk names what is wrong with argv
	}
	c := &treecache.Cache{Format: cacheFormat, Dialect: projector.DialectClap, File: cacheFile}
	return c.Walk(ctx, key, walk)
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
	resolved, err := helprun.Resolve(argv)
	if err != nil {
		return "", err
	}
	env := opts.Env
	if env == nil {
		env = os.Environ()
	}
	env = helprun.Environ(env)
	slices.Sort(env)
	exclude := slices.Clone(opts.ExcludeFlags)
	slices.Sort(exclude)
	return treecache.Key(cacheFormat, argv, resolved[0], map[string]any{
		"env":          env,
		"dir":          opts.Dir,
		"exclude":      exclude,
		"max_commands": positive(opts.MaxCommands, DefaultMaxCommands),
	})
}
