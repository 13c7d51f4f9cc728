//go:build unix

package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"

	"github.com/verbsurface/verbsurface/projector"
	"github.com/verbsurface/verbsurface/verbsurface"
)

// The tree source's errors reach the caller as the reason a verb is
// unavailable, and they are Go's and the readers' words about the
// server's files: "verbsurface: CLI file /opt/x/bin/tool: stat …" for a
// moved binary, "fork/exec /usr/bin/codespell: argument list too long".
// A caller learns nothing it can act on from the server's paths or
// package names, and limcp mcp scrubs them (examples/limcp's
// internal/server/scrub.go); so does the YAML front, on what a client
// sees. The operator's log (stderr) keeps the error as it was.

// pathWords finds an absolute path where a message can hold one: at the
// start, or after a space, a quote, '=', '(' or '['.
var pathWords = regexp.MustCompile(`(^|[\s"'=(\[])(/[^\s"':,;()\[\]]+)`)

// goPrefixes are the voices of the server's Go packages in an error.
var goPrefixes = regexp.MustCompile(`\b(fromcobrabin|fromcobra|fromargparse|fromclick|fromoptparse|fromclap|pywalk|projector|verbsurface|dispatch): |fork/exec `)

// treeScrubber rewrites the server's paths in a message: the ones it knows
// (the CLI's executable and files, the configuration's directory, the
// working directory, $TMPDIR) by name, any other absolute path by its
// file name; and drops Go package prefixes.
type treeScrubber struct {
	known *strings.Replacer
}

// newTreeScrubber knows each path of names by the name given; a path that
// is a symbolic link is known by its target too.
func newTreeScrubber(names map[string]string) *treeScrubber {
	type pair struct{ old, new string }
	var ps []pair
	for p, name := range names {
		if p == "" || p == "/" || p == "." {
			continue
		}
		ps = append(ps, pair{p, name})
		if real, err := filepath.EvalSymlinks(p); err == nil && real != p {
			ps = append(ps, pair{real, name})
		}
	}
	// Longest first, so a file under a known directory is named by the
	// file, not by the directory and the rest.
	slices.SortFunc(ps, func(a, b pair) int {
		if d := len(b.old) - len(a.old); d != 0 {
			return d
		}
		return strings.Compare(a.old, b.old)
	})
	var args []string
	for _, p := range ps {
		args = append(args, p.old, p.new)
	}
	return &treeScrubber{known: strings.NewReplacer(args...)}
}

// words is msg as a client may read it.
func (s *treeScrubber) words(msg string) string {
	msg = goPrefixes.ReplaceAllString(msg, "")
	msg = s.known.Replace(msg)
	return pathWords.ReplaceAllStringFunc(msg, func(m string) string {
		i := strings.IndexByte(m, '/')
		return m[:i] + filepath.Base(m[i:])
	})
}

// scrubbedTreeError is a tree source's error in a client's words; errors.Is
// and As still reach the original.
type scrubbedTreeError struct {
	orig error
	msg  string
}

func (e *scrubbedTreeError) Error() string { return e.msg }
func (e *scrubbedTreeError) Unwrap() error { return e.orig }

// scrubbedSource is src whose errors are scrubbed by s; each error is
// written to log as it was, once while it stays the same.
func scrubbedSource(src verbsurface.TreeSource, s *treeScrubber, log io.Writer) verbsurface.TreeSource {
	var mu sync.Mutex
	last := ""
	return func(ctx context.Context) (*projector.Tree, error) {
		t, err := src(ctx)
		if err == nil {
			return t, nil
		}
		msg := err.Error()
		mu.Lock()
		if msg != last {
			last = msg
			fmt.Fprintf(log, "verbsurface: the CLI's parser could not be read: %s\n", msg)
		}
		mu.Unlock()
		return nil, &scrubbedTreeError{orig: err, msg: s.words(msg)}
	}
}

// treeScrubberOf knows the paths of cfg's CLI: its executable exe, the
// files its command and source name, the configuration's directory, the
// working directory and $TMPDIR.
func treeScrubberOf(cfg *Config, exe string) *treeScrubber {
	names := map[string]string{exe: filepath.Base(exe)}
	files := cfg.resolvedCommand()[1:]
	if s := cfg.Source; s.Cobra != nil {
		files = append(files, cfg.path(s.Cobra[0]))
	} else if len(s.TreeCommand) > 0 {
		files = append(files, s.TreeCommand[0])
	} else if s.TreeFile != "" {
		files = append(files, cfg.path(s.TreeFile))
	}
	for _, f := range files {
		if filepath.IsAbs(f) {
			names[f] = filepath.Base(f)
		}
	}
	if cfg.dir != "" {
		names[cfg.dir] = "."
	}
	if wd, err := os.Getwd(); err == nil {
		names[wd] = "."
	}
	names[filepath.Clean(os.TempDir())] = "$TMPDIR"
	return newTreeScrubber(names)
}
