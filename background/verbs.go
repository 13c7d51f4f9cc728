//go:build unix

package background

import (
	"context"
	"fmt"
	"slices"
	"sync"

	"github.com/verbsurface/verbsurface/kill"
	"github.com/verbsurface/verbsurface/projector"
	"github.com/verbsurface/verbsurface/verbsurface"
	"github.com/verbsurface/verbsurface/wait"
)

// jobsRoot is the command under which the job verbs' declared commands
// are added to the fronted program's tree. No program is run through
// them (each job verb is the server's own logic); they give the verbs
// schemas the surface projects, validates and fingerprints like any
// other, instead of hand-written ones.
const jobsRoot = "verbsurface-background-jobs"

// The job verbs a front with background verbs offers.
var backgroundJobVerbs = []string{"job.status", "job.list", "job.output", "job.wait", "job.kill"}

func ptr(f float64) *float64 { return &f }

// jobCommands declares the job verbs' commands.
var jobCommands = func() *projector.Tree {
	id := func(help string) *projector.Param {
		return &projector.Param{Name: "id", Options: []string{"--id"}, Required: true, Help: help}
	}
	t, err := projector.Declare(jobsRoot, projector.Rendering{},
		&projector.Command{Path: []string{jobsRoot, "status"}, Summary: "one background run: status, outcome, exit, bytes of output",
			Params: []*projector.Param{id("the run id a background op returned")}},
		&projector.Command{Path: []string{jobsRoot, "list"}, Summary: "the background runs, newest first",
			Params: []*projector.Param{
				{Name: "live", Options: []string{"--live"}, Kind: projector.KindBoolean, Help: "only runs that have not ended"},
				{Name: "limit", Options: []string{"--limit"}, Kind: projector.KindInteger, Minimum: ptr(1), Maximum: ptr(maxListLimit),
					Help: fmt.Sprintf("at most this many runs (default %d)", defaultListLimit)},
			}},
		&projector.Command{Path: []string{jobsRoot, "output"}, Summary: "a run's output from an offset; once ended, the op's result",
			Params: []*projector.Param{
				id("the run id"),
				{Name: "stream", Options: []string{"--stream"}, Choices: []any{"stdout", "stderr"}, Help: "which stream (default stdout)"},
				{Name: "offset", Options: []string{"--offset"}, Kind: projector.KindInteger, Minimum: ptr(0), Help: "the byte to start at (a previous next_offset)"},
				{Name: "length", Options: []string{"--length"}, Kind: projector.KindInteger, Minimum: ptr(1), Maximum: ptr(maxOutputLength),
					Help: fmt.Sprintf("at most this many bytes (default %d)", defaultOutputLength)},
			}},
		&projector.Command{Path: []string{jobsRoot, "wait"}, Summary: "wait for runs to end, bounded; every id in exactly one class",
			Params: []*projector.Param{
				{Name: "ids", Options: []string{"--ids"}, Arity: projector.ArityRepeated, Required: true, MinItems: 1, MaxItems: verbsurface.DefaultMaxWaitIDs, Help: "the run ids"},
				{Name: "max_wait_seconds", Options: []string{"--max-wait-seconds"}, Kind: projector.KindNumber, Minimum: ptr(0), Maximum: ptr(wait.MaxWaitLimit.Seconds()),
					Help: "the window (default 25); 0 is a snapshot"},
				{Name: "poll_interval_seconds", Options: []string{"--poll-interval-seconds"}, Kind: projector.KindNumber, Minimum: ptr(0),
					Help: "between observations (default 1; clamped)"},
			}},
		&projector.Command{Path: []string{jobsRoot, "kill"}, Summary: "stop a run's process group (identity checked)",
			Params: []*projector.Param{
				id("the run id"),
				{Name: "grace", Options: []string{"--grace"}, Pattern: `^[0-9]+(\.[0-9]+)?(ms|s|m)$`,
					Help: fmt.Sprintf("time between SIGTERM and SIGKILL, a duration such as 5s (default %v, at most %v)", kill.DefaultGrace, kill.MaxGrace)},
			}},
	)
	if err != nil {
		panic(err) // a declaration this file got wrong: every test fails
	}
	return t
}()

// TreeSource is source with the job verbs' commands added to its
// tree. It refuses a program that has a command of the same name.
// The tree with the commands added is kept while the source's tree is
// the same, so a request does not copy it.
func (b *Runs) TreeSource(source verbsurface.TreeSource) verbsurface.TreeSource {
	var mu sync.Mutex
	var in, out *projector.Tree
	return func(ctx context.Context) (*projector.Tree, error) {
		t, err := source(ctx)
		if err != nil {
			return nil, err
		}
		mu.Lock()
		defer mu.Unlock()
		if t == in {
			return out, nil
		}
		if t.Find(jobsRoot) != nil {
			return nil, fmt.Errorf("the program has a command %q, which the job verbs of background runs need", jobsRoot)
		}
		o := *t
		o.Commands = slices.Clip(t.Commands)
		for _, c := range jobCommands.Commands {
			if len(c.Path) > 0 {
				o.Commands = append(o.Commands, c)
			}
		}
		in, out = t, &o
		return out, nil
	}
}

// RegisterJobVerbs registers the job verbs of b's runs: job.status,
// job.list, job.output, job.wait and job.kill. The surface's tree must
// have their commands: serve it from [Runs.TreeSource].
func (b *Runs) RegisterJobVerbs(reg *verbsurface.Registry) error {
	handlers := map[string]verbsurface.Handler{
		"job.status": b.status, "job.list": b.list, "job.output": b.output, "job.wait": b.wait, "job.kill": b.kill,
	}
	for _, name := range backgroundJobVerbs {
		class := verbsurface.ClassObserve
		if name == "job.kill" {
			class = verbsurface.ClassControl
		}
		c := jobCommands.Find(jobsRoot, name[len("job."):])
		v := verbsurface.Verb{Name: name, Class: class, Path: c.Path, Summary: c.Summary, Handler: handlers[name]}
		if err := reg.Register(v); err != nil {
			return fmt.Errorf("background runs: %w", err)
		}
	}
	return nil
}
