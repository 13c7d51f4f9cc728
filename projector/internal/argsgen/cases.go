package argsgen

import (
	"fmt"
	"math/rand"
	"sort"
	"strings"
	"testing"

	"github.com/verbsurface/verbsurface/projector"
)

// Case is one generated argument object that the command's schema accepts,
// with the argv RenderArgv gave for it.
type Case struct {
	Target string // the tree's target ("module:function")
	Cmd    *projector.Command
	Args   map[string]any
	Argv   []string
}

// ValidCases is the generating half of a Python adapter's round-trip
// property. For every command of each tree (keyed by target) that
// projects, it draws n argument objects from a generator seeded by the
// target and command path (newGen adds what the adapter needs, such as a
// Sample hook), requires validation (jsonschema-go) and RenderArgv in
// dialect d to agree on each, and keeps the valid ones. A command of which
// fewer than a fifth of the objects are valid fails t: the generator would
// no longer exercise it. The cases come in a stable order; the second
// result is how many commands projected.
func ValidCases(t testing.TB, trees map[string]*projector.Tree, d projector.Dialect, n int, newGen func(r *rand.Rand) *Gen) ([]Case, int) {
	t.Helper()
	targets := make([]string, 0, len(trees))
	for target := range trees {
		targets = append(targets, target)
	}
	sort.Strings(targets)
	var cases []Case
	commands := 0
	for _, target := range targets {
		for _, cmd := range trees[target].Commands {
			s, err := projector.Project(cmd)
			if err != nil {
				continue
			}
			rs, err := s.Resolve(nil)
			if err != nil {
				t.Fatal(err)
			}
			commands++
			g := newGen(rand.New(rand.NewSource(int64(len(target)*31 + len(cmd.Path)))))
			key := target + " " + strings.Join(cmd.Path, " ")
			valid := 0
			for i := 0; i < n; i++ {
				args := g.Args(cmd)
				verr := rs.Validate(args)
				argv, rerr := projector.RenderArgv(d, cmd, args)
				if (verr == nil) != (rerr == nil) {
					t.Fatalf("%s: validation error %v but render error %v\nargs: %s", key, verr, rerr, Short(args))
				}
				if verr == nil {
					cases = append(cases, Case{Target: target, Cmd: cmd, Args: args, Argv: argv})
					valid++
				}
			}
			if valid < n/5 {
				t.Errorf("%s: only %d of %d generated objects were valid", key, valid, n)
			}
		}
	}
	return cases, commands
}

// Short formats v for a failure message, clipped to 500 bytes.
func Short(v any) string {
	s := fmt.Sprintf("%q", v)
	if len(s) > 500 {
		return s[:500] + fmt.Sprintf("…(%d bytes)", len(s))
	}
	return s
}
