//go:build unix

package main

import (
	"context"
	"fmt"
	"maps"
	"path/filepath"
	"slices"
	"strings"

	"github.com/verbsurface/verbsurface/projector"
	"github.com/verbsurface/verbsurface/verbsurface"
)

// Warning is something check and serve say about a configuration that
// does not stop it: a parameter that looks like a path but is not
// confined. It names the file, the verb's line and field, the verb and the
// parameter.
type Warning struct {
	File  string
	Line  int
	Field string
	Verb  string
	Param string
	Msg   string
}

func (w *Warning) String() string {
	return fmt.Sprintf("%s:%d: %s (%s): warning: %s", w.File, w.Line, w.Field, w.Verb, w.Msg)
}

// lint checks what only the CLI's tree can tell about the configuration,
// and returns the mistakes (each a *ConfigError naming the file, line and
// field) and the warnings. A mistake stops check and serve, whatever
// --tolerate-unavailable says: a misspelt exclude: or files: name would
// leave a parameter open that the operator meant to close. The rules, in
// this order:
//
//  1. Every top-level exclude: name is a parameter (by schema name or
//     option string) of some command of the tree (it applies to all).
//  2. Per verb, every exclude: name is a parameter of its command.
//  3. Every files: name is the schema name of a parameter of the verb's
//     command that a caller can set (not excluded).
//  4. Every constraints: and fixed: name is a parameter of the verb's
//     command (its stated positionals, when it states them) that the
//     verb's exclude: leaves.
//  5. stored_command: param is such a parameter; each allow: path is a
//     runnable command.
//  6. A verb whose parameters include paths (marked by the adapter or in
//     files:) and whose cwd: is configured runs in a directory inside a
//     root: a path a caller gives is absolute and confined, but the CLI
//     also reads its own files relative to where it runs (a linter's
//     .yamllint), and those must be files the operator shared.
//  7. Warning: a string parameter a verb offers that looks like a path
//     (projector.LooksLikePath: name or metavar such as file, path, dir,
//     output, config, FILE) and is neither marked nor excluded.
//  7. Warning: a symbolic link under a root that leaves the roots, when a
//     verb takes a directory (dir, read_or_dir): the program follows it.
//     The walk is bounded (verbsurface.RootLinks).
//
// A tree that cannot be read is no finding here: the verbs' own
// projections report it.
func (f *front) lint(ctx context.Context) ([]error, []*Warning) {
	return f.lintTree(ctx, true)
}

// lintTree is lint; whole says the tree is the whole tree the verbs may
// name, so that a top-level exclude: name on none of its commands is a
// mistake. Commands not read yet (projector.Command.Unread: read on
// demand) are not checked: their verbs are, when they are read
// (front.gateRead).
func (f *front) lintTree(ctx context.Context, whole bool) ([]error, []*Warning) {
	raw, err := f.raw(ctx)
	if err != nil {
		return nil, nil
	}
	t, err := f.source(ctx)
	if err != nil {
		return nil, nil
	}
	cfg := f.cfg
	var errs []error
	verbErr := func(i int, key, format string, args ...any) {
		errs = append(errs, &ConfigError{verb: cfg.Verbs[i].Name, File: cfg.file, Line: cfg.Verbs[i].keyLine(key), Field: fmt.Sprintf("verbs[%d].%s", i, key),
			Msg: fmt.Sprintf(format, args...)})
	}
	name := func(c *projector.Command) string {
		if len(c.Path) == 0 {
			return raw.Program + " (the root command)"
		}
		return fmt.Sprintf("%q", strings.Join(c.Path, " "))
	}

	// 1. The top-level exclude: applies to the whole tree (an option of
	// the root parser, --home, is excluded there), so it is checked on
	// the raw tree, where the parameters still are.
	for _, n := range cfg.Exclude {
		if !whole || len(raw.Unread()) > 0 {
			break // followed as commands are read (front.checkExcludes)
		}
		found := false
		for _, c := range raw.Commands {
			found = found || slices.ContainsFunc(c.Params, func(p *projector.Param) bool { return p.Named(n) })
		}
		if !found {
			errs = append(errs, &ConfigError{File: cfg.file, Line: cfg.lineOf("exclude"), Field: "exclude",
				Msg: fmt.Sprintf("%q names no parameter of any command of %s (a schema name such as home, or an option such as --home)", n, raw.Program)})
		}
	}

	for i, v := range cfg.Verbs {
		cmd := t.Find(v.Path...)
		if cmd == nil || cmd.Unread {
			continue // check lists the verb: no such command; or it is checked once read
		}
		// What the verb states of the command's positionals comes first:
		// every other key may name them.
		if v.Positionals != nil {
			var vb verbsurface.Verb
			v.VerbOperatorConfig.apply(&vb)
			if stated, err := projector.StatePositionals(cmd, vb.Positionals); err == nil {
				cmd = stated
			}
		}
		// 2. Its own exclusions.
		var unmatched []string
		cmd, unmatched = projector.ExcludeFromCommand(cmd, v.Exclude...)
		for _, n := range unmatched {
			verbErr(i, "exclude", "%q names no parameter of %s", n, name(cmd))
		}
		schemaName := func(n string) (*projector.Param, string) {
			for _, p := range cmd.Params {
				if p.Name == n {
					return p, ""
				}
			}
			for _, p := range cmd.Params {
				if p.Named(n) {
					return nil, fmt.Sprintf("; did you mean %q, its schema name?", p.Name)
				}
			}
			return nil, ""
		}
		// 3. files:
		for _, fp := range v.Files {
			n, _, _ := fileParam(fp)
			if p, hint := schemaName(n); p == nil {
				verbErr(i, "files", "%q is not a parameter a caller can set on %s%s", n, name(cmd), hint)
			}
		}
		// 4. constraints: and fixed: (config_operator.go) name
		// parameters of the command, stated positionals included.
		for _, key := range []string{"constraints", "fixed"} {
			names := slices.Sorted(maps.Keys(v.Constraints))
			if key == "fixed" {
				names = slices.Sorted(maps.Keys(v.Fixed))
			}
			for _, n := range names {
				if !slices.ContainsFunc(cmd.Params, func(p *projector.Param) bool { return p.Named(n) }) {
					verbErr(i, key, "%q names no parameter of %s a caller could set", n, name(cmd))
				}
			}
		}
		// 5. stored_command:
		if sc := v.StoredCommand; sc != nil {
			if p, hint := schemaName(sc.Param); p == nil {
				verbErr(i, "stored_command", "param %q is not a parameter a caller can set on %s%s", sc.Param, name(cmd), hint)
			}
			for _, a := range sc.Allow {
				if c := t.Find(a...); c == nil || !c.Runnable && !c.Unread {
					verbErr(i, "stored_command", "allow %q is not a runnable command of %s", a, raw.Program)
				}
			}
		}
	}

	// 6 and 7, on the verbs as the surface offers them.
	index := map[string]int{}
	for i, v := range cfg.Verbs {
		index[v.Name] = i
	}
	var warns []*Warning
	for _, vf := range f.surface.FileParams(ctx) {
		i, ok := index[vf.Verb]
		if !ok {
			continue // wait: and kill: take ids and durations
		}
		if dir, field, line := cfg.cwdOf(i); dir != "" && len(vf.Paths) > 0 && !f.inRoot(dir) {
			roots := strings.Join(f.roots, ", ")
			if roots == "" {
				roots = "none: roots: is empty"
			}
			errs = append(errs, &ConfigError{verb: vf.Verb, File: cfg.file, Line: line, Field: field,
				Msg: fmt.Sprintf("verb %s takes paths (%s), so the directory it runs in must be inside a root (roots: %s): %s is not",
					vf.Verb, strings.Join(slices.Sorted(maps.Keys(vf.Paths)), ", "), roots, dir)})
		}
		for _, p := range vf.Unconfined {
			spelled := p.Name
			if len(p.Options) > 0 {
				spelled = strings.Join(p.Options, "/")
			} else if p.Metavar != "" {
				spelled = p.Metavar
			}
			warns = append(warns, &Warning{File: cfg.file, Line: cfg.Verbs[i].line, Field: fmt.Sprintf("verbs[%d]", i), Verb: vf.Verb, Param: p.Name,
				Msg: fmt.Sprintf("parameter %s (%s) looks like a path and is not confined to the roots: mark it (files: [%s:read], or write, dir, read_or_dir), exclude it, or say it is not a path (files: [%s:none])",
					p.Name, spelled, p.Name, p.Name)})
		}
	}
	if !whole {
		return errs, warns // the roots were scanned at start
	}
	return errs, append(warns, f.rootLinkWarnings(ctx)...)
}

// rootLinkWarnings is rule 7 of lint: the symbolic links under the roots
// that leave them, when a verb hands the program a directory (dir,
// read_or_dir), which the program reads following every link in it
// (verbsurface.Surface.RootLinks, bounded).
func (f *front) rootLinkWarnings(ctx context.Context) []*Warning {
	scan := f.surface.RootLinks(ctx)
	if scan == nil {
		return nil
	}
	cfg := f.cfg
	w := func(format string, a ...any) *Warning {
		return &Warning{File: cfg.file, Line: cfg.lineOf("roots"), Field: "roots", Verb: strings.Join(scan.Verbs, ", "), Msg: fmt.Sprintf(format, a...)}
	}
	var warns []*Warning
	for _, l := range scan.Links {
		warns = append(warns, w("%s is a symbolic link to %s, outside the roots; a verb given a directory that holds it hands it to the program, which follows it: "+
			"remove the link, or share roots that do not hold it", l.Path, l.Target))
	}
	if scan.More > 0 {
		warns = append(warns, w("and %d more symbolic links leave the roots", scan.More))
	}
	if scan.Truncated {
		warns = append(warns, w("looked for links leaving the roots in the first %d entries, %d directories deep, only; the rest was not searched",
			verbsurface.RootLinksMaxEntries, verbsurface.RootLinksMaxDepth))
	}
	return warns
}

// inRoot reports whether dir (resolved to its real path) is inside one of
// the configuration's roots.
func (f *front) inRoot(dir string) bool {
	real, err := filepath.EvalSymlinks(dir)
	if err != nil {
		return false
	}
	for _, r := range f.roots {
		if real == r || r == "/" || strings.HasPrefix(real, r+"/") {
			return true
		}
	}
	return false
}
