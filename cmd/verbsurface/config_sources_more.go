//go:build unix

package main

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"

	"github.com/verbsurface/verbsurface/projector"
	"github.com/verbsurface/verbsurface/projector/fromclap"
	"github.com/verbsurface/verbsurface/projector/fromoptparse"
	"github.com/verbsurface/verbsurface/verbsurface"
)

// SourcesMore are the sources of the parser families added after cobra,
// argparse and click, inline in source: (docs/fronting.md, Source).
type SourcesMore struct {
	// Optparse walks a Python optparse parser, or a command table of
	// them, in process (projector/fromoptparse).
	Optparse *OptparseSource `yaml:"optparse"`
	// Clap is an installed Rust clap program as it is started
	// ([BINARY, ARGS...]): the tree is read from its --help
	// (projector/fromclap).
	Clap []string `yaml:"clap"`
}

// OptparseSource is fromoptparse's target and options in YAML.
type OptparseSource struct {
	// Target is MODULE:OBJECT: a parser, a factory of one, or a command
	// table (pip._internal.commands:commands_dict).
	Target string `yaml:"target"`
	// Command is the table's command factory, called with each name
	// (pip._internal.commands:create_command).
	Command     string   `yaml:"command"`
	PythonPath  []string `yaml:"pythonpath"`
	Python      string   `yaml:"python"`
	Watch       []string `yaml:"watch"`
	StringTypes []string `yaml:"string_types"`
}

// given lists which of these sources the configuration sets, for
// check's exactly-one rule.
func (s SourcesMore) given() []bool {
	return []bool{s.Optparse != nil, s.Clap != nil}
}

// check refuses a source of these that is incomplete.
func (s SourcesMore) check(bad func(key, field, format string, args ...any) error) error {
	if p := s.Optparse; p != nil {
		if !strings.Contains(p.Target, ":") {
			return bad("source", "source.optparse.target", "%q is not MODULE:OBJECT", p.Target)
		}
		if p.Command != "" && !strings.Contains(p.Command, ":") {
			return bad("source", "source.optparse.command", "%q is not MODULE:FUNCTION", p.Command)
		}
	}
	if s.Clap != nil && (len(s.Clap) == 0 || s.Clap[0] == "") {
		return bad("source", "source.clap", "required: the clap program as it is started, as a list ([fdfind] or [/usr/bin/rg])")
	}
	return nil
}

// moreTreeSource is treeSource for these sources; ok is false when the
// configuration uses another one.
func (c *Config) moreTreeSource(watch, env []string) (src verbsurface.TreeSource, ok bool, err error) {
	s := c.Source.More
	switch {
	case s.Optparse != nil:
		p := s.Optparse
		pypath := make([]string, len(p.PythonPath))
		for i, d := range p.PythonPath {
			pypath[i] = c.path(d)
		}
		for _, target := range []string{p.Target, p.Command} {
			if m := moduleFile(strings.SplitN(target, ":", 2)[0], pypath); target != "" && m != "" {
				watch = append(watch, m)
			}
		}
		for _, w := range p.Watch {
			watch = append(watch, c.path(w))
		}
		opts := &fromoptparse.Options{Python: p.Python, PythonPath: pypath, Command: p.Command, StringTypes: p.StringTypes,
			Program: strings.Join(c.Command, " ")}
		load := func(ctx context.Context) (*projector.Tree, error) { return fromoptparse.Walk(ctx, p.Target, opts) }
		return verbsurface.CacheByFile(watch[0], load, watch[1:]...), true, nil
	case s.Clap != nil:
		argv := slices.Clone(s.Clap)
		if strings.Contains(argv[0], "/") {
			argv[0] = c.path(argv[0])
		}
		prog, err := exec.LookPath(argv[0])
		if err != nil {
			return nil, true, &ConfigError{File: c.file, Field: "source.clap", Msg: err.Error()}
		}
		argv[0] = prog
		load := func(ctx context.Context) (*projector.Tree, error) {
			opts := &fromclap.Options{Env: env}
			// Kept in the state directory as a cobra binary's tree is
			// (issue 35, item 5): a restart against an unchanged binary
			// does not run it again.
			if dir, err := tokenDir(c.Name, os.Getenv); err == nil {
				return fromclap.CachedWalk(ctx, argv, opts, filepath.Join(dir, clapCacheFile))
			}
			return fromclap.Walk(ctx, argv, opts)
		}
		return verbsurface.CacheByFile(prog, load, watch...), true, nil
	}
	return nil, false, nil
}

// clapCacheFile is where, in the state directory, a clap binary's walked
// tree is kept.
const clapCacheFile = "clap-tree.json"
