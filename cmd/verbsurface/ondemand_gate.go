//go:build unix

package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/verbsurface/verbsurface/internal/editdist"
	"github.com/verbsurface/verbsurface/policy"
	"github.com/verbsurface/verbsurface/projector"
	"github.com/verbsurface/verbsurface/verbsurface"
)

// onDemandMode is how a cobra source is read (ondemand.go).
type onDemandMode int

const (
	onDemandNever onDemandMode = iota // whole, before the front answers (check, inventory, init, call; source.read: all)
	onDemandOnly                      // on demand, and no more (a test's)
	onDemandFill                      // on demand, and the rest in the background (serve)
)

// The values of source.read.
const (
	readOnDemand = "on_demand"
	readAll      = "all"
)

// policyText is the policy file as read once at start: a command read
// later is checked against the same text, never a file edited since.
type policyText struct {
	name   string
	data   []byte
	parsed *policy.Policy
}

func readPolicy(name string) (*policyText, error) {
	data, err := policy.ReadFile(name)
	if err != nil {
		return nil, err
	}
	return &policyText{name: name, data: data}, nil
}

// excluded is src with the top-level exclude: applied.
func (c *Config) excluded(src verbsurface.TreeSource) verbsurface.TreeSource {
	if len(c.Exclude) == 0 {
		return src
	}
	return func(ctx context.Context) (*projector.Tree, error) {
		t, err := src(ctx)
		if err != nil {
			return nil, err
		}
		return projector.ExcludeParams(t, c.Exclude...), nil
	}
}

// served is src as the surface serves it: with the job verbs' commands
// when the front keeps background runs.
func (f *front) served(src verbsurface.TreeSource) verbsurface.TreeSource {
	if f.bg != nil {
		return f.bg.TreeSource(src)
	}
	return src
}

// gates checks the commands read on demand: a surface of the same verbs
// over the tree under check (probe), and the policy parsed again as
// commands are read (decider).
type gates struct {
	mu      sync.Mutex // one check at a time: tree is the one under check
	tree    atomic.Pointer[projector.Tree]
	probe   *front
	policy  *policyText
	decider *swapDecider

	// What the checks found so far, for the program as listed last (a
	// new listing starts again): failed, by command path, why a command is
	// not offered; near, by path, the unresolved exclude: name that
	// refused it (lifted once the name is found); unresolved, the
	// top-level exclude: names no command read so far has; unmatched,
	// once every command is read, that one of them names no parameter at
	// all (no command is then offered).
	failed     map[string]string
	near       map[string]nearMiss
	unresolved []string
	unmatched  string
}

func (f *front) newGates(reg *verbsurface.Registry, sopts verbsurface.Options, pol *policyText) (*gates, error) {
	g := &gates{policy: pol}
	raw := func(context.Context) (*projector.Tree, error) { return g.tree.Load(), nil }
	probe := &front{cfg: f.cfg, raw: raw, source: f.cfg.excluded(raw), roots: f.roots, bg: f.bg}
	sopts.Source = probe.served(probe.source)
	sopts.Read, sopts.Decide, sopts.OnOp = nil, nil, nil
	var err error
	if probe.surface, err = verbsurface.New(reg, &sopts); err != nil {
		return nil, err
	}
	g.probe = probe
	if pol != nil {
		g.decider = &swapDecider{}
		g.decider.p.Store(pol.parsed)
	}
	return g, nil
}

// gateRead checks the commands just read (read, by path) of raw, the
// tree read so far, as serve's start checks every verb of a tree read
// whole: lint (every key of a verb that names a parameter, a verb's
// directory), the surface's check, and the policy's names and types. A
// verb that fails makes its command unavailable with the reason in the
// tree returned (the tree served), and the reason is printed on stderr:
// a configuration that does not fit the program fails closed. The policy
// is then parsed against every verb read so far, so that its rules on a
// command's parameters are compiled with their types before a request
// can use it.
func (f *front) gateRead(ctx context.Context, raw *projector.Tree, read [][]string, first bool) *projector.Tree {
	g, cfg := f.gates, f.cfg
	g.mu.Lock()
	defer g.mu.Unlock()
	if first {
		g.failed, g.near, g.unresolved, g.unmatched = map[string]string{}, map[string]nearMiss{}, slices.Clone(cfg.Exclude), ""
	}
	just := map[string]bool{}
	for _, p := range read {
		just[strings.Join(p, "\x00")] = true
	}
	// Every command not just read is Unread in the tree checked, so that
	// only the verbs of the commands read are checked (the rest were, or
	// will be).
	focus := &projector.Tree{Program: raw.Program, Dialect: raw.Dialect}
	for _, c := range raw.Commands {
		if c.Unread || just[strings.Join(c.Path, "\x00")] {
			focus.Commands = append(focus.Commands, c)
			continue
		}
		focus.Commands = append(focus.Commands, &projector.Command{Path: c.Path, Summary: c.Summary, Params: []*projector.Param{}, Unread: true})
	}
	g.tree.Store(focus)
	verbsOf := map[string][]string{} // verb -> its command's path
	for _, v := range cfg.Verbs {
		verbsOf[v.Name] = v.Path
	}
	failed := g.failed // path -> why
	fail := func(path []string, why string) {
		k := strings.Join(path, "\x00")
		if just[k] && failed[k] == "" {
			failed[k] = why
		}
	}
	errs, warns := g.probe.lintTree(ctx, false)
	for _, err := range errs {
		var ce *ConfigError
		if errors.As(err, &ce) && ce.verb != "" {
			fail(verbsOf[ce.verb], err.Error())
			fmt.Fprintf(cfg.errs(), "verbsurface: %v; verb %s is not offered\n", err, ce.verb)
		} else {
			for _, p := range read {
				fail(p, err.Error())
			}
			fmt.Fprintf(cfg.errs(), "verbsurface: %v; the commands just read are not offered\n", err)
		}
	}
	for _, w := range warns {
		fmt.Fprintln(cfg.errs(), "verbsurface: "+w.String())
	}
	f.checkExcludes(raw, read)
	for _, p := range g.probe.surface.Check(ctx) {
		if just[strings.Join(verbsOf[p.Verb], "\x00")] {
			fmt.Fprintf(cfg.errs(), "verbsurface: %s: verb %s cannot be offered: %s\n", cfg.where(p.Verb), p.Verb, p.Reason)
		}
	}
	if g.policy != nil {
		if _, err := policy.Parse(g.policy.name, g.policy.data, g.probe.surface.PolicyVerbs(ctx)); err != nil {
			for _, p := range read {
				fail(p, err.Error())
			}
			fmt.Fprintf(cfg.errs(), "verbsurface: %v; the commands just read (%s) are not offered\n", err, pathsText(read))
		}
	}
	out := raw
	if len(failed) > 0 || len(g.near) > 0 || g.unmatched != "" {
		out = &projector.Tree{Program: raw.Program, Dialect: raw.Dialect}
		for _, c := range raw.Commands {
			k := strings.Join(c.Path, "\x00")
			why := failed[k]
			if why == "" {
				why = g.near[k].why
			}
			if why == "" && !c.Unread {
				why = g.unmatched
			}
			if why != "" {
				cc := *c
				cc.Unrepresentable = &projector.Unrepresentable{Reason: "the configuration does not fit the command as read: " + why}
				c = &cc
			}
			out.Commands = append(out.Commands, c)
		}
	}
	if g.decider != nil {
		// The policy of every verb read so far, with its parameters'
		// types; a verb not offered is judged by no rule (it runs
		// nothing), so its rules are not checked against it.
		g.tree.Store(out)
		pv := g.probe.surface.PolicyVerbs(ctx)
		unoffered := map[string]bool{}
		for _, p := range g.probe.surface.Check(ctx) {
			unoffered[p.Verb] = true
		}
		for i := range pv {
			if unoffered[pv[i].Name] {
				pv[i].Unread, pv[i].Params = true, nil
			}
		}
		if pol, err := policy.Parse(g.policy.name, g.policy.data, pv); err == nil {
			g.decider.p.Store(pol)
		} else {
			fmt.Fprintf(cfg.errs(), "verbsurface: %v; kept as parsed before\n", err)
		}
	}
	return out
}

func pathsText(paths [][]string) string {
	var b []string
	for _, p := range paths {
		b = append(b, strings.Join(p, " "))
	}
	return strings.Join(b, ", ")
}

// startReadMax is how many unread commands serve reads before it
// answers anyway: at some four program calls a command, a few hundred
// milliseconds on two cores, and the first catalog then shows every
// signature. A front of more verbs answers at once and reads them as
// asked and in the background.
const startReadMax = 8

// readAtStart reads, before serve answers, every command the listing
// left unread when they are few (startReadMax): its start checks then see
// the whole tree, as a whole read's do.
func (f *front) readAtStart(ctx context.Context) error {
	d := f.onDemand
	if d == nil {
		return nil
	}
	raw, err := f.raw(ctx)
	if err != nil {
		return nil // the verbs' projections report it
	}
	unread := raw.Unread()
	if len(unread) == 0 {
		return nil
	}
	if len(unread) > startReadMax {
		return nil
	}
	if err := d.Read(ctx, unread); err != nil && ctx.Err() != nil {
		return err
	}
	return nil // a command that could not be read is unavailable, with the reason
}

// errs is where the front reports what it finds after start.
func (c *Config) errs() io.Writer {
	if c.stderr == nil {
		return io.Discard
	}
	return c.stderr
}

// checkExcludes follows the top-level exclude: names as commands are
// read. A whole read refuses to start on a name that is no parameter of
// any command; read on demand, only the last command read can tell. So a
// name still unresolved refuses, when it is read, a command with a
// parameter one edit away from it (exclude: [pasword] beside --password:
// the parameter the operator meant to exclude would be offered), until
// the name is found on a command read later (tag beside --tags), and once
// every command is read a name that matched none makes every command
// unavailable with the mistake, as a whole read's start would have
// stopped.
func (f *front) checkExcludes(raw *projector.Tree, read [][]string) {
	g, cfg := f.gates, f.cfg
	if len(g.unresolved) == 0 {
		return
	}
	g.unresolved = slices.DeleteFunc(g.unresolved, func(n string) bool {
		return slices.ContainsFunc(raw.Commands, func(c *projector.Command) bool {
			return !c.Unread && slices.ContainsFunc(c.Params, func(p *projector.Param) bool { return p.Named(n) })
		})
	})
	// A name found at last lifts the refusals it made.
	for k, nm := range g.near {
		if !slices.Contains(g.unresolved, nm.name) {
			delete(g.near, k)
		}
	}
	for _, path := range read {
		c := raw.Find(path...)
		if c == nil {
			continue
		}
		for _, n := range g.unresolved {
			for _, p := range c.Params {
				k := strings.Join(path, "\x00")
				if near := nearName(n, p); near != "" && g.near[k].why == "" {
					why := fmt.Sprintf("%s:%d: exclude: %q names no parameter of a command read so far, and %q has %s, one edit away: the parameter meant may be offered; fix exclude:",
						cfg.file, cfg.lineOf("exclude"), n, strings.Join(path, " "), near)
					g.near[k] = nearMiss{name: n, why: why}
					fmt.Fprintf(cfg.errs(), "verbsurface: %s\n", why)
				}
			}
		}
	}
	if len(g.unresolved) > 0 && len(raw.Unread()) == 0 && g.unmatched == "" {
		g.unmatched = fmt.Sprintf("%s:%d: exclude: %q names no parameter of any command of %s; no verb is offered until the configuration is fixed",
			cfg.file, cfg.lineOf("exclude"), g.unresolved[0], raw.Program)
		fmt.Fprintf(cfg.errs(), "verbsurface: %s\n", g.unmatched)
	}
}

// nearMiss is a command refused for an exclude: name one edit from one
// of its parameters, and why.
type nearMiss struct{ name, why string }

// nearName is how p is spelt when one of its names is one edit from n
// (dashes and case aside), and "" otherwise.
func nearName(n string, p *projector.Param) string {
	fold := func(s string) string { return strings.ToLower(strings.TrimLeft(strings.ReplaceAll(s, "_", "-"), "-")) }
	for _, name := range append([]string{p.Name}, p.Options...) {
		if editdist.WithinOne(fold(n), fold(name)) {
			return name
		}
	}
	return ""
}
