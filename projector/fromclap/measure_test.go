//go:build unix

package fromclap

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/verbsurface/verbsurface/projector"
)

// truth is a program's clap definition, transcribed from its source at
// the version Debian ships (testdata/truth/BIN.json): every argument its
// help shows, what clap makes of it, and the hidden ones and relation
// clauses (conflicts_with, overrides_with, requires, groups) that help
// never shows.
type truth struct {
	Program   string   `json:"program"`
	Source    string   `json:"source"`
	Hidden    []string `json:"hidden"`
	Relations int      `json:"relations"`
	Commands  []struct {
		Path  []string   `json:"path"`
		Group bool       `json:"group"` // runs only a subcommand
		Args  []truthArg `json:"args"`
	} `json:"commands"`
}

// truthArg is one argument: Kind is "flag" (SetTrue), "count", "value"
// (one value per occurrence), "values" (several, num_args > 1) or
// "positional"; Repeat says clap takes it more than once (Append, Vec);
// Choices are the possible values help lists, HiddenChoices those it does
// not (hide_possible_values); Typed names a value parser that is not a
// plain string.
type truthArg struct {
	Long, Short, Positional string
	Kind                    string
	Repeat                  bool
	Choices                 []string
	HiddenChoices           []string `json:"hidden_choices"`
	Typed                   string
	Default                 *string
	Required                bool
	CaseInsensitive         bool `json:"case_insensitive"` // clap also takes the choices in other cases
}

func (a truthArg) String() string {
	switch {
	case a.Positional != "":
		return a.Positional
	case a.Long != "":
		return "--" + a.Long
	}
	return "-" + a.Short
}

// verdict judges the reader's parameter for one argument: "exact",
// "looser" (it admits values clap refuses: a typed value or hidden
// choices, which the program's own parser refuses), "narrower" (a
// repeatable option offered once), "unavailable", or "wrong" with why.
func verdict(a truthArg, p *projector.Param) (string, string) {
	if p == nil {
		return "wrong", "not read"
	}
	if p.Unrepresentable != nil {
		return "unavailable", p.Unrepresentable.Reason
	}
	var problems []string
	switch a.Kind {
	case "flag":
		if p.Arity != projector.ArityNone {
			problems = append(problems, "read as "+string(p.Arity))
		}
	case "count":
		if p.Arity != projector.ArityCount {
			problems = append(problems, "read as "+string(p.Arity))
		}
	case "value", "values":
		if p.Arity != projector.ArityOne || p.Positional() || a.Kind == "values" {
			problems = append(problems, "read as "+string(p.Arity))
		}
	case "positional":
		want := projector.ArityOptional
		switch {
		case a.Repeat && a.Required:
			want = projector.ArityOneOrMore
		case a.Repeat:
			want = projector.ArityZeroOrMore
		case a.Required:
			want = projector.ArityOne
		}
		if p.Arity != want || !p.Positional() {
			problems = append(problems, fmt.Sprintf("read as %s, want %s", p.Arity, want))
		}
	}
	var got []string
	for _, c := range p.Choices {
		got = append(got, c.(string))
	}
	if !slices.Equal(got, a.Choices) {
		problems = append(problems, fmt.Sprintf("choices %q, want %q", got, a.Choices))
	}
	if a.Kind == "value" || a.Kind == "positional" && !a.Repeat {
		switch d, _ := p.Default.(string); {
		case a.Default == nil && p.Default != nil:
			problems = append(problems, fmt.Sprintf("default %v, none shown", p.Default))
		case a.Default != nil && d != *a.Default:
			problems = append(problems, fmt.Sprintf("default %v, want %q", p.Default, *a.Default))
		}
	}
	if p.Required != a.Required {
		problems = append(problems, fmt.Sprintf("required %v", p.Required))
	}
	switch {
	case len(problems) > 0:
		return "wrong", strings.Join(problems, "; ")
	case a.Typed != "" || len(a.HiddenChoices) > 0:
		return "looser", "values: " + a.Typed + strings.Join(a.HiddenChoices, "|")
	case a.Repeat && a.Kind == "value":
		return "narrower", "offered once"
	case a.CaseInsensitive:
		return "narrower", "choices in their listed case only"
	}
	return "exact", ""
}

// figures is what a measurement found, per argument and per command.
type figures struct {
	args     map[string]int
	commands map[string]int
	lines    []string
}

// measure compares the tree the reader made of bin with its truth.
func measure(t *testing.T, bin string) (*truth, figures) {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", "truth", bin+".json"))
	if err != nil {
		t.Fatal(err)
	}
	var tr truth
	if err := json.Unmarshal(b, &tr); err != nil {
		t.Fatal(err)
	}
	tree, err := Walk(context.Background(), []string{bin}, nil)
	if err != nil {
		t.Fatal(err)
	}
	f := figures{args: map[string]int{}, commands: map[string]int{}}
	for _, tc := range tr.Commands {
		cmd := tree.Find(tc.Path...)
		if cmd == nil {
			f.commands["wrong"]++
			f.lines = append(f.lines, fmt.Sprintf("%v: not read", tc.Path))
			continue
		}
		used := map[*projector.Param]bool{}
		worst := "exact"
		rank := map[string]int{"exact": 0, "narrower": 1, "looser": 1, "unavailable": 2, "wrong": 3}
		for _, a := range tc.Args {
			var p *projector.Param
			for _, q := range cmd.Params {
				if a.Positional != "" && q.Positional() && q.Metavar == a.Positional ||
					a.Positional == "" && (a.Long != "" && slices.Contains(q.Options, "--"+a.Long) || a.Long == "" && slices.Contains(q.Options, "-"+a.Short)) {
					p = q
				}
			}
			used[p] = true
			v, why := verdict(a, p)
			f.args[v]++
			if v != "exact" {
				f.lines = append(f.lines, fmt.Sprintf("%v %s: %s: %s", tc.Path, a, v, why))
			}
			if rank[v] > rank[worst] {
				worst = v
			}
		}
		for _, q := range cmd.Params {
			if !used[q] {
				f.args["wrong"]++
				worst = "wrong"
				f.lines = append(f.lines, fmt.Sprintf("%v %s: wrong: not in the definition", tc.Path, q.Name))
			}
		}
		switch _, err := projector.Project(cmd); {
		case tc.Group != !cmd.Runnable:
			worst = "wrong"
			f.lines = append(f.lines, fmt.Sprintf("%v: runnable %v", tc.Path, cmd.Runnable))
		case tc.Group:
		case err != nil && worst != "wrong":
			worst = "unavailable"
		}
		f.commands[worst]++
	}
	sort.Strings(f.lines)
	return &tr, f
}

// TestMeasureAgainstClap measures the reader against the clap definitions
// of fd 8.6.0 (clap 4), tealdeer 1.5.0 (clap 3) and zoxide 0.4.3 (clap 2,
// six commands), transcribed from their sources: argument by argument, whether the model offers exactly what clap
// accepts, something looser or narrower, leaves it unavailable, or is
// wrong. docs/figures.md states these figures; nothing may be wrong.
func TestMeasureAgainstClap(t *testing.T) {
	for _, c := range []struct {
		bin, pkg string
		want     map[string]int // per argument
		commands string         // commands exact, inexact, unavailable
	}{
		{"fdfind", "fd-find", map[string]int{"exact": 28, "looser": 9, "narrower": 5, "unavailable": 2}, "0 0 1"},
		{"tldr", "tealdeer", map[string]int{"exact": 14}, "1 0 0"},
		{"zoxide", "zoxide", map[string]int{"exact": 10, "narrower": 2}, "5 1 0"},
	} {
		t.Run(c.bin, func(t *testing.T) {
			installed(t, c.bin, c.pkg)
			tr, f := measure(t, c.bin)
			n := 0
			for _, k := range []string{"exact", "looser", "narrower", "unavailable", "wrong"} {
				n += f.args[k]
			}
			t.Logf("%s (%s): %d arguments in help: %d exact, %d looser, %d narrower, %d unavailable, %d wrong; %d hidden not offered; %d relation clauses help does not show",
				tr.Program, tr.Source, n, f.args["exact"], f.args["looser"], f.args["narrower"], f.args["unavailable"], f.args["wrong"], len(tr.Hidden), tr.Relations)
			t.Logf("commands: %d read, %d exact, %d with looser or narrower arguments, %d unavailable, %d wrong",
				len(tr.Commands), f.commands["exact"], f.commands["looser"]+f.commands["narrower"], f.commands["unavailable"], f.commands["wrong"])
			if got := fmt.Sprint(f.commands["exact"], f.commands["looser"]+f.commands["narrower"], f.commands["unavailable"]); got != c.commands {
				t.Errorf("commands exact, inexact, unavailable: %s, docs/figures.md says %s", got, c.commands)
			}
			for _, l := range f.lines {
				t.Log(l)
			}
			for k, v := range c.want {
				if f.args[k] != v {
					t.Errorf("%s: %d, docs/figures.md says %d", k, f.args[k], v)
				}
			}
			if f.args["wrong"] > 0 || f.commands["wrong"] > 0 {
				t.Errorf("the reader is wrong about %d arguments", f.args["wrong"])
			}
		})
	}
}
