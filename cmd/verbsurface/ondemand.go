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
	"time"

	"github.com/verbsurface/verbsurface/policy"
	"github.com/verbsurface/verbsurface/projector"
	"github.com/verbsurface/verbsurface/projector/fromcobrabin"
	"github.com/verbsurface/verbsurface/verbsurface"
)

// Reading a cobra program on demand (issue 35, item 5).
//
// A cold read of a cobra program costs some four program calls a
// command: about 10 s for a front of 200 verbs on two cores, however
// many calls run at once. serve and call therefore list the verbs'
// commands at start (fromcobrabin.List: the root and the groups above
// them, a few calls) and read each command when a request first needs
// it (its op, its help; the surface asks through Options.Read). serve
// also reads the rest in the background, and keeps the tree in the state
// directory once every command is read, so the next start reads the
// program not once.
//
// Nothing is offered unread: a verb whose command is not read yet is in
// the catalog as NAME(…), and its op or help waits for the read. Every
// command read is checked as serve checks every verb at an eager start
// (lint: exclude, files, constraints, fixed, stored_command, cwd;
// the surface's check; the policy's names and types) before any request
// can use it; a verb that fails is unavailable with the reason, and the
// reason is printed on stderr. A start whose top-level exclude: names a
// parameter of no command read yet reads every command before it serves,
// since only the whole tree can tell a typo from an unread command.

// onDemand is a cobra source read on demand.
type onDemand struct {
	argv    []string
	opts    *fromcobrabin.Options
	file    string // the cache file; "" when there is no state directory
	listed  verbsurface.TreeSource
	fill    bool // read the rest in the background (serve)
	stderr  io.Writer
	program string

	// gate checks the commands of a read (see front.gateRead); set once
	// the front is built, before any request.
	gate func(ctx context.Context, raw *projector.Tree, read [][]string, first bool) *projector.Tree

	mu    sync.Mutex
	gens  map[*projector.Tree]*generation // listed trees not served yet
	cur   *generation
	fills sync.WaitGroup // a test waits for the background reads
}

// generation is one listing of the program: what it read, and the reads
// of its Unread commands, until the program changes.
type generation struct {
	listed *projector.Tree // the tree the listing returned (its identity)
	lister *fromcobrabin.Lister
	store  func(*projector.Tree) error
	ctx    context.Context // ends when the program changes
	cancel context.CancelFunc

	mu      sync.Mutex // one merge at a time
	raw     *projector.Tree
	served  atomic.Pointer[projector.Tree]
	flights map[string]*readFlight
	started time.Time
	ungated bool // listed before the front could check it (guarded by onDemand.mu)
}

// readFlight is one read of a command under way (or done, once done is
// closed with err nil: the command is read and checked).
type readFlight struct {
	done chan struct{}
	err  error
}

func newOnDemand(argv []string, opts *fromcobrabin.Options, prog, file string, fill bool, stderr io.Writer, watch []string) *onDemand {
	d := &onDemand{argv: argv, opts: opts, file: file, fill: fill, stderr: stderr, gens: map[*projector.Tree]*generation{}}
	d.listed = verbsurface.CacheByFile(prog, d.list, watch...)
	return d
}

// list lists the program (or finds its kept tree): the loader of d.listed,
// run again whenever the program changes.
func (d *onDemand) list(ctx context.Context) (*projector.Tree, error) {
	var t *projector.Tree
	var l *fromcobrabin.Lister
	store := func(*projector.Tree) error { return nil }
	var err error
	if d.file != "" {
		t, l, store, err = fromcobrabin.CachedList(ctx, d.argv, d.opts, d.file)
	} else {
		t, l, err = fromcobrabin.List(ctx, d.argv, d.opts)
	}
	if err != nil {
		return nil, err
	}
	gctx, cancel := context.WithCancel(context.Background())
	g := &generation{listed: t, lister: l, store: store, ctx: gctx, cancel: cancel, raw: t,
		flights: map[string]*readFlight{}, started: time.Now()}
	g.served.Store(t)
	d.mu.Lock()
	d.gens[t] = g
	d.mu.Unlock()
	return t, nil
}

// generation is the current program's, listing it again if it changed.
func (d *onDemand) generation(ctx context.Context) (*generation, error) {
	t, err := d.listed(ctx)
	if err != nil {
		return nil, err
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.cur != nil && d.cur.listed == t {
		if g := d.cur; g.ungated && d.gate != nil {
			// Listed while the front was being built (its policy
			// parsed), before it could check anything.
			g.ungated = false
			g.gateListed(d)
			d.startFill(g)
		}
		return d.cur, nil
	}
	g, ok := d.gens[t]
	if !ok {
		return nil, errors.New("the program's listing was lost") // cannot happen: list records every tree it returns
	}
	delete(d.gens, t)
	if d.cur != nil {
		d.cur.cancel() // the program changed: its reads under way are of no use
	}
	d.cur = g
	if g.lister != nil {
		// The commands the listing read (the root and the groups) are
		// checked as every command read later is.
		if d.gate == nil {
			g.ungated = true // and nothing read until it can be checked
		} else {
			g.gateListed(d)
			d.startFill(g)
		}
	}
	return g, nil
}

// startFill starts the background read of g's unread commands (serve).
func (d *onDemand) startFill(g *generation) {
	if !d.fill {
		return
	}
	d.fills.Add(1)
	go func() {
		defer d.fills.Done()
		d.readRest(g)
	}()
}

// Source is the tree as read so far: what the surface projects.
func (d *onDemand) Source(ctx context.Context) (*projector.Tree, error) {
	g, err := d.generation(ctx)
	if err != nil {
		return nil, err
	}
	return g.served.Load(), nil
}

// Read reads and checks the commands at paths that are not read yet,
// and returns once they are (verbsurface.Options.Read). A path of no
// listed command is left to the surface, which says so.
func (d *onDemand) Read(ctx context.Context, paths [][]string) error {
	g, err := d.generation(ctx)
	if err != nil {
		return err
	}
	if g.lister == nil {
		return nil
	}
	return d.read(ctx, g, paths)
}

// read reads the commands at paths in generation g.
func (d *onDemand) read(ctx context.Context, g *generation, paths [][]string) error {
	var flights []*readFlight
	for _, p := range paths {
		if f := d.flight(g, p); f != nil {
			flights = append(flights, f)
		}
	}
	var errs []error
	for _, f := range flights {
		select {
		case <-f.done:
			if f.err != nil {
				errs = append(errs, f.err)
			}
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	return errors.Join(errs...)
}

// flight is the read of the command at path: under way, started now, or
// nil when it needs none (read already, or not listed).
func (d *onDemand) flight(g *generation, path []string) *readFlight {
	key := strings.Join(path, "\x00")
	g.mu.Lock()
	defer g.mu.Unlock()
	if f, ok := g.flights[key]; ok {
		return f
	}
	if c := g.raw.Find(path...); c == nil || !c.Unread || !slices.Equal(c.Path, path) || d.gate == nil {
		return nil // nothing to read; or the front cannot check a read yet (it is being built)
	}
	f := &readFlight{done: make(chan struct{})}
	g.flights[key] = f
	// The read runs to its end whoever asked for it: the request that
	// started it may be gone, and others wait for it. It stops when the
	// program changes (g.ctx), and each call of the program is bounded.
	go func() {
		cmds, err := g.lister.Read(g.ctx, path)
		g.mu.Lock()
		defer g.mu.Unlock()
		if err != nil {
			f.err = fmt.Errorf("reading %q: %w", strings.Join(path, " "), err)
			delete(g.flights, key) // the next request asks again
			close(f.done)
			return
		}
		var read [][]string
		for _, c := range cmds {
			read = append(read, c.Path)
		}
		g.raw = projector.Spliced(g.raw, path, cmds)
		g.served.Store(d.gate(g.ctx, g.raw, read, false))
		if len(g.raw.Unread()) == 0 {
			d.keep(g) // before the last reader goes on: serve's start, read whole, has kept it
		}
		close(f.done)
	}()
	return f
}

// keep keeps g's tree, read to the end, for the next start (g.mu held).
func (d *onDemand) keep(g *generation) {
	took := time.Since(g.started).Round(time.Millisecond)
	if err := g.store(g.raw); err != nil {
		fmt.Fprintf(d.stderr, "verbsurface: read the commands of %s in %s; not kept for the next start: %v\n", d.program, took, err)
		return
	}
	if d.fill && len(g.listed.Unread()) > startReadMax { // a small front is read before serve answers, as ever: nothing to say
		fmt.Fprintf(d.stderr, "verbsurface: read the %d commands of %s in %s; kept for the next start\n", len(g.listed.Unread()), d.program, took)
	}
}

// readRest reads, two at a time, every command still unread (the last
// read keeps the tree: serve's next start reads the file).
func (d *onDemand) readRest(g *generation) {
	g.mu.Lock()
	paths := g.raw.Unread()
	g.mu.Unlock()
	next := make(chan []string)
	var wg sync.WaitGroup
	var failed atomic.Bool
	for range 2 {
		wg.Go(func() {
			for p := range next {
				if err := d.read(g.ctx, g, [][]string{p}); err != nil {
					failed.Store(true)
				}
			}
		})
	}
	for _, p := range paths {
		select {
		case next <- p:
		case <-g.ctx.Done():
		}
	}
	close(next)
	wg.Wait()
	if g.ctx.Err() != nil {
		return
	}
	if failed.Load() {
		fmt.Fprintf(d.stderr, "verbsurface: reading the commands of %s in the background stopped short; the rest are read when a request needs them\n", d.program)
	}
}

// gateListed checks what the listing itself read (the ancestors of the
// verbs' commands) as a later read is checked.
func (g *generation) gateListed(d *onDemand) {
	g.mu.Lock()
	defer g.mu.Unlock()
	var read [][]string
	for _, c := range g.raw.Commands {
		if !c.Unread {
			read = append(read, c.Path)
		}
	}
	g.served.Store(d.gate(g.ctx, g.raw, read, true))
}

// swapDecider is the policy as last parsed against the verbs read so far:
// a rule that names a parameter is compiled with its type once its
// command is read.
type swapDecider struct{ p atomic.Pointer[policy.Policy] }

func (s *swapDecider) Decide(verb string, args map[string]any) (decision, rule, reason string) {
	return s.p.Load().Decide(verb, args)
}

func (s *swapDecider) DecideAs(who *policy.Who, verb string, args map[string]any) (decision, rule, reason string) {
	return s.p.Load().DecideAs(who, verb, args)
}
