//go:build unix

package verbsurface

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/verbsurface/verbsurface/projector"
)

// corpusCommand is one command of a search corpus (bench/searchcorpus
// wrote them from the real programs' completion protocol).
type corpusCommand struct {
	Path    []string `json:"path"`
	Summary string   `json:"summary"`
	Flags   []struct {
		Name string `json:"name"`
		Help string `json:"help"`
	} `json:"flags"`
	Group bool `json:"group"`
}

// corpusSurface fronts every command of a corpus as a verb named by its
// path, with its flags as string options: what the search index reads of
// a real program (names, summaries, parameter names and help).
func corpusSurface(t testing.TB, program string) *Surface {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", "search", program+".json"))
	if err != nil {
		t.Fatal(err)
	}
	var cmds []corpusCommand
	if err := json.Unmarshal(b, &cmds); err != nil {
		t.Fatal(err)
	}
	tree := &projector.Tree{Program: program, Dialect: projector.DialectPflag}
	reg, err := NewRegistry(nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range cmds {
		pc := &projector.Command{Path: c.Path, Summary: c.Summary, Runnable: !c.Group, Params: []*projector.Param{}}
		for _, f := range c.Flags {
			pc.Params = append(pc.Params, &projector.Param{Name: strings.ReplaceAll(f.Name, "-", "_"), Options: []string{"--" + f.Name},
				Kind: projector.KindString, Arity: projector.ArityOne, Help: f.Help, Action: "pflag:string", Type: "string"})
		}
		tree.Commands = append(tree.Commands, pc)
		if !c.Group && len(c.Path) > 0 {
			if err := reg.Register(Verb{Name: strings.Join(c.Path, "."), Class: ClassObserve, Path: c.Path}); err != nil {
				t.Fatal(err)
			}
		}
	}
	s, err := New(reg, &Options{Source: StaticTree(tree), Runner: RunnerFunc(func(context.Context, []string) (json.RawMessage, error) { return nil, nil })})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

type taskPhrase struct {
	program string
	want    []string
	phrase  string
}

func readPhrases(t testing.TB, file string) []taskPhrase {
	t.Helper()
	f, err := os.Open(filepath.Join("testdata", "search", file))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []taskPhrase
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		parts := strings.Split(line, "\t")
		if len(parts) != 3 {
			t.Fatalf("phrases.tsv: %q is not program, verbs, phrase", line)
		}
		out = append(out, taskPhrase{parts[0], strings.Split(parts[1], "|"), parts[2]})
	}
	return out
}

// TestSearchFindsTheVerbForATaskPhrase measures search on real programs'
// verbs (the GitHub CLI, podman, the Hetzner Cloud CLI, read from their
// completion) and on the 5,000-command synthetic CLI: for at least 90 % of
// the task phrases in testdata/search/phrases.tsv, a verb that does the
// task is among the first three. The held-out phrases of heldout.tsv,
// which the ranking was not tuned on, are measured too; their floor (70 %)
// catches a ranking that got worse, and docs/figures.md states both.
func TestSearchFindsTheVerbForATaskPhrase(t *testing.T) {
	t.Run("phrases.tsv", func(t *testing.T) { searchFigure(t, "phrases.tsv", true, 0.9) })
	t.Run("heldout.tsv", func(t *testing.T) { searchFigure(t, "heldout.tsv", false, 0.7) })
}

func searchFigure(t *testing.T, file string, withSynthetic bool, goal float64) {
	phrases := readPhrases(t, file)
	surfaces := map[string]*Surface{}
	hits := map[string][2]int{} // program → top-3 hits, phrases
	var misses []string
	for _, p := range phrases {
		s := surfaces[p.program]
		if s == nil {
			s = corpusSurface(t, p.program)
			surfaces[p.program] = s
		}
		verbs := searchVerbs(t, s, p.phrase)
		h := hits[p.program]
		h[1]++
		if slices.ContainsFunc(verbs[:min(3, len(verbs))], func(v string) bool { return slices.Contains(p.want, v) }) {
			h[0]++
		} else {
			misses = append(misses, fmt.Sprintf("%s %q: want %v, got %v", p.program, p.phrase, p.want, verbs[:min(3, len(verbs))]))
		}
		hits[p.program] = h
	}
	// The synthetic CLI: every 250th command by its number.
	var synth *Surface
	if withSynthetic {
		synth, _ = nestedSurface(t, 5000, Options{})
	}
	for n := 7; synth != nil && n < 5000; n += 250 {
		want := fmt.Sprintf("f%d.g%d.c%d", n/500, n/50, n)
		verbs := searchVerbs(t, synth, fmt.Sprintf("run synthetic command number %d", n))
		h := hits["synthetic 5,000"]
		h[1]++
		if slices.Contains(verbs[:min(3, len(verbs))], want) {
			h[0]++
		} else {
			misses = append(misses, fmt.Sprintf("synthetic %d: got %v", n, verbs))
		}
		hits["synthetic 5,000"] = h
	}
	total := [2]int{}
	for _, prog := range slices.Sorted(mapsKeys(hits)) {
		h := hits[prog]
		total[0] += h[0]
		total[1] += h[1]
		t.Logf("%-16s %d of %d phrases with the right verb in the top 3 (%.0f %%)", prog, h[0], h[1], 100*float64(h[0])/float64(h[1]))
	}
	for _, m := range misses {
		t.Logf("miss: %s", m)
	}
	rate := float64(total[0]) / float64(total[1])
	t.Logf("all: %d of %d (%.1f %%)", total[0], total[1], 100*rate)
	if rate < goal {
		t.Errorf("search finds the right verb in the top 3 for %.1f %% of phrases; the goal is %.0f %%", 100*rate, 100*goal)
	}
}

func searchVerbs(t testing.TB, s *Surface, phrase string) []string {
	t.Helper()
	b, _ := json.Marshal(map[string]string{"search": phrase})
	_, h := helpOf(t, s, string(b))
	var out []string
	for _, line := range strs(h["verbs"]) {
		out = append(out, verbOfLine(line))
	}
	return out
}

func mapsKeys[V any](m map[string]V) func(func(string) bool) {
	return func(yield func(string) bool) {
		for k := range m {
			if !yield(k) {
				return
			}
		}
	}
}
