package fromclap

import (
	"context"
	"os"

	"github.com/verbsurface/verbsurface/projector"
	"github.com/verbsurface/verbsurface/projector/internal/helprun"
	"github.com/verbsurface/verbsurface/projector/internal/treecache"
)

// CachedWalk is [Walk] with its tree kept in cacheFile, by the code and
// the rules of fromcobrabin.CachedWalk (package
// projector/internal/treecache): while the program, the reader and opts
// are unchanged, a later CachedWalk (the next start of a server) reads
// the file instead of running the program once a command. The key is the
// argv, the executable's identity (device, inode, size, modification and
// change time), the reader's own, and the environment, directory,
// exclusions and command bound of opts (a clap walk reads every command:
// the bound says which). A file that does not match, cannot be decoded or
// is not private is absent; a failed walk writes nothing.
func CachedWalk(ctx context.Context, argv []string, opts *Options, cacheFile string) (*projector.Tree, error) {
	walk := func(ctx context.Context) (*projector.Tree, error) { return Walk(ctx, argv, opts) }
	if opts == nil {
		opts = &Options{}
	}
	resolved, err := helprun.Resolve(argv)
	if err != nil {
		return walk(ctx) // Walk names what is wrong with argv
	}
	env := opts.Env
	if env == nil {
		env = os.Environ()
	}
	c := &treecache.Cache{Format: "verbsurface/fromclap/v1", Dialect: projector.DialectClap, File: cacheFile}
	key, err := c.Key(treecache.Reader{Argv: argv, Exe: resolved[0], Env: helprun.Environ(env), Dir: opts.Dir, Exclude: opts.ExcludeFlags,
		Fields: map[string]any{"max_commands": positive(opts.MaxCommands, DefaultMaxCommands)}})
	if err != nil {
		return walk(ctx)
	}
	return c.Walk(ctx, key, walk)
}
