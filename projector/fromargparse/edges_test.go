package fromargparse

import (
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/verbsurface/verbsurface/projector"
	"github.com/verbsurface/verbsurface/projector/internal/argsgen"
)

// TestEdgeConstraints: for each construct where argparse would reject or
// misread a value the plain translation admits, the schema excludes that
// value — and the real parser does reject the argv that value would have
// rendered to, so the constraint is needed, not decoration.
func TestEdgeConstraints(t *testing.T) {
	tree := trees(t)["vsfixture:edges"]
	tests := []struct {
		rule  string
		path  string
		args  map[string]any // what the schema must refuse
		argv  []string       // what it would have rendered to, which argparse rejects
		check func(t *testing.T, cmd *projector.Command)
	}{
		{"a required group's int member may not be its small (cached) default", "reqgroup",
			map[string]any{"level": 5}, []string{"--level=5"},
			func(t *testing.T, cmd *projector.Command) {
				if !cmp.Equal(param(cmd, "level").Forbidden, []any{int64(5)}) || param(cmd, "big").Forbidden != nil {
					t.Errorf("level forbids %v, big forbids %v; want [5] and nothing (1000 is not cached)", param(cmd, "level").Forbidden, param(cmd, "big").Forbidden)
				}
			}},
		{"a required group's string member may not be its one-character default", "reqgroup",
			map[string]any{"sep": ","}, []string{"--sep=,"},
			func(t *testing.T, cmd *projector.Command) {
				if !cmp.Equal(param(cmd, "sep").Forbidden, []any{"--", ","}) {
					t.Errorf("sep forbids %v", param(cmd, "sep").Forbidden)
				}
			}},
		{"a '*' positional with choices is required, with at least one item", "star-choices",
			map[string]any{"colors": []any{}}, []string{},
			func(t *testing.T, cmd *projector.Command) {
				if p := param(cmd, "colors"); !p.Required || p.MinItems != 1 {
					t.Errorf("colors required %v min items %d", p.Required, p.MinItems)
				}
			}},
		{"a '?' positional whose default is not a choice is required", "opt-default",
			map[string]any{}, []string{},
			func(t *testing.T, cmd *projector.Command) {
				if !param(cmd, "size").Required {
					t.Error("size not required")
				}
			}},
		{"a spaced numeric item is non-negative when the parser has a negative-number-like option", "neg-range",
			map[string]any{"xs": []any{-5}}, []string{"--xs", "-5"},
			func(t *testing.T, cmd *projector.Command) {
				if p := param(cmd, "xs"); p.Minimum == nil || *p.Minimum != 0 || p.Maximum == nil || *p.Maximum != 99 {
					t.Errorf("xs bounds %v %v, want [0, 99]", p.Minimum, p.Maximum)
				}
			}},
	}
	reqs := make([]parseRequest, len(tests))
	for i, tt := range tests {
		reqs[i] = parseRequest{Target: "vsfixture:edges", Argv: append([]string{tt.path}, tt.argv...)}
	}
	results := parseBatch(t, reqs)
	for i, tt := range tests {
		t.Run(tt.rule, func(t *testing.T) {
			cmd := tree.Find(tt.path)
			s, err := projector.Project(cmd)
			if err != nil {
				t.Fatal(err)
			}
			rs, err := s.Resolve(nil)
			if err != nil {
				t.Fatal(err)
			}
			if err := rs.Validate(tt.args); err == nil {
				t.Errorf("schema accepts %v", tt.args)
			}
			if argv, err := projector.RenderArgv(tree.Dialect, cmd, tt.args); err == nil {
				t.Errorf("RenderArgv renders %v as %q", tt.args, argv)
			}
			if results[i].OK {
				t.Errorf("argparse accepts %q (namespace %v): the constraint is not needed", tt.argv, results[i].Namespace)
			}
			tt.check(t, cmd)
		})
	}
}

// TestEdgeRequiredGroupFlags: a flag in a required exclusive group counts as
// given whenever it is rendered (argparse stores a fresh value, never the
// default object), so a BooleanOptionalAction member keeps both values —
// including the one equal to its default — and each satisfies the group.
func TestEdgeRequiredGroupFlags(t *testing.T) {
	cmd := trees(t)["vsfixture:edges"].Find("reqgroup")
	if c := param(cmd, "color").Choices; c != nil {
		t.Errorf("color narrowed to %v", c)
	}
	var cases []argsgen.Case
	for _, v := range []bool{true, false} {
		args := map[string]any{"color": v}
		argv, err := projector.RenderArgv(projector.DialectArgparse, cmd, args)
		if err != nil {
			t.Fatal(err)
		}
		cases = append(cases, argsgen.Case{Target: "vsfixture:edges", Cmd: cmd, Args: args, Argv: argv})
	}
	checkBatch(t, cases)
}

// TestEdgeUnavailable: each construct outside the subset makes its command
// unavailable, naming the parameter and the offending action where one is
// to blame.
func TestEdgeUnavailable(t *testing.T) {
	tree := trees(t)["vsfixture:edges"]
	tests := []struct {
		path          string
		param, action string
		reason        string
	}{
		{"extend-plain", "chars", "extend", "extend without nargs extends the list by the characters of the string"},
		{"append-default", "tag", "append", "append adds to its non-empty default list"},
		{"plus", "", "", `prefix_chars "+": only '-' option prefixes are rendered`},
		{"hidden-first", "", "", `hidden positional "secret" comes before other positionals`},
		{"hidden-group", "", "", "a required mutually exclusive group has no member the surface can offer"},
		{"amb", "ver", "store", "--ver is an ambiguous abbreviation in parser 'edges' (matches --verbose, --version-info)"},
		{"empty-choices", "c", "store", "an empty choices list admits no value"},
		{"float-range", "f", "store", "a range of choices for a non-integer parameter"},
		{"anc leaf", "", "store", `ancestor parser "edges anc" takes option --need before the subcommand name`},
		{"ancgroup leaf", "", "", `ancestor parser "edges ancgroup" requires one of a mutually exclusive group before the subcommand name`},
		{"ancpos leaf", "", "store", `ancestor parser "edges ancpos" takes positional "where" before the subcommand name`},
		{"loop again", "", "argparse._SubParsersAction", "the subcommand's parser is one of its own ancestors (a cycle of subparsers)"},
	}
	for _, tt := range tests {
		t.Run(tt.path, func(t *testing.T) {
			cmd := tree.Find(strings.Fields(tt.path)...)
			if cmd == nil {
				t.Fatalf("no command %q", tt.path)
			}
			_, err := projector.Project(cmd)
			var ue *projector.UnavailableError
			if !errors.As(err, &ue) {
				t.Fatalf("Project = %v, want unavailable", err)
			}
			if ue.Param != tt.param || ue.Action != tt.action || !strings.Contains(ue.Reason, tt.reason) {
				t.Errorf("got %+v", ue)
			}
		})
	}
	// The cycle's parent is an ordinary group, not "ambiguous" itself.
	if loop := tree.Find("loop"); loop.Unrepresentable != nil {
		t.Errorf("loop marked %+v", loop.Unrepresentable)
	}
}

// TestEdgeAppendEmptyDefault: append with an empty default list may be given
// no items (rendered as nothing, argparse keeps the empty default), unlike
// append without a default (omitted, argparse stores None).
func TestEdgeAppendEmptyDefault(t *testing.T) {
	cmd := trees(t)["vsfixture:edges"].Find("append-empty")
	p := param(cmd, "tag")
	if p.MinItems != 0 || !cmp.Equal(p.Default, []any{}) {
		t.Fatalf("tag min items %d default %#v", p.MinItems, p.Default)
	}
	checkBatch(t, []argsgen.Case{
		{Target: "vsfixture:edges", Cmd: cmd, Args: map[string]any{"tag": []any{}}, Argv: []string{}},
		{Target: "vsfixture:edges", Cmd: cmd, Args: map[string]any{"tag": []any{"a", "-b"}}, Argv: []string{"--tag=a", "--tag=-b"}},
	})
}
