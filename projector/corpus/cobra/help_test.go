package cobracorpus

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/spf13/cobra"

	"github.com/verbsurface/verbsurface/internal/golden"
	"github.com/verbsurface/verbsurface/projector"
	"github.com/verbsurface/verbsurface/projector/fromcobra"
	"github.com/verbsurface/verbsurface/projector/fromcobrabin"
	"github.com/verbsurface/verbsurface/projector/internal/argsgen"
)

// The goals of issue 27 for a tree read from a program's help, measured
// against the in-process walk of the same program.
const (
	minIdenticalShare = 0.95
)

// Unknowables lists what a cobra program's --help and completion cannot
// show. The comparison clears these in the in-process tree before it
// compares (and clears the reasons they make a command unavailable for);
// everything else must agree.
var unknowables = []string{
	"required flags: cobra's completion offers the flags it requires mixed with the members of one-required groups, so the reader marks none required",
	"flag groups: mutually exclusive, one-required and required-together flags, and flags bound to one variable",
	"choices: the values of a flag that implements fromcobra.Chooser, a positional's ValidArgs",
	"annotations: path marks (verbsurface:path) and verbsurface constraints",
	"the Args validator: help shows only the Use line, so where the validator departs from it (crane flatten's Use \"flatten\" with ExactArgs(1), its auth login's \"[SERVER]\" with ExactArgs(1)) the reader offers the Use line's positionals and the in-process walk the validator's; the comparison counts these commands (validator_departs) and compares the rest of them",
	"descriptions: help prints a usage with its back quotes removed and its default appended, and a positional's description names the usage line",
	"summaries: help prints a command's Long text where it has one, completion only the first line of its Short",
}

// helpEntry is one program's line of the help report.
type helpEntry struct {
	CLI string `json:"cli"`
	// Commands counts the command paths the program offers (the
	// in-process tree's commands that are not hidden, deprecated or help
	// topics); Found those the help-derived tree has; Missing and Extra
	// list the differences of the two sets.
	Commands int        `json:"commands"`
	Found    int        `json:"found"`
	Missing  [][]string `json:"missing"`
	Extra    [][]string `json:"extra"`
	// Identical counts the commands found whose schemas are identical
	// (see identical); Share is Identical/Commands.
	Identical int     `json:"identical"`
	Share     float64 `json:"share"`
	// WrongValueness counts commands with a flag that is a boolean in one
	// tree and takes a value in the other.
	WrongValueness int `json:"wrong_valueness"`
	// ValidatorDeparts counts the commands found whose Args validator
	// departs from their Use line (an unknowable, above); IdenticalStrict
	// counts the commands identical without that unknowable cleared.
	ValidatorDeparts int `json:"validator_departs"`
	IdenticalStrict  int `json:"identical_strict"`
	// Blind counts the commands found whose in-process schema (or
	// availability) changes when the other unknowables are cleared:
	// where what help cannot show matters.
	Blind int `json:"blind"`
	// Offered counts the help-derived commands that project (what a front
	// can offer from the binary alone), of Runnable.
	Offered  int `json:"offered"`
	Runnable int `json:"runnable"`
	// Differences names every command found that is not identical, and
	// how.
	Differences []difference `json:"differences"`
}

type difference struct {
	Path []string `json:"path"`
	Diff []string `json:"diff"`
}

// helpTree reads c's installed program with fromcobrabin.
func helpTree(t *testing.T, c cli) *projector.Tree {
	t.Helper()
	bin := binary(t, c)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	start := time.Now()
	tree, err := fromcobrabin.Walk(ctx, []string{bin}, nil)
	if err != nil {
		t.Fatalf("%s: %v", c.name, err)
	}
	t.Logf("%s: read %d command paths from its help in %s", c.name, len(tree.Commands), time.Since(start).Round(time.Millisecond))
	return tree
}

// offered returns the commands the program offers, by path: cobra's
// IsAvailableCommand below the root, all the way down.
func offered(root *cobra.Command) map[string]*cobra.Command {
	out := map[string]*cobra.Command{"": root}
	var visit func(c *cobra.Command, path []string)
	visit = func(c *cobra.Command, path []string) {
		for _, sub := range c.Commands() {
			if !sub.IsAvailableCommand() {
				continue
			}
			p := append(append([]string(nil), path...), sub.Name())
			out[strings.Join(p, " ")] = sub
			visit(sub, p)
		}
	}
	visit(root, nil)
	return out
}

// TestHelpAgreesWithInProcess reads each corpus program's tree from its
// installed binary alone (fromcobrabin) and compares it, command by
// command, with fromcobra's in-process walk of the same module version.
// It holds the goals: every command found and none invented, at least
// minIdenticalShare of the commands identical, and no flag with the wrong
// value-ness anywhere; the report, with every difference, is pinned in
// testdata/help.golden.json.
func TestHelpAgreesWithInProcess(t *testing.T) {
	var report []helpEntry
	total, identicalTotal := 0, 0
	for _, c := range clis {
		truth := walk(t, c)
		got := helpTree(t, c)
		e := compareTrees(c, truth, got)
		report = append(report, e)
		total += e.Commands
		identicalTotal += e.Identical
		t.Logf("%-9s %3d commands, %3d found, %3d identical (%.1f %%; %d without clearing the validator), %d with a wrong value-ness; %d where help's blind spots matter; %d of %d runnable offered from help",
			c.name, e.Commands, e.Found, e.Identical, 100*e.Share, e.IdenticalStrict, e.WrongValueness, e.Blind, e.Offered, e.Runnable)
		if len(e.Missing) > 0 || len(e.Extra) > 0 {
			t.Errorf("%s: help-derived tree misses %q and invents %q", c.name, e.Missing, e.Extra)
		}
		if e.WrongValueness > 0 {
			t.Errorf("%s: %d commands with a flag of the wrong value-ness", c.name, e.WrongValueness)
		}
	}
	share := float64(identicalTotal) / float64(total)
	t.Logf("all:      %3d commands, %3d identical (%.1f %%)", total, identicalTotal, 100*share)
	if share < minIdenticalShare {
		t.Errorf("identical share %.3f, want at least %.2f", share, minIdenticalShare)
	}
	golden.JSON(t, "help", struct {
		Unknowables []string    `json:"unknowables"`
		Programs    []helpEntry `json:"programs"`
		Commands    int         `json:"commands"`
		Identical   int         `json:"identical"`
	}{unknowables, report, total, identicalTotal})
}

func compareTrees(c cli, truth, got *projector.Tree) helpEntry {
	e := helpEntry{CLI: c.name, Missing: [][]string{}, Extra: [][]string{}, Differences: []difference{}}
	avail := offered(c.root())
	byPath := map[string]*projector.Command{}
	for _, cmd := range got.Commands {
		byPath[strings.Join(cmd.Path, " ")] = cmd
		if cmd.Runnable {
			e.Runnable++
			if _, err := projector.Project(cmd); err == nil {
				e.Offered++
			}
		}
	}
	seen := map[string]bool{}
	for _, want := range truth.Commands {
		key := strings.Join(want.Path, " ")
		cc := avail[key]
		if cc == nil {
			continue
		}
		e.Commands++
		seen[key] = true
		have, ok := byPath[key]
		if !ok {
			e.Missing = append(e.Missing, want.Path)
			continue
		}
		e.Found++
		cleared := clearUnknowables(want)
		before, berr := schemaText(want)
		after, aerr := schemaText(cleared)
		if before != after || (berr == nil) != (aerr == nil) {
			e.Blind++
		}
		if d, _ := identical(cleared, have); len(d) == 0 {
			e.IdenticalStrict++
		}
		if departs := useLinePositionals(cleared, cc); departs {
			e.ValidatorDeparts++
		}
		diff, wrong := identical(cleared, have)
		if wrong {
			e.WrongValueness++
		}
		if len(diff) == 0 {
			e.Identical++
			continue
		}
		e.Differences = append(e.Differences, difference{Path: want.Path, Diff: diff})
	}
	for _, cmd := range got.Commands {
		if !seen[strings.Join(cmd.Path, " ")] {
			e.Extra = append(e.Extra, cmd.Path)
		}
	}
	if e.Commands > 0 {
		e.Share = float64(e.Identical) / float64(e.Commands)
	}
	return e
}

// identical compares a command of the help-derived tree (have) with the
// same command walked in-process (want), and says how they differ; none
// means identical. Identical is, after clearing the unknowables in want:
//
//   - the same runnable-ness and the same aliases;
//   - the same parameters, each with the same option strings;
//   - the same projection: both unavailable, or both available with equal
//     schemas once every "description" is removed (so the same names,
//     types, kinds and arities, defaults, bounds, patterns, item counts
//     and bare forms, and the same positionals in the same order).
//
// wrong reports a flag that is a boolean in one tree and takes a value
// in the other (a flag the help-derived tree leaves unrepresentable has
// no value-ness to be wrong about).
func identical(want, have *projector.Command) (diff []string, wrong bool) {
	if want.Runnable != have.Runnable {
		diff = append(diff, fmt.Sprintf("runnable: in-process %v, help %v", want.Runnable, have.Runnable))
	}
	if !slices.Equal(sorted(want.Aliases), sorted(have.Aliases)) {
		diff = append(diff, fmt.Sprintf("aliases: in-process %q, help %q", want.Aliases, have.Aliases))
	}
	wp, hp := paramsByName(want), paramsByName(have)
	for _, p := range want.Params {
		q, ok := hp[p.Name]
		if !ok {
			diff = append(diff, fmt.Sprintf("parameter %s (%s): missing from help", p.Name, describe(p)))
			continue
		}
		if !slices.Equal(p.Options, q.Options) {
			diff = append(diff, fmt.Sprintf("parameter %s: options in-process %q, help %q", p.Name, p.Options, q.Options))
		}
		if q.Unrepresentable != nil {
			diff = append(diff, fmt.Sprintf("parameter %s (%s): help leaves it unrepresentable: %s", p.Name, describe(p), q.Unrepresentable.Reason))
			continue
		}
		if p.Unrepresentable == nil && !p.Positional() && (p.Kind == projector.KindBoolean) != (q.Kind == projector.KindBoolean) {
			wrong = true
			diff = append(diff, fmt.Sprintf("parameter %s: WRONG VALUE-NESS: in-process %s, help %s", p.Name, describe(p), describe(q)))
		}
	}
	for _, q := range have.Params {
		if _, ok := wp[q.Name]; !ok {
			diff = append(diff, fmt.Sprintf("parameter %s (%s): not in-process", q.Name, describe(q)))
		}
	}
	ws, werr := schemaText(want)
	hs, herr := schemaText(have)
	switch {
	case werr != nil && herr != nil:
	case werr != nil:
		diff = append(diff, fmt.Sprintf("in-process unavailable (%v), help offers it", werr))
	case herr != nil:
		diff = append(diff, fmt.Sprintf("help leaves it unavailable: %v", herr))
	case ws != hs:
		diff = append(diff, schemaDiffs(want, have)...)
		if len(diff) == 0 {
			diff = append(diff, "schemas differ: in-process "+ws+", help "+hs)
		}
	}
	return diff, wrong
}

// useLinePositionals replaces want's positionals, which fromcobra took
// from the Args validator where it departs from the Use line, by the Use
// line's own (named and described as fromcobra names them), and reports
// whether they differed. A Use line whose words are not in grammatical
// order is left alone: help cannot read it, the in-process walk could.
func useLinePositionals(want *projector.Command, c *cobra.Command) bool {
	pos, ok := fromcobra.UsePositionals(c.Use)
	if !ok {
		return false
	}
	var flags, had []*projector.Param
	for _, p := range want.Params {
		if p.Positional() {
			had = append(had, p)
		} else {
			flags = append(flags, p)
		}
	}
	claimed := map[string]bool{}
	for _, p := range flags {
		claimed[p.Name] = true
	}
	for _, p := range pos {
		for claimed[p.Name] {
			p.Name += "_arg"
		}
		p.Help = ""
	}
	key := func(ps []*projector.Param) string {
		var b strings.Builder
		for _, p := range ps {
			fmt.Fprintf(&b, "%s:%s:%v;", p.Name, p.Arity, p.Required)
		}
		return b.String()
	}
	if key(had) == key(pos) {
		return false
	}
	want.Params = append(flags, pos...)
	return true
}

// clearUnknowables returns a copy of c without what help cannot show.
func clearUnknowables(c *projector.Command) *projector.Command {
	cp := *c
	cp.Groups, cp.AnyRequired, cp.Summary = nil, nil, ""
	if u := cp.Unrepresentable; u != nil && (strings.Contains(u.Reason, "must be given together") ||
		strings.Contains(u.Reason, "is required but hidden") || strings.Contains(u.Reason, "one of flags")) {
		cp.Unrepresentable = nil
	}
	cp.Params = make([]*projector.Param, 0, len(c.Params))
	for _, p := range c.Params {
		q := *p
		q.Choices, q.Path, q.Help = nil, projector.PathUseNone, ""
		if !q.Positional() {
			q.Required = false // a positional's is the Use line's, which help shows
		}
		cp.Params = append(cp.Params, &q)
	}
	return &cp
}

func paramsByName(c *projector.Command) map[string]*projector.Param {
	m := map[string]*projector.Param{}
	for _, p := range c.Params {
		m[p.Name] = p
	}
	return m
}

func sorted(s []string) []string {
	out := append([]string{}, s...)
	slices.Sort(out)
	return out
}

func describe(p *projector.Param) string {
	if p.Unrepresentable != nil {
		return "unrepresentable"
	}
	s := string(p.Kind) + " " + string(p.Arity)
	if p.Type != "" {
		s += " (" + p.Type + ")"
	}
	return s
}

// schemaText is c's schema as JSON, without descriptions.
func schemaText(c *projector.Command) (string, error) {
	s, err := projector.Project(c)
	if err != nil {
		return "", err
	}
	b, err := json.Marshal(s)
	if err != nil {
		return "", err
	}
	var v any
	if err := json.Unmarshal(b, &v); err != nil {
		return "", err
	}
	v = dropDescriptions(v)
	b, _ = json.Marshal(v)
	return string(b), nil
}

func dropDescriptions(v any) any {
	switch x := v.(type) {
	case map[string]any:
		delete(x, "description")
		for k, e := range x {
			x[k] = dropDescriptions(e)
		}
	case []any:
		for i, e := range x {
			x[i] = dropDescriptions(e)
		}
	}
	return v
}

// schemaDiffs names the properties whose schemas differ.
func schemaDiffs(want, have *projector.Command) []string {
	ws, _ := projector.Project(want)
	hs, _ := projector.Project(have)
	var out []string
	for _, name := range ws.PropertyOrder {
		a, b := ws.Properties[name], hs.Properties[name]
		if b == nil {
			continue
		}
		ja, jb := propText(a), propText(b)
		if ja != jb {
			out = append(out, fmt.Sprintf("parameter %s: in-process %s, help %s", name, ja, jb))
		}
	}
	if !reflect.DeepEqual(ws.PropertyOrder, hs.PropertyOrder) && len(out) == 0 {
		out = append(out, fmt.Sprintf("parameter order: in-process %q, help %q", ws.PropertyOrder, hs.PropertyOrder))
	}
	return out
}

func propText(s any) string {
	b, _ := json.Marshal(s)
	var v any
	_ = json.Unmarshal(b, &v)
	b, _ = json.Marshal(dropDescriptions(v))
	return string(b)
}

// TestHelpRoundTrip is the round-trip property over every command of each
// help-derived tree that projects: validation accepts exactly what
// RenderArgv renders from the help-derived model, and the program's own
// cobra tree (in-process, the same module version) parses each rendered
// argv back to the given values. So a schema read from help renders argv
// the real parser reads exactly, as a fromcobra schema does.
//
// What help cannot show, the CLI still enforces: the test borrows the
// in-process tree's required flags, flag groups and choices (see
// unknowables) so that the generator stays within what the CLI accepts,
// and leaves out (and counts) the commands whose Args validator departs
// from their Use line, or that the in-process walk cannot offer at all.
// What it proves is the rendering: every value the help-derived schema
// admits for a parameter reaches the real parser exactly.
func TestHelpRoundTrip(t *testing.T) {
	iterations := 40
	if testing.Short() {
		iterations = 10
	}
	for _, c := range clis {
		tree := helpTree(t, c)
		truth := map[string]*projector.Command{}
		for _, cmd := range walk(t, c).Commands {
			truth[strings.Join(cmd.Path, " ")] = cmd
		}
		avail := offered(c.root())
		commands, objects, departs := 0, 0, 0
		for _, cmd := range tree.Commands {
			if _, err := projector.Project(cmd); err != nil {
				continue
			}
			key := strings.Join(cmd.Path, " ")
			want, cc := truth[key], avail[key]
			if want != nil {
			}
			if want == nil || cc == nil || useLinePositionals(clearUnknowables(want), cc) {
				departs++
				continue
			}
			if _, err := projector.Project(want); err != nil {
				departs++
				continue
			}
			cmd = borrowUnknowables(cmd, want)
			s, err := projector.Project(cmd)
			if err != nil {
				t.Fatalf("%s %v: with the in-process constraints: %v", c.name, cmd.Path, err)
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
					t.Errorf("%s %v: %s\nargv: %s", c.name, cmd.Path, short(err.Error()), short(argv))
				}
			}
			objects += valid
			if valid < iterations/5 {
				t.Errorf("%s %v: only %d of %d generated objects were valid", c.name, cmd.Path, valid, iterations)
			}
		}
		t.Logf("%s: %d argument objects over %d help-derived commands round-tripped (%d left out: validator departs from Use line, or unavailable in-process)", c.name, objects, commands, departs)
	}
}

// borrowUnknowables returns a copy of have with want's required flags,
// flag groups and choices: what the CLI enforces and help cannot show.
func borrowUnknowables(have, want *projector.Command) *projector.Command {
	cp := *have
	wp := paramsByName(want)
	cp.Params = make([]*projector.Param, len(have.Params))
	for i, p := range have.Params {
		q := *p
		if w, ok := wp[p.Name]; ok && !p.Positional() {
			q.Required, q.Choices = w.Required, w.Choices
		}
		cp.Params[i] = &q
	}
	hp := paramsByName(&cp)
	known := func(names []string) bool {
		for _, n := range names {
			if hp[n] == nil {
				return false
			}
		}
		return true
	}
	cp.Groups, cp.AnyRequired = nil, nil
	for _, g := range want.Groups {
		if known(g.Params) {
			cp.Groups = append(cp.Groups, g)
		}
	}
	for _, set := range want.AnyRequired {
		if known(set) {
			cp.AnyRequired = append(cp.AnyRequired, set)
		}
	}
	return &cp
}

// TestIdenticalDetects holds the comparison to its definition: a real
// command read from help is identical to its in-process walk, and each
// kind of difference, made on purpose, is found (and only a flag's
// boolean-ness counts as a wrong value-ness).
func TestIdenticalDetects(t *testing.T) {
	c := clis[1] // kind
	var want, have *projector.Command
	for _, cmd := range walk(t, c).Commands {
		if strings.Join(cmd.Path, " ") == "create cluster" {
			want = clearUnknowables(cmd)
		}
	}
	for _, cmd := range helpTree(t, c).Commands {
		if strings.Join(cmd.Path, " ") == "create cluster" {
			have = cmd
		}
	}
	if want == nil || have == nil {
		t.Fatal("kind create cluster is missing from a tree")
	}
	if diff, wrong := identical(want, have); len(diff) > 0 || wrong {
		t.Fatalf("kind create cluster differs: %q", diff)
	}
	edit := func(f func(c *projector.Command, p map[string]*projector.Param)) *projector.Command {
		cp := *have
		cp.Params = make([]*projector.Param, len(have.Params))
		for i, p := range have.Params {
			q := *p
			cp.Params[i] = &q
		}
		f(&cp, paramsByName(&cp))
		return &cp
	}
	for _, tc := range []struct {
		name  string
		have  *projector.Command
		wrong bool
	}{
		{"a value flag read as a boolean is a wrong value-ness", edit(func(_ *projector.Command, p map[string]*projector.Param) {
			p["name"].Kind, p["name"].Arity, p["name"].Default = projector.KindBoolean, projector.ArityOne, false
		}), true},
		{"a boolean read as a value flag is a wrong value-ness", edit(func(_ *projector.Command, p map[string]*projector.Param) {
			p["retain"].Kind, p["retain"].Default = projector.KindString, ""
		}), true},
		{"another kind differs", edit(func(_ *projector.Command, p map[string]*projector.Param) {
			p["verbosity"].Kind, p["verbosity"].Minimum, p["verbosity"].Maximum, p["verbosity"].Default = projector.KindString, nil, nil, "0"
		}), false},
		{"another default differs", edit(func(_ *projector.Command, p map[string]*projector.Param) { p["name"].Default = "kind" }), false},
		{"another arity differs", edit(func(_ *projector.Command, p map[string]*projector.Param) {
			p["image"].Arity, p["image"].Default = projector.ArityRepeated, []string{}
		}), false},
		{"a missing parameter differs", edit(func(c *projector.Command, _ map[string]*projector.Param) { c.Params = c.Params[1:] }), false},
		{"an unrepresentable parameter differs", edit(func(_ *projector.Command, p map[string]*projector.Param) {
			p["config"].Unrepresentable = &projector.Unrepresentable{Reason: "test"}
		}), false},
		{"other option strings differ", edit(func(_ *projector.Command, p map[string]*projector.Param) { p["name"].Options = []string{"--name"} }), false},
		{"other aliases differ", edit(func(c *projector.Command, _ map[string]*projector.Param) { c.Aliases = []string{"c"} }), false},
		{"another runnable-ness differs", edit(func(c *projector.Command, _ map[string]*projector.Param) { c.Runnable = false }), false},
		{"an extra positional differs", edit(func(c *projector.Command, _ map[string]*projector.Param) {
			c.Params = append(c.Params, &projector.Param{Name: "extra", Kind: projector.KindString, Arity: projector.ArityOptional, Action: "cobra:positional"})
		}), false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			diff, wrong := identical(want, tc.have)
			if len(diff) == 0 {
				t.Fatal("no difference found")
			}
			if wrong != tc.wrong {
				t.Errorf("wrong value-ness %v, want %v (diff %q)", wrong, tc.wrong, diff)
			}
		})
	}
}
