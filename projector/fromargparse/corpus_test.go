package fromargparse

import (
	"context"
	"fmt"
	"sync"
	"testing"

	"github.com/verbsurface/verbsurface/internal/golden"
	"github.com/verbsurface/verbsurface/projector"
)

// corpusTargets is every program of Python 3.11's standard library that
// builds an argparse parser, each walked as a fork would walk it: through
// its main function where it has one that parses, else run as __main__.
var corpusTargets = []string{
	"ast:main", "calendar:__main__", "code:__main__", "compileall:main", "dis:main", "doctest:_test",
	"ensurepip:_main", "ensurepip._uninstall:_main", "gzip:main", "http.server:__main__", "inspect:_main",
	"json.tool:main", "nntplib:__main__", "pickle:__main__", "pickletools:__main__", "py_compile:main",
	"tarfile:main", "tokenize:main", "trace:main", "unittest:__main__", "venv:main", "zipapp:main", "zipfile:main",
}

// corpusMinShare is the goal: every corpus CLI offers at least this
// share of its offerable commands.
const corpusMinShare = 0.9

var (
	corpusOnce  sync.Once
	corpusTrees map[string]*projector.Tree
	corpusErr   error
)

func corpus(t testing.TB) map[string]*projector.Tree {
	t.Helper()
	corpusOnce.Do(func() {
		var ts []*projector.Tree
		ts, corpusErr = WalkAll(context.Background(), corpusTargets, testOptions(t))
		corpusTrees = map[string]*projector.Tree{}
		for i, tr := range ts {
			corpusTrees[corpusTargets[i]] = tr
		}
	})
	if corpusErr != nil {
		t.Fatal(corpusErr)
	}
	return corpusTrees
}

// corpusEntry is one CLI's line of the corpus report.
type corpusEntry struct {
	Target      string                         `json:"target"`
	Program     string                         `json:"program"`
	Offerable   int                            `json:"offerable"`
	Clean       int                            `json:"clean"`
	CleanShare  float64                        `json:"clean_share"`
	Unavailable []projector.UnavailableCommand `json:"unavailable,omitempty"`
}

// TestCorpusStdlib walks every argparse program of the standard library,
// pins the clean share of each in a golden report, and holds each to the
// goal (at least 90 % of its offerable commands project cleanly, every
// other one named with a reason).
func TestCorpusStdlib(t *testing.T) {
	if len(corpusTargets) < 20 {
		t.Fatalf("corpus has %d programs, want at least 20", len(corpusTargets))
	}
	trees := corpus(t)
	var report []corpusEntry
	for _, target := range corpusTargets {
		r := projector.Inventory(trees[target], nil)
		report = append(report, corpusEntry{Target: target, Program: r.Program, Offerable: r.Offerable, Clean: r.Clean,
			CleanShare: r.CleanShare, Unavailable: r.Unavailable})
		t.Log(corpusSummary(report[len(report)-1]))
		if r.Offerable == 0 {
			t.Errorf("%s: nothing offerable", target)
		}
		if r.CleanShare < corpusMinShare {
			t.Errorf("%s: %d of %d offerable commands project cleanly (%.0f %%), want at least %.0f %%", target, r.Clean, r.Offerable, 100*r.CleanShare, 100*corpusMinShare)
		}
		for _, u := range r.Unavailable {
			for _, why := range u.Reasons {
				if why.Reason == "" {
					t.Errorf("%s %v: unavailable without a reason", target, u.Path)
				}
			}
		}
	}
	golden.JSON(t, "corpus_report", report)
}

// TestCorpusStdlibRoundTrip is the round-trip property over every command
// of the corpus that projects.
func TestCorpusStdlibRoundTrip(t *testing.T) {
	iterations := 60
	if testing.Short() {
		iterations = 15
	}
	n := roundTripTrees(t, corpus(t), iterations)
	if n < 20 {
		t.Errorf("only %d corpus commands round-tripped", n)
	}
}

// corpusSummary is the report's one line per CLI, for logs and the README.
func corpusSummary(e corpusEntry) string {
	return fmt.Sprintf("%-28s %3d/%-3d %5.1f %%", e.Target, e.Clean, e.Offerable, 100*e.CleanShare)
}
