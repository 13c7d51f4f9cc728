package fromclick

import (
	"context"
	"fmt"
	"sync"
	"testing"

	"github.com/verbsurface/verbsurface/internal/golden"
	"github.com/verbsurface/verbsurface/projector"
)

// corpusTargets are real click and Typer programs from Debian's packages
// (.ci/run installs them with apt), each walked as a fork would walk it:
// through the command object its console script runs.
var corpusTargets = []struct{ module, target string }{
	{"flask", "flask.cli:cli"},                // python3-flask: FlaskGroup, lazily loaded commands
	{"black", "black:main"},                   // black: one command, many options
	{"mkdocs", "mkdocs.__main__:cli"},         // mkdocs: a group
	{"sqlite_utils", "sqlite_utils.cli:cli"},  // sqlite-utils: a large group
	{"cookiecutter", "cookiecutter.cli:main"}, // cookiecutter
	{"uvicorn", "uvicorn.main:main"},          // python3-uvicorn
	{"rstcheck", "rstcheck._cli:app"},         // python3-rstcheck: a Typer app
}

// frontedOptions is how a team fronting each program would walk it after
// reading its inventory: leaving out the options no caller should set (a
// configuration file that rewrites other defaults, TLS key files, path
// lists that bypass path confinement) and vouching for callbacks that only
// validate or set logging levels. The corpus report gives both figures.
var frontedOptions = map[string]*Options{
	"flask.cli:cli": {Exclude: []string{"--cert", "--key", "--extra-files", "--exclude-patterns"}},
	"black:main": {Exclude: []string{"--config"},
		Callbacks: []string{"black.validate_regex", "black.target_version_option_callback"}},
	"mkdocs.__main__:cli":   {Callbacks: []string{"mkdocs.__main__.quiet_option.<locals>.callback", "mkdocs.__main__.verbose_option.<locals>.callback"}},
	"cookiecutter.cli:main": {Exclude: []string{"extra_context"}},
}

// corpusMinShare is the goal for each program: at least this share
// of its offerable commands projects cleanly. It is reported, not
// enforced: what blocks the rest is named in the golden report.
const corpusMinShare = 0.9

var (
	corpusOnce   sync.Once
	corpusTrees  map[string]*projector.Tree
	corpusErr    error
	corpusPython string
)

func corpusModules() []string {
	var out []string
	for _, c := range corpusTargets {
		out = append(out, c.module)
	}
	return out
}

func corpus(t testing.TB) (map[string]*projector.Tree, *Options) {
	t.Helper()
	python := pythonWith(t, append([]string{"click"}, corpusModules()...)...)
	opts := &Options{Python: python, Dir: "/"}
	corpusOnce.Do(func() {
		var targets []string
		for _, c := range corpusTargets {
			targets = append(targets, c.target)
		}
		var ts []*projector.Tree
		ts, corpusErr = WalkAll(context.Background(), targets, opts)
		corpusTrees = map[string]*projector.Tree{}
		for i, tr := range ts {
			corpusTrees[targets[i]] = tr
		}
	})
	if corpusErr != nil {
		t.Fatal(corpusErr)
	}
	return corpusTrees, opts
}

// corpusEntry is one CLI's line of the corpus report.
type corpusEntry struct {
	Target      string                         `json:"target"`
	Program     string                         `json:"program"`
	Commands    int                            `json:"commands"`
	Offerable   int                            `json:"offerable"`
	Clean       int                            `json:"clean"`
	CleanShare  float64                        `json:"clean_share"`
	Unavailable []projector.UnavailableCommand `json:"unavailable,omitempty"`
	// Fronted is the clean count with frontedOptions, when it has any.
	Fronted      *int     `json:"fronted_clean,omitempty"`
	FrontedShare *float64 `json:"fronted_clean_share,omitempty"`
}

// TestCorpusClick walks every corpus program, pins each one's clean share
// and the named reason for every unavailable command in a golden report,
// and logs the figures the README quotes.
func TestCorpusClick(t *testing.T) {
	trees, base := corpus(t)
	var report []corpusEntry
	clean, offerable, fronted := 0, 0, 0
	for _, c := range corpusTargets {
		r := projector.Inventory(trees[c.target], nil)
		e := corpusEntry{Target: c.target, Program: r.Program, Commands: len(trees[c.target].Commands), Offerable: r.Offerable, Clean: r.Clean,
			CleanShare: r.CleanShare, Unavailable: r.Unavailable}
		report = append(report, e)
		clean, offerable = clean+r.Clean, offerable+r.Offerable
		mark := ""
		if r.CleanShare < corpusMinShare {
			mark = fmt.Sprintf("  (below the %.0f %% goal)", 100*corpusMinShare)
		}
		f := r
		if fo, ok := frontedOptions[c.target]; ok {
			o := *fo
			o.Python, o.Dir = base.Python, base.Dir
			tree, err := Walk(context.Background(), c.target, &o)
			if err != nil {
				t.Fatal(err)
			}
			f = projector.Inventory(tree, nil)
			if f.Clean <= r.Clean {
				t.Errorf("%s: the fronted options project %d commands, no more than the raw walk's %d", c.target, f.Clean, r.Clean)
			}
			e.Fronted, e.FrontedShare = &f.Clean, &f.CleanShare
			report[len(report)-1] = e
			mark += fmt.Sprintf("; fronted: %d/%d %.1f %%", f.Clean, f.Offerable, 100*f.CleanShare)
		}
		fronted += f.Clean
		t.Logf("%-24s %3d/%-3d %5.1f %%%s", c.target, r.Clean, r.Offerable, 100*r.CleanShare, mark)
		if r.Offerable == 0 {
			t.Errorf("%s: nothing offerable", c.target)
		}
		for _, u := range r.Unavailable {
			for _, why := range u.Reasons {
				if why.Reason == "" {
					t.Errorf("%s %v: unavailable without a reason", c.target, u.Path)
				}
			}
		}
	}
	t.Logf("all: %d/%d %.1f %%; fronted: %d/%d %.1f %%", clean, offerable, 100*float64(clean)/float64(offerable),
		fronted, offerable, 100*float64(fronted)/float64(offerable))
	golden.JSON(t, "corpus_report", report)
}

// TestCorpusClickRoundTrip is the round-trip property over every command
// of the corpus that projects, against the programs' own click.
func TestCorpusClickRoundTrip(t *testing.T) {
	iterations := 40
	if testing.Short() {
		iterations = 10
	}
	trees, opts := corpus(t)
	if n := roundTripTrees(t, opts, trees, iterations); n < 20 {
		t.Errorf("only %d corpus commands round-tripped", n)
	}
}
