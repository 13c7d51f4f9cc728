package fromcobrabin

import (
	"context"
	"strings"
	"sync/atomic"

	"github.com/verbsurface/verbsurface/projector/internal/helprun"
)

// program runs the installed cobra program through package helprun (the
// runner every help reader shares: the executable resolved once, bounded
// time and output per call, a process group killed whole with the call,
// at most a few calls at once): its argv followed by one question
// (__complete … or PATH… --help), in the environment of environ.
type program struct {
	runner *helprun.Program
	calls  atomic.Int64 // how many times the program was run
}

// fixedEnv is what every call sets over the operator's environment:
// helprun's plain layout (no colour, no terminal, a fixed width, the C
// locale), then no active-help lines in completions, and completion
// descriptions on.
var fixedEnv = append(append([]string{}, helprun.FixedEnv...), "COBRA_ACTIVE_HELP=0", "COBRA_COMPLETION_DESCRIPTIONS=true")

// environ is env with fixedEnv set over it. Cobra reads a program-specific
// NAME_ACTIVE_HELP and NAME_COMPLETION_DESCRIPTIONS before the COBRA_ ones,
// so any such variable from the operator's environment is dropped.
func environ(env []string) []string {
	fixed := map[string]bool{}
	for _, kv := range fixedEnv {
		k, _, _ := strings.Cut(kv, "=")
		fixed[k] = true
	}
	out := make([]string, 0, len(env)+len(fixedEnv))
	for _, kv := range env {
		k, _, _ := strings.Cut(kv, "=")
		if fixed[k] || strings.HasSuffix(k, "_ACTIVE_HELP") || strings.HasSuffix(k, "_COMPLETION_DESCRIPTIONS") {
			continue
		}
		out = append(out, kv)
	}
	return append(out, fixedEnv...)
}

// output is what one call printed.
type output struct {
	stdout, stderr []byte
}

// run runs the program with args after its argv. A call that cannot start,
// exits non-zero, runs past the timeout or prints past the cap is a
// *helprun.CallError that says which, naming the arguments; what it
// printed is returned all the same.
func (p *program) run(ctx context.Context, args ...string) (output, error) {
	p.calls.Add(1)
	stdout, stderr, err := p.runner.Run(ctx, args...)
	return output{stdout: stdout, stderr: stderr}, err
}

// describe names a call in messages, quoted (helprun.Program.Describe).
func (p *program) describe(args []string) string { return p.runner.Describe(args...) }

// argv0 is the program's resolved executable.
func (p *program) argv0() string { return p.runner.Argv[0] }

// lookPath resolves the executable name as exec would, once, so that
// every call runs the same file.
func lookPath(name string) (string, error) {
	argv, err := helprun.Resolve([]string{name})
	if err != nil {
		return "", err
	}
	return argv[0], nil
}
