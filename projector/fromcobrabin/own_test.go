package fromcobrabin_test

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/verbsurface/verbsurface/projector"
	"github.com/verbsurface/verbsurface/projector/fromcobrabin"
	"github.com/verbsurface/verbsurface/projector/fromcobrabin/internal/fixture"
	"github.com/verbsurface/verbsurface/projector/internal/goldentree"
)

// ownEnv makes the fixture binary the one whose help is its own
// (fixture.NewOwn: gh's help flag and layout, podman's hidden help flag).
func ownEnv(extra ...string) []string {
	return append(append(os.Environ(), "FIXTURE_OWN=1"), extra...)
}

func walkOwn(t *testing.T, opts *fromcobrabin.Options) *projector.Tree {
	t.Helper()
	if opts == nil {
		opts = &fromcobrabin.Options{}
	}
	if opts.Env == nil {
		opts.Env = ownEnv()
	}
	return walkFixture(t, opts)
}

// TestGoldenOwnFixture pins every command of the fixture whose help is
// its own, read from completion and from what its help prints in cobra's
// and pflag's own words.
func TestGoldenOwnFixture(t *testing.T) {
	goldentree.Check(t, walkOwn(t, nil), "fixture-own")
}

// A program with a help flag and a help layout of its own is read: its
// name from its usage line, its subcommands from completion (a name that
// is no command — gh's alias "co", a positional's values — is dropped),
// every flag completion names, with the type word and default its pflag
// entry prints where the page prints one, and from its parser where not
// (the inherited --repo on podman's way of hiding them); a command that
// reads its argv raw is unavailable with that reason, its --help not run.
func TestWalkOwnHelp(t *testing.T) {
	ran := filepath.Join(t.TempDir(), "ran")
	tree := walkOwn(t, &fromcobrabin.Options{Env: ownEnv("FIXTURE_RAN=" + ran)})
	if b, err := os.ReadFile(ran); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("commands ran while reading the tree: %q (%v)", b, err)
	}
	var got []string
	for _, c := range tree.Commands {
		got = append(got, strings.Join(c.Path, " "))
	}
	if want := []string{"", "images", "inspect", "many", "pr", "pr list", "pr view", "raw"}; !slices.Equal(got, want) {
		t.Errorf("commands %q, want %q", got, want)
	}
	if tree.Program != "ownhelp" {
		t.Errorf("program %q, want the usage line's ownhelp (not the executable's name)", tree.Program)
	}
	if r, pr := tree.Find(), tree.Find("pr"); r.Runnable || pr.Runnable {
		t.Errorf("root runnable %v, pr runnable %v: groups whose usage line names a command", r.Runnable, pr.Runnable)
	}
	params := func(path ...string) map[string]*projector.Param {
		t.Helper()
		c := tree.Find(path...)
		if c.Unrepresentable != nil {
			t.Fatalf("%v unavailable: %s", path, c.Unrepresentable.Reason)
		}
		out := map[string]*projector.Param{}
		for _, p := range c.Params {
			if p.Unrepresentable != nil {
				t.Errorf("%v %s: %s", path, p.Name, p.Unrepresentable.Reason)
			}
			out[p.Name] = p
		}
		return out
	}
	list := params("pr", "list")
	for name, want := range map[string]string{
		"state": `string one "open" --state -s`, "limit": "integer one 30 --limit -L", "draft": "boolean one false --draft -d",
		"json": "string repeated [] --json", "color": "string one null --color", "repo": "string one null --repo -R",
	} {
		p := list[name]
		if p == nil {
			t.Errorf("pr list: no %s", name)
			continue
		}
		if got := strings.Join([]string{string(p.Kind), string(p.Arity), fmtAny(p.Default), strings.Join(p.Options, " ")}, " "); got != want {
			t.Errorf("pr list --%s: %s, want %s", name, got, want)
		}
	}
	if _, ok := list["help"]; ok || len(list) != 6 {
		t.Errorf("pr list params %v: the help flag is no parameter", len(list))
	}
	images := params("images")
	if p := images["image"]; p == nil || !p.Positional() || p.Arity != projector.ArityOptional {
		t.Errorf("images [options] [IMAGE]: %v", p)
	}
	if p := images["repo"]; p == nil || p.Action != "pflag:(not in help)" || p.Kind != projector.KindString {
		t.Errorf("images --repo, which its page does not print: %+v", p)
	}
	inspect := params("inspect") // "Usage:  ownhelp inspect [OPTIONS] NAME [NAME...]", the Docker CLI's layout
	if p := inspect["name"]; p == nil || !p.Positional() || !p.Required {
		t.Errorf("inspect's required NAME: %+v", p)
	}
	if p := inspect["format"]; p == nil || p.Kind != projector.KindString || !slices.Contains(p.Options, "-f") {
		t.Errorf("inspect --format: %+v", p)
	}
	if m := tree.Find("many"); m.Unrepresentable == nil || !strings.Contains(m.Unrepresentable.Reason, "does not print 71 of the flags") {
		t.Errorf("many: %+v", m.Unrepresentable)
	}
	raw := tree.Find("raw")
	if raw.Unrepresentable == nil || !strings.Contains(raw.Unrepresentable.Reason, "goes on past an unknown flag") {
		t.Errorf("raw: %+v", raw.Unrepresentable)
	}
}

// The round trip over the fixture whose help is its own: what its
// help-derived schemas accept renders to argv its own parser reads back.
func TestRoundTripOwnFixture(t *testing.T) {
	if n := roundTrip(t, walkOwn(t, nil), fixture.NewOwn, 30); n != 4 {
		t.Errorf("%d commands round-tripped, want 4", n)
	}
}

// Options.Paths reads only the commands named, their ancestors and what
// is below them.
func TestWalkPaths(t *testing.T) {
	for _, tc := range []struct {
		env   []string
		paths [][]string
		want  []string
	}{
		{nil, [][]string{{"get", "item"}}, []string{"", "get", "get item"}},
		{nil, [][]string{{"get"}, {"types"}}, []string{"", "get", "get item", "get items", "types"}},
		{ownEnv(), [][]string{{"pr", "view"}}, []string{"", "pr", "pr view"}},
	} {
		var tree *projector.Tree
		if tc.env == nil {
			tree = walkFixture(t, &fromcobrabin.Options{Paths: tc.paths})
		} else {
			tree = walkOwn(t, &fromcobrabin.Options{Env: tc.env, Paths: tc.paths})
		}
		var got []string
		for _, c := range tree.Commands {
			got = append(got, strings.Join(c.Path, " "))
		}
		if !slices.Equal(got, tc.want) {
			t.Errorf("Paths %q: commands %q, want %q", tc.paths, got, tc.want)
		}
		if c := tree.Find(tc.paths[0]...); c == nil || c.Unrepresentable != nil || !c.Runnable && len(tc.paths[0]) > 1 {
			t.Errorf("Paths %q: %+v", tc.paths, c)
		}
	}
}
