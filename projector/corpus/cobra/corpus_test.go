package cobracorpus

import (
	"flag"
	"fmt"
	"math/rand"
	"os"
	"strings"
	"testing"

	crane "github.com/google/go-containerregistry/cmd/crane/cmd"
	yq "github.com/mikefarah/yq/v4/cmd"
	"github.com/spf13/cobra"
	kindcli "sigs.k8s.io/kind/pkg/cmd"
	kind "sigs.k8s.io/kind/pkg/cmd/kind"
	kustomize "sigs.k8s.io/kustomize/kustomize/v5/commands"

	"github.com/verbsurface/verbsurface/internal/golden"
	"github.com/verbsurface/verbsurface/projector"
	"github.com/verbsurface/verbsurface/projector/fromcobra"
	"github.com/verbsurface/verbsurface/projector/internal/argsgen"
	"github.com/verbsurface/verbsurface/projector/internal/cobrart"
)

// minShare is the goal of issue 17: every corpus CLI offers at least this
// share of its offerable commands.
const minShare = 0.9

// cli is one corpus CLI: a constructor of a fresh root command, as its own
// main would build it (each parse gets a fresh tree, as each run would),
// and the import path of its main package, which help_test.go builds.
type cli struct {
	name string
	root func() *cobra.Command
	main string
}

var clis = []cli{
	{"yq", yq.New, "github.com/mikefarah/yq/v4"},
	{"kind", func() *cobra.Command { return kind.NewCommand(kindcli.NewLogger(), kindcli.StandardIOStreams()) }, "sigs.k8s.io/kind"},
	{"crane", func() *cobra.Command { return crane.New("crane", "Crane is a tool for managing container images", nil) }, "github.com/google/go-containerregistry/cmd/crane"},
	{"kustomize", kustomize.NewDefaultCommand, "sigs.k8s.io/kustomize/kustomize/v5"},
}

// entry is one CLI's line of the corpus report.
type entry struct {
	CLI         string                         `json:"cli"`
	Commands    int                            `json:"commands"`
	Offerable   int                            `json:"offerable"`
	Clean       int                            `json:"clean"`
	CleanShare  float64                        `json:"clean_share"`
	Unavailable []projector.UnavailableCommand `json:"unavailable,omitempty"`
}

// testBinaryFlags names the flags of Go's flag.CommandLine in this test
// binary (go test's own test.*, the golden helper's -update). A CLI that
// adds flag.CommandLine to its root (kustomize) shows them when built
// into a test, never in its own binary; and parsing one would set this
// test binary's own flag. The walk excludes them.
func testBinaryFlags() []string {
	var names []string
	flag.VisitAll(func(f *flag.Flag) { names = append(names, f.Name) })
	return names
}

// walked holds each CLI's in-process tree, walked once in TestMain
// before any test parses an argv: a CLI that keeps its flags in package
// state (yq) builds each new tree with the defaults the last parse left,
// so only a walk before the first parse sees the defaults its own binary
// starts with.
var walked = map[string]*projector.Tree{}

func TestMain(m *testing.M) {
	// Before any root is built: kustomize's calls flag.CommandLine.Parse
	// itself, after which m.Run would not parse this test's flags.
	flag.Parse()
	for _, c := range clis {
		tree, err := fromcobra.Walk(c.root(), &fromcobra.Options{ExcludeFlags: testBinaryFlags()})
		if err != nil {
			fmt.Fprintf(os.Stderr, "walking %s: %v\n", c.name, err)
			os.Exit(2)
		}
		walked[c.name] = tree
	}
	os.Exit(m.Run())
}

// walk returns c's in-process tree (shared: callers copy before they
// change anything).
func walk(t *testing.T, c cli) *projector.Tree {
	t.Helper()
	return walked[c.name]
}

// TestCorpusCobra pins each CLI's clean share in testdata/report.golden.json
// (rewritten with -update), holds each to the goal, and requires every
// unavailable command to carry a reason that is not a disagreement between
// the Use line and the Args validator (the validator settles those).
func TestCorpusCobra(t *testing.T) {
	var report []entry
	for _, c := range clis {
		r := projector.Inventory(walk(t, c), nil)
		e := entry{CLI: c.name, Commands: r.Commands, Offerable: r.Offerable, Clean: r.Clean, CleanShare: r.CleanShare, Unavailable: r.Unavailable}
		report = append(report, e)
		t.Logf("%-6s %3d/%-3d offerable commands project cleanly (%.1f %%)", c.name, r.Clean, r.Offerable, 100*r.CleanShare)
		if r.Offerable < 3 {
			t.Errorf("%s: only %d offerable commands", c.name, r.Offerable)
		}
		if r.CleanShare < minShare {
			t.Errorf("%s: clean share %.3f, want at least %.2f", c.name, r.CleanShare, minShare)
		}
		for _, u := range r.Unavailable {
			for _, why := range u.Reasons {
				if why.Reason == "" || strings.Contains(why.Reason, "Use line") {
					t.Errorf("%s %v: reason %q", c.name, u.Path, why.Reason)
				}
			}
		}
	}
	golden.JSON(t, "report", report)
}

// TestCorpusCobraRoundTrip is the round-trip property over every command of
// every corpus CLI that projects: validation (jsonschema-go) accepts
// exactly what RenderArgv renders, and the CLI's own cobra tree parses each
// rendered argv back to the given values (string-in flags: Set receives
// exactly the given string).
func TestCorpusCobraRoundTrip(t *testing.T) {
	iterations := 40
	if testing.Short() {
		iterations = 10
	}
	for _, c := range clis {
		tree := walk(t, c)
		commands, objects := 0, 0
		for _, cmd := range tree.Commands {
			s, err := projector.Project(cmd)
			if err != nil {
				continue
			}
			rs, err := s.Resolve(nil)
			if err != nil {
				t.Fatal(err)
			}
			commands++
			g := &argsgen.Gen{R: rand.New(rand.NewSource(int64(len(cmd.Path)*7919 + len(c.name)))), Invalid: 0.1}
			valid := 0
			for i := 0; i < iterations; i++ {
				args := g.Args(cmd)
				verr := rs.Validate(args)
				argv, rerr := projector.RenderArgv(projector.DialectPflag, cmd, args)
				if (verr == nil) != (rerr == nil) {
					t.Fatalf("%s %v: validation error %v but render error %v\nargs: %s", c.name, cmd.Path, verr, rerr, short(args))
				}
				if verr != nil {
					continue
				}
				valid++
				if err := roundTrip(c, cmd, args, argv); err != nil {
					t.Errorf("%s %v: %v\nargv: %s", c.name, cmd.Path, err, short(argv))
				}
			}
			objects += valid
			if valid < iterations/5 {
				t.Errorf("%s %v: only %d of %d generated objects were valid", c.name, cmd.Path, valid, iterations)
			}
		}
		t.Logf("%s: %d argument objects over %d commands round-tripped", c.name, objects, commands)
	}
}

// roundTrip parses argv with c's own tree and compares the values read
// back with args (cobrart.Check).
func roundTrip(c cli, cmd *projector.Command, args map[string]any, argv []string) error {
	return cobrart.Check(c.root, cmd, args, argv)
}

func short(v any) string {
	s := fmt.Sprintf("%#v", v)
	if len(s) > 400 {
		return s[:400] + fmt.Sprintf("...(%d bytes)", len(s))
	}
	return s
}
