//go:build unix

package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/verbsurface/verbsurface/background"
	"github.com/verbsurface/verbsurface/dispatch"
	"github.com/verbsurface/verbsurface/internal/tied"
	"github.com/verbsurface/verbsurface/kill"
	"github.com/verbsurface/verbsurface/policy"
	"github.com/verbsurface/verbsurface/projector"
	"github.com/verbsurface/verbsurface/projector/fromargparse"
	"github.com/verbsurface/verbsurface/projector/fromclick"
	"github.com/verbsurface/verbsurface/projector/fromcobrabin"
	"github.com/verbsurface/verbsurface/verbsurface"
)

// front is one configured CLI, served as the one tool.
type front struct {
	cfg *Config
	// raw is the parser tree as the source gives it; source is the same
	// with the top-level exclude: applied (what the surface projects).
	raw, source verbsurface.TreeSource
	runner      *dispatch.Runner
	surface     *verbsurface.Surface
	roots       []string // the configuration's roots, resolved
	// bg holds the background runs when a verb is marked background.
	bg *background.Runs
	// exchange hands runs a token exchanged for the caller's (oauth:
	// exchange:); nil when none is configured.
	exchange *exchangeSeam
	// opHooks see every finished op (the audit); serve sets them before
	// it serves, so they are only read while requests run.
	opHooks []func(context.Context, *verbsurface.OpRecord)

	// onDemand is the cobra source read on demand (serve, call), nil
	// otherwise; the rest is what checks each command it reads
	// (gateRead).
	onDemand *onDemand
	gates    *gates
}

// noRootsHint completes the refusal of a path argument when the
// configuration allows no files.
const noRootsHint = "its operator can list directories under roots: in the configuration to allow the files under them"

func parseDuration(s string) (time.Duration, error) {
	d, err := time.ParseDuration(s)
	if err == nil && d <= 0 {
		err = fmt.Errorf("%q is not positive", s)
	}
	return d, err
}

// newFront builds the surface the configuration describes. It fails on
// anything the configuration got wrong that can be known before a
// request: an executable that cannot be found, a verb the registry
// refuses, a root that does not exist.
func newFront(cfg *Config) (*front, error) {
	env := dispatch.AllowlistEnv(os.Environ(), cfg.Env.Pass...)
	var timeout time.Duration
	if cfg.Timeout != "" {
		timeout, _ = parseDuration(cfg.Timeout)
	}
	command := cfg.resolvedCommand()
	// One runner per output mode, ok exits and directory the verbs use:
	// the top level's is the surface's; a verb that differs gets its own
	// (verbsurface.Verb.Runner), under the same in-flight slots.
	runners := map[runnerKey]*dispatch.Runner{}
	newRunner := func(k runnerKey, out dispatch.Output, okExit []int, field string, line int) (*dispatch.Runner, error) {
		if r := runners[k]; r != nil {
			return r, nil
		}
		dir := ""
		if k.cwd != "" {
			dir = cfg.path(k.cwd)
			if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
				return nil, &ConfigError{File: cfg.file, Line: line, Field: field, Msg: fmt.Sprintf("%s is not a directory", dir)}
			}
		}
		r, err := dispatch.NewRunner(command[0], &dispatch.Options{LeadingArgs: command[1:], Env: env, Timeout: timeout,
			Dir: dir, Output: out, OKExit: okExit, EndDetached: !k.keepDetached, OutputStream: dispatch.Stream(k.stream)})
		if err != nil {
			return nil, &ConfigError{File: cfg.file, Field: "command", Msg: err.Error()}
		}
		runners[k] = r
		return r, nil
	}
	top := runnerKey{output: cfg.Output, okExit: fmt.Sprint(cfg.OKExit), stream: cfg.OutputStream, cwd: cfg.Cwd}
	runner, err := newRunner(top, dispatch.Output(cfg.Output), cfg.OKExit, "cwd", cfg.lineOf("cwd"))
	if err != nil {
		return nil, err
	}
	f := &front{cfg: cfg, runner: runner}
	if f.raw, err = cfg.treeSource(runner.Path(), env); err != nil {
		return nil, err
	}
	f.onDemand = cfg.onDemand
	f.source = cfg.excluded(f.raw)
	if f.bg, err = cfg.openBackgrounds(env); err != nil {
		return nil, err
	}
	var ropts *verbsurface.RegistryOptions
	if cfg.Fence != nil {
		fence := *cfg.Fence
		if fence == nil {
			fence = [][]string{}
		}
		ropts = &verbsurface.RegistryOptions{Fence: fence}
	}
	reg, err := verbsurface.NewRegistry(ropts)
	if err != nil {
		return nil, &ConfigError{File: cfg.file, Field: "fence", Msg: err.Error()}
	}
	for i, vc := range cfg.Verbs {
		v := verbsurface.Verb{Name: vc.Name, Class: verbsurface.Class(vc.Class), Path: vc.Path,
			Summary: vc.Summary, RequireFingerprint: vc.Fingerprint, Args: vc.Args, Exclude: vc.Exclude,
			Spawns: vc.Spawns}
		v.PathParams = vc.pathParams()
		if vc.Machine != nil {
			v.Machine = &verbsurface.Machine{Args: vc.Machine.Args, At: verbsurface.MachineAt(vc.Machine.At)}
		}
		vc.VerbOperatorConfig.apply(&v)
		if sc := vc.StoredCommand; sc != nil {
			v.StoredCommand = &verbsurface.StoredCommand{Param: sc.Param, Allow: sc.Allow}
		}
		if k := cfg.runnerKeyOf(i); k != top {
			out, okExit := cfg.outputOf(i)
			_, field, line := cfg.cwdOf(i)
			r, err := newRunner(k, out, okExit, field, line)
			if err != nil {
				return nil, err
			}
			v.Runner = r
		}
		if vc.Background {
			r := runner
			if v.Runner != nil {
				r = v.Runner.(*dispatch.Runner)
			}
			_, okExit := cfg.outputOf(i)
			v.Runner = f.bg.Verb(vc.Name, r, command, okExit)
		}
		if err := reg.Register(v); err != nil {
			return nil, cfg.verbError(i, err)
		}
	}
	if f.bg != nil {
		if err := f.bg.RegisterJobVerbs(reg); err != nil {
			return nil, &ConfigError{File: cfg.file, Msg: err.Error()}
		}
	}
	// wait: and kill: read machine results, whatever the verbs print.
	var jobs verbsurface.Runner
	if cfg.Wait != nil || cfg.Kill != nil {
		r, err := newRunner(runnerKey{okExit: "[]", cwd: cfg.Cwd}, "", nil, "cwd", cfg.lineOf("cwd"))
		if err != nil {
			return nil, err
		}
		jobs = r
	}
	if err := f.registerJobs(reg, command, env, timeout, jobs); err != nil {
		return nil, err
	}
	roots := make([]string, len(cfg.Roots))
	for i, r := range cfg.Roots {
		roots[i] = cfg.path(r)
		real, err := filepath.EvalSymlinks(roots[i])
		if err != nil {
			return nil, &ConfigError{File: cfg.file, Line: cfg.lineOf("roots"), Field: fmt.Sprintf("roots[%d]", i), Msg: err.Error()}
		}
		f.roots = append(f.roots, real)
	}
	served := f.served(f.source) // the program's tree, and the job verbs' commands when it has background verbs
	sopts := verbsurface.Options{
		Source:      scrubbedSource(served, treeScrubberOf(cfg, runner.Path()), os.Stderr), // a client reads no server path
		Runner:      runner,
		Machine:     verbsurface.Machine{Args: cfg.Machine.Args, At: verbsurface.MachineAt(cfg.Machine.At)},
		Title:       cfg.Name,
		Roots:       roots,
		NoRootsHint: noRootsHint,

		AllowHardLinks: cfg.AllowHardLinks,
		OnOp:           f.onOp,
		Private:        cfg.private,
		HelpBudget:     cfg.HelpBudget,
	}
	if f.bg != nil {
		sopts.Private = append(sopts.Private, filepath.Dir(f.bg.Dir()))
	}
	if err := cfg.identityOptions(&sopts); err != nil {
		return nil, err
	}
	f.exchange = cfg.exchangeOptions(&sopts)
	var pol *policyText
	if cfg.Policy != "" {
		if pol, err = cfg.applyPolicy(reg, &sopts, f.bg); err != nil {
			return nil, err
		}
	}
	if f.onDemand != nil {
		// Each command read is checked before a request can use it;
		// the policy is parsed again with its parameters.
		if f.gates, err = f.newGates(reg, sopts, pol); err != nil {
			return nil, &ConfigError{File: cfg.file, Msg: err.Error()}
		}
		if pol != nil {
			sopts.Decide = f.gates.decider
		}
		sopts.Read = f.onDemand.Read
		f.onDemand.gate = f.gateRead
		f.onDemand.program = filepath.Base(runner.Path())
	}
	f.surface, err = verbsurface.New(reg, &sopts)
	var inRoot *verbsurface.PrivateInRootError
	if errors.As(err, &inRoot) {
		return nil, &ConfigError{File: cfg.file, Line: cfg.lineOf("roots"), Field: "roots", Msg: fmt.Sprintf(
			"the root %s lies inside %s, where serve keeps its HTTP token: every file under it is the server's own; "+
				"share directories outside it, or keep the token elsewhere (--token-file, $%s)", inRoot.Root, inRoot.Private, tokenEnv)}
	}
	if err != nil {
		return nil, &ConfigError{File: cfg.file, Msg: err.Error()}
	}
	return f, nil
}

// cobraCacheFile is where, in the state directory, a cobra binary's walked
// tree is kept.
const cobraCacheFile = "cobra-tree.json"

// treeSource is the configured parser source, live: it is read again
// whenever the executable, the script it runs, the Python module of the
// target, the cobra program (size, mtime, inode) or a watched file
// changes, so an edited or upgraded CLI gives new schemas and fingerprints
// on the next request. It is the tree as the CLI has it: newFront applies
// the top-level exclude: on top, and keeps this one to check that every
// name there exists.
func (c *Config) treeSource(exe string, env []string) (verbsurface.TreeSource, error) {
	watch := []string{exe}
	for _, a := range c.resolvedCommand()[1:] {
		if fi, err := os.Stat(a); err == nil && fi.Mode().IsRegular() {
			watch = append(watch, a)
		}
	}
	if src, ok, err := c.moreTreeSource(watch, env); ok {
		return src, err
	}
	s := c.Source
	switch {
	case s.Argparse != nil || s.Click != nil:
		p, click := s.Argparse, false
		if p == nil {
			p, click = s.Click, true
		}
		pypath := make([]string, len(p.PythonPath))
		for i, d := range p.PythonPath {
			pypath[i] = c.path(d)
		}
		if m := moduleFile(strings.SplitN(p.Target, ":", 2)[0], pypath); m != "" {
			watch = append(watch, m)
		}
		for _, w := range p.Watch {
			watch = append(watch, c.path(w))
		}
		load := func(ctx context.Context) (*projector.Tree, error) {
			if click {
				t, err := fromclick.Walk(ctx, p.Target, &fromclick.Options{Python: p.Python, PythonPath: pypath,
					Exclude: p.Exclude, Callbacks: p.Callbacks, StringTypes: p.StringTypes})
				if err != nil {
					return nil, err
				}
				return t, nil
			}
			return fromargparse.Walk(ctx, p.Target, &fromargparse.Options{Python: p.Python, PythonPath: pypath})
		}
		return verbsurface.CacheByFile(watch[0], load, watch[1:]...), nil
	case s.Cobra != nil:
		argv := slices.Clone(s.Cobra)
		if strings.Contains(argv[0], "/") {
			argv[0] = c.path(argv[0])
		}
		prog, err := exec.LookPath(argv[0])
		if err != nil {
			return nil, &ConfigError{File: c.file, Field: "source.cobra", Msg: err.Error()}
		}
		argv[0] = prog
		// Only the commands the verbs name are read (podman has two
		// hundred).
		var paths [][]string
		for _, v := range c.Verbs {
			paths = append(paths, v.Path)
		}
		var more [][]string
		if w := c.Wait; w != nil {
			more = append(more, w.Observe, w.SchemaFrom)
		}
		if k := c.Kill; k != nil {
			more = append(more, k.Path, k.Status)
		}
		for _, p := range more {
			if p != nil {
				paths = append(paths, p)
			}
		}
		if c.readOnDemand != onDemandNever && s.Read != readAll {
			file := ""
			if dir, err := tokenDir(c.Name, os.Getenv); err == nil {
				file = filepath.Join(dir, cobraCacheFile)
			}
			c.onDemand = newOnDemand(argv, &fromcobrabin.Options{Env: env, Paths: paths}, prog, file,
				c.readOnDemand == onDemandFill, c.errs(), watch)
			return c.onDemand.Source, nil
		}
		load := func(ctx context.Context) (*projector.Tree, error) {
			opts := &fromcobrabin.Options{Env: env, Paths: paths}
			// The walked tree is kept in the state directory (private, one
			// per configuration name), so a restart against an unchanged
			// binary does not run it again (issue 35, item 5).
			if dir, err := tokenDir(c.Name, os.Getenv); err == nil {
				return fromcobrabin.CachedWalk(ctx, argv, opts, filepath.Join(dir, cobraCacheFile))
			}
			return fromcobrabin.Walk(ctx, argv, opts)
		}
		return verbsurface.CacheByFile(prog, load, watch...), nil
	case s.Declared != nil:
		// Declared in the configuration, checked when it was loaded: the
		// tree changes only with the file, and the server reads that once.
		t := c.declared
		return func(context.Context) (*projector.Tree, error) { return t, nil }, nil
	case len(s.TreeCommand) > 0:
		prog, err := exec.LookPath(s.TreeCommand[0])
		if err != nil {
			return nil, &ConfigError{File: c.file, Field: "source.tree_command", Msg: err.Error()}
		}
		load := func(ctx context.Context) (*projector.Tree, error) {
			ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
			defer cancel()
			cmd := exec.CommandContext(ctx, prog, s.TreeCommand[1:]...)
			cmd.Env = env
			var stdout, stderr bytes.Buffer
			cmd.Stdout, cmd.Stderr = &stdout, &stderr
			tied.Group(cmd) // dies with the server; stopped as a group
			cmd.WaitDelay = time.Second
			err := tied.Start(cmd)
			if err == nil {
				err = cmd.Wait()
			}
			out := stdout.Bytes()
			if err != nil {
				return nil, fmt.Errorf("tree command %q: %v: %s", s.TreeCommand, err, firstLine(stderr.String()))
			}
			var t projector.Tree
			if err := json.Unmarshal(out, &t); err != nil {
				return nil, fmt.Errorf("tree command %q did not print a tree as JSON: %v", s.TreeCommand, err)
			}
			return &t, nil
		}
		return verbsurface.CacheByFile(prog, load, watch...), nil
	default:
		file := c.path(s.TreeFile)
		load := func(context.Context) (*projector.Tree, error) {
			b, err := os.ReadFile(file)
			if err != nil {
				return nil, err
			}
			var t projector.Tree
			if err := json.Unmarshal(b, &t); err != nil {
				return nil, fmt.Errorf("tree file %s is not a tree as JSON: %v", file, err)
			}
			return &t, nil
		}
		return verbsurface.CacheByFile(file, load, watch...), nil
	}
}

// resolvedCommand is Command with relative paths resolved against the
// configuration's directory: the executable when it names a path
// ("./bin/mycli"), and each argument that names a file there ("notes.py"),
// so the server runs the same CLI wherever it is started from.
func (c *Config) resolvedCommand() []string {
	out := slices.Clone(c.Command)
	if strings.Contains(out[0], "/") {
		out[0] = c.path(out[0])
	}
	for i, a := range out[1:] {
		if filepath.IsAbs(a) || strings.HasPrefix(a, "-") {
			continue
		}
		if fi, err := os.Stat(c.path(a)); err == nil && fi.Mode().IsRegular() {
			out[i+1] = c.path(a)
		}
	}
	return out
}

// moduleFile finds the source of a Python module on the given path ("" if
// it is not there, for example an installed package: list it under watch).
func moduleFile(module string, path []string) string {
	rel := filepath.FromSlash(strings.ReplaceAll(module, ".", "/"))
	for _, dir := range path {
		for _, cand := range []string{rel + ".py", filepath.Join(rel, "__init__.py")} {
			if fi, err := os.Stat(filepath.Join(dir, cand)); err == nil && fi.Mode().IsRegular() {
				return filepath.Join(dir, cand)
			}
		}
	}
	return ""
}

func firstLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[:i]
	}
	if len(s) > 200 {
		s = s[:200] + "…"
	}
	return s
}

// applyPolicy loads the configuration's policy file against the verbs the
// surface would offer, as limcp mcp --policy does, and makes it the
// surface's decider; its runs_per_minute tightens the spawn rate. A file
// that names a verb or parameter the surface does not have is a start
// error: a policy that no longer matches must fail loudly. live_runs and
// live_runs_per_subject limit the front's own background runs, which it
// counts in its store (by the subject each run records); without
// background verbs they are refused: counting a CLI's live runs
// needs a way to ask it that only limcp's server has.
func (c *Config) applyPolicy(reg *verbsurface.Registry, sopts *verbsurface.Options, bg *background.Runs) (*policyText, error) {
	probe, err := verbsurface.New(reg, &*sopts)
	if err != nil {
		return nil, &ConfigError{File: c.file, Msg: err.Error()}
	}
	text, err := readPolicy(c.path(c.Policy))
	if err != nil {
		return nil, &ConfigError{File: c.file, Msg: "policy: " + err.Error()}
	}
	pol, err := policy.Parse(text.name, text.data, probe.PolicyVerbs(context.Background()))
	if err != nil {
		return nil, &ConfigError{File: c.file, Msg: "policy: " + err.Error()}
	}
	text.parsed = pol
	for _, l := range []struct {
		key string
		n   int
	}{{"live_runs", pol.Limits.LiveRuns}, {"live_runs_per_subject", pol.Limits.SubjectLiveRuns}} {
		if l.n > 0 && bg == nil {
			return nil, &ConfigError{File: c.file, Msg: fmt.Sprintf("policy %s: limits.%s needs a count of the CLI's live runs, which this front keeps only for background verbs; remove it", c.Policy, l.key)}
		}
	}
	if pol.Limits.LiveRuns > 0 || pol.Limits.SubjectLiveRuns > 0 {
		bg.LimitLive(pol.Limits.LiveRuns, pol.Limits.SubjectLiveRuns, sopts) // the front counts its own background runs
	}
	if err := c.checkPolicyClaims(pol.Claims()); err != nil {
		return nil, err
	}
	sopts.Decide = pol
	if n := pol.Limits.RunsPerMinute; n > 0 {
		sopts.SpawnsPerMinute = n
	}
	sopts.SubjectSpawnsPerMinute = pol.Limits.SubjectRunsPerMinute
	return text, nil
}

// registerJobs registers the wait: and kill: verbs (config.go documents
// the keys), which run their commands through runner: under the envelope
// whatever the top-level output says, since they read machine results.
// The wait polls only: this front has no store signal to wake it. The
// kill runs through a runner of its own whose timeout leaves the CLI's
// kill room for its graces, as limcp's server does.
func (f *front) registerJobs(reg *verbsurface.Registry, command, env []string, timeout time.Duration, runner verbsurface.Runner) error {
	cfg := f.cfg
	if w := cfg.Wait; w != nil {
		v := verbsurface.Verb{Name: w.Verb, Class: verbsurface.ClassObserve, Path: w.SchemaFrom, Summary: w.Summary, Runner: runner,
			Handler: verbsurface.WaitHandler(&verbsurface.WaitHandlerOptions{Observe: cfg.machineArgv(w.Observe), Outcomes: outcomeTable(w.Outcomes)})}
		if err := reg.Register(v); err != nil {
			return &ConfigError{File: cfg.file, Field: "wait", Msg: err.Error()}
		}
	}
	if k := cfg.Kill; k != nil {
		ck := kill.CLI{Kill: cfg.machineArgv(k.Path), KillRunner: func(grace time.Duration) (kill.Runner, error) {
			if grace <= 0 {
				grace = kill.DefaultGrace
			}
			return dispatch.NewRunner(command[0], &dispatch.Options{LeadingArgs: command[1:], Env: env,
				Timeout: max(timeout, 2*time.Minute+4*grace)})
		}}
		if len(k.Status) > 0 {
			ck.Status = cfg.machineArgv(k.Status)
		}
		for from, to := range k.Kinds {
			if ck.Kinds == nil {
				ck.Kinds = map[string]kill.Kind{}
			}
			ck.Kinds[from] = kill.Kind(to)
		}
		v := verbsurface.Verb{Name: k.Verb, Class: verbsurface.ClassControl, Path: k.Path, Summary: k.Summary, Runner: runner,
			Handler: verbsurface.KillHandler(ck)}
		if err := reg.Register(v); err != nil {
			return &ConfigError{File: cfg.file, Field: "kill", Msg: err.Error()}
		}
	}
	return nil
}

// check is surface.Check plus what it cannot see: the commands the job
// handlers run besides their schema's (wait's observe, kill's status)
// must exist in the tree and be runnable, or the mistake would surface
// only to the agent, at its first wait or kill.
func (f *front) check(ctx context.Context) []verbsurface.Unoffered {
	problems := f.surface.Check(ctx)
	var extra [][2]string // verb, key
	var paths [][]string
	if w := f.cfg.Wait; w != nil {
		extra, paths = append(extra, [2]string{w.Verb, "wait.observe"}), append(paths, w.Observe)
	}
	if k := f.cfg.Kill; k != nil && len(k.Status) > 0 {
		extra, paths = append(extra, [2]string{k.Verb, "kill.status"}), append(paths, k.Status)
	}
	if len(extra) == 0 {
		return problems
	}
	t, err := f.source(ctx)
	if err != nil {
		return problems // the verbs' own projections already report it
	}
	for i, p := range paths {
		if c := t.Find(p...); c == nil || !c.Runnable && !c.Unread { // an Unread command is checked once read
			problems = append(problems, verbsurface.Unoffered{Verb: extra[i][0], Code: verbsurface.CodeUnavailableVerb,
				Reason: fmt.Sprintf("%s: no runnable command %q in the CLI's tree", extra[i][1], strings.Join(p, " "))})
		}
	}
	return problems
}
