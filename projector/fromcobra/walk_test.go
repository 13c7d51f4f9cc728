package fromcobra

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/spf13/cobra"

	"github.com/verbsurface/verbsurface/projector"
	"github.com/verbsurface/verbsurface/projector/fromcobra/internal/fixture"
)

func param(t *testing.T, cmd *projector.Command, name string) *projector.Param {
	t.Helper()
	for _, p := range cmd.Params {
		if p.Name == name {
			return p
		}
	}
	return nil
}

func mustFind(t testing.TB, tree *projector.Tree, path ...string) *projector.Command {
	t.Helper()
	c := tree.Find(path...)
	if c == nil {
		t.Fatalf("no command %q", path)
	}
	return c
}

// TestWalkFlagTypes: one row per supported pflag type.
func TestWalkFlagTypes(t *testing.T) {
	types := mustFind(t, fixtureTree(t), "types")
	type row struct {
		flag, name       string
		kind             projector.Kind
		arity            projector.Arity
		min, max         any // nil or float64
		def              any
		pattern          string
		minItems         int
		flagValue, short bool
	}
	num := func(v float64) any { return v }
	tests := []row{
		{flag: "string", name: "name", kind: "string", arity: "one", def: ""},
		{flag: "bool", name: "enabled", kind: "boolean", arity: "none", def: false, flagValue: true},
		{flag: "bool defaulting to true", name: "color", kind: "boolean", arity: "none", def: true, flagValue: true},
		{flag: "int", name: "count", kind: "integer", arity: "one", def: int64(3)},
		{flag: "int8", name: "i8", kind: "integer", arity: "one", min: num(-128), max: num(127), def: int64(0)},
		{flag: "int16", name: "i16", kind: "integer", arity: "one", min: num(-32768), max: num(32767), def: int64(0)},
		{flag: "int32", name: "i32", kind: "integer", arity: "one", min: num(-2147483648), max: num(2147483647), def: int64(0)},
		{flag: "int64", name: "i64", kind: "integer", arity: "one", def: int64(0)},
		{flag: "uint", name: "u", kind: "integer", arity: "one", min: num(0), def: uint64(0)},
		{flag: "uint8", name: "u8", kind: "integer", arity: "one", min: num(0), max: num(255), def: uint64(0)},
		{flag: "uint16", name: "u16", kind: "integer", arity: "one", min: num(0), max: num(65535), def: uint64(0)},
		{flag: "uint32", name: "u32", kind: "integer", arity: "one", min: num(0), max: num(4294967295), def: uint64(0)},
		{flag: "uint64", name: "u64", kind: "integer", arity: "one", min: num(0), def: uint64(0)},
		{flag: "float32", name: "f32", kind: "number", arity: "one", min: num(-3.4028234663852886e38), max: num(3.4028234663852886e38), def: 0.0},
		{flag: "float64", name: "f64", kind: "number", arity: "one", def: 0.5},
		{flag: "count", name: "verbose", kind: "integer", arity: "one", min: num(0), def: int64(0), short: true},
		{flag: "duration", name: "timeout", kind: "string", arity: "one", def: "0s", pattern: DurationPattern},
		{flag: "stringSlice", name: "tags", kind: "string", arity: "repeated", def: []string{}, pattern: StringListItemPattern},
		{flag: "stringSlice with default", name: "labels", kind: "string", arity: "repeated", def: []string{"a", "b,c"}, pattern: StringListItemPattern},
		{flag: "stringArray", name: "items", kind: "string", arity: "repeated", def: []string{}, pattern: StringListItemPattern},
		{flag: "stringArray with default cannot be emptied", name: "keep", kind: "string", arity: "repeated", def: []string{"x"}, pattern: StringListItemPattern, minItems: 1},
		{flag: "intSlice", name: "nums", kind: "integer", arity: "repeated", def: []int64{}},
		{flag: "intSlice with default cannot be emptied", name: "ports", kind: "integer", arity: "repeated", def: []int64{80}, minItems: 1},
	}
	for _, tt := range tests {
		t.Run(tt.flag, func(t *testing.T) {
			p := param(t, types, tt.name)
			if p == nil {
				t.Fatalf("no parameter %q", tt.name)
			}
			ptr := func(f *float64) any {
				if f == nil {
					return nil
				}
				return *f
			}
			got := row{flag: tt.flag, name: p.Name, kind: p.Kind, arity: p.Arity, min: ptr(p.Minimum), max: ptr(p.Maximum),
				def: p.Default, pattern: p.Pattern, minItems: p.MinItems, flagValue: p.FlagValue, short: len(p.Options) == 2}
			if diff := cmp.Diff(tt, got, cmp.AllowUnexported(row{})); diff != "" {
				t.Errorf("(-want +got)\n%s", diff)
			}
			if p.Unrepresentable != nil || !strings.HasPrefix(p.Action, "pflag:") {
				t.Errorf("action %q, unrepresentable %v", p.Action, p.Unrepresentable)
			}
		})
	}
	if p := param(t, types, "target"); p == nil || !p.Required {
		t.Errorf("MarkFlagRequired not read: %+v", p)
	}
}

// TestWalkLeavesOut: hidden, deprecated, help and excluded flags are not
// parameters; inherited persistent flags are.
func TestWalkLeavesOut(t *testing.T) {
	root := fixture.New(nil)
	root.InitDefaultHelpFlag() // as cobra does at execution
	for _, c := range root.Commands() {
		c.InitDefaultHelpFlag()
	}
	tree, err := Walk(root, fixtureOptions)
	if err != nil {
		t.Fatal(err)
	}
	types := mustFind(t, tree, "types")
	for _, gone := range []string{"secret", "old", "help", "json", "trace"} {
		if p := param(t, types, gone); p != nil {
			t.Errorf("flag %q is a parameter: %+v", gone, p)
		}
	}
	if p := param(t, types, "profile"); p == nil || p.Default != "default" {
		t.Errorf("inherited persistent flag --profile missing: %+v", p)
	}
	// Without the exclusion the machine-mode flag is an ordinary parameter.
	all, _ := Walk(fixture.New(nil), nil)
	if param(t, mustFind(t, all, "types"), "json") == nil {
		t.Error("--json left out without ExcludeFlags")
	}
}

func TestWalkTreeShape(t *testing.T) {
	tree := fixtureTree(t)
	if tree.Program != "fixture" || tree.Dialect != projector.DialectPflag {
		t.Errorf("program %q dialect %q", tree.Program, tree.Dialect)
	}
	if root := tree.Find(); root == nil || len(root.Path) != 0 || root.Runnable {
		t.Errorf("root %+v", root)
	}
	sched := mustFind(t, tree, "sched")
	if sched.Runnable || sched.Summary != "Schedules (a group)" {
		t.Errorf("schedule %+v", sched)
	}
	list := mustFind(t, tree, "sched", "ls")
	if !list.Runnable || strings.Join(list.Path, " ") != "schedule list" || !cmp.Equal(list.Aliases, []string{"ls"}) {
		t.Errorf("schedule list %+v", list)
	}
	// Parents before children.
	seen := map[string]bool{}
	for _, c := range tree.Commands {
		if len(c.Path) > 0 && !seen[strings.Join(c.Path[:len(c.Path)-1], " ")] {
			t.Errorf("%q listed before its parent", c.Path)
		}
		seen[strings.Join(c.Path, " ")] = true
	}
	// The model round-trips through JSON.
	raw, err := json.Marshal(tree)
	if err != nil {
		t.Fatal(err)
	}
	var back projector.Tree
	if err := json.Unmarshal(raw, &back); err != nil || len(back.Commands) != len(tree.Commands) {
		t.Fatalf("JSON round trip: %v", err)
	}
}

func TestWalkGroups(t *testing.T) {
	g := mustFind(t, fixtureTree(t), "groups")
	wantGroups := []projector.Group{{Params: []string{"yaml", "toml"}, Required: true}, {Params: []string{"a", "b", "c"}}}
	sortGroups := cmp.Transformer("sort", func(in []projector.Group) map[string]bool {
		out := map[string]bool{}
		for _, g := range in {
			out[strings.Join(g.Params, ",")] = g.Required
		}
		return out
	})
	if diff := cmp.Diff(wantGroups, g.Groups, sortGroups); diff != "" {
		t.Errorf("groups (-want +got)\n%s", diff)
	}
	if diff := cmp.Diff([][]string{{"x", "y"}}, g.AnyRequired); diff != "" {
		t.Errorf("any-required (-want +got)\n%s", diff)
	}
}

// TestWalkUnavailable: one fixture command per case that makes a command
// unavailable; the error names the command, the parameter and the offending
// action or type.
func TestWalkUnavailable(t *testing.T) {
	tree := fixtureTree(t)
	tests := []struct {
		rule         string
		path         string
		param, typ   string
		reasonSubstr string
	}{
		{"flags required together", "together", "", "", "must be given together"},
		{"flag parsing disabled", "raw", "", "", "DisableFlagParsing"},
		{"required flag hidden", "hiddenreq", "", "", "--token is required but hidden"},
		{"Args validator that reads content", "picky", "", "", "accepts no count of positional arguments"},
		{"a group that runs nothing", "schedule", "", "", "only dispatches"},
	}
	for _, tt := range tests {
		t.Run(tt.rule, func(t *testing.T) {
			cmd := mustFind(t, tree, strings.Fields(tt.path)...)
			_, err := projector.Project(cmd)
			var ue *projector.UnavailableError
			if !errors.As(err, &ue) {
				t.Fatalf("Project = %v, want *UnavailableError", err)
			}
			if ue.Param != tt.param || ue.Type != tt.typ || !strings.Contains(ue.Reason, tt.reasonSubstr) {
				t.Errorf("got %+v", ue)
			}
			if tt.typ != "" && ue.Action != "pflag:"+tt.typ {
				t.Errorf("action %q", ue.Action)
			}
			if !strings.Contains(ue.Error(), `command "`+tt.path+`"`) {
				t.Errorf("message does not name the command: %s", ue)
			}
		})
	}
}

func TestPositionals(t *testing.T) {
	type want struct {
		names  string // "name:arity:required" joined by spaces
		reason string
	}
	tests := []struct {
		rule string
		use  string
		args cobra.PositionalArgs
		want want
	}{
		{"required words", "c MODEL PROMPT", cobra.ExactArgs(2), want{names: "model:one:true prompt:one:true"}},
		{"optional last", "c MODEL [PROMPT]", cobra.RangeArgs(1, 2), want{names: "model:one:true prompt:optional:false"}},
		{"variadic", "c ARGS...", cobra.MinimumNArgs(1), want{names: "args:one_or_more:true"}},
		{"optional variadic", "c [ARGS...]", nil, want{names: "args:zero_or_more:false"}},
		{"optional variadic, dots outside", "c [ARG]...", cobra.ArbitraryArgs, want{names: "arg:zero_or_more:false"}},
		{"angle brackets and [flags]", "c <name> [flags]", cobra.ExactArgs(1), want{names: "name:one:true"}},
		{"camelCase and dashes", "c promptFile dry-run", cobra.ExactArgs(2), want{names: "prompt_file:one:true dry_run:one:true"}},
		{"no positionals, NoArgs", "c", cobra.NoArgs, want{names: ""}},
		{"a validator wider than the Use line is fine", "c NAME", cobra.ArbitraryArgs, want{names: "name:one:true"}},
		// The validator settles what the Use line gets wrong.
		{"validator narrower than the Use line", "c [NAME]", cobra.ExactArgs(1), want{names: "name:one:true"}},
		{"login [HOST] with ExactArgs(1)", "login [HOST]", cobra.ExactArgs(1), want{names: "host:one:true"}},
		{"validator demands what the Use line omits", "c", cobra.ExactArgs(1), want{names: "arg1:one:true"}},
		{"variadic bounded by the validator", "c ARGS...", cobra.RangeArgs(1, 2), want{names: "args:one:true args_2:optional:false"}},
		{"Use line names more than the validator takes", "c NAME", cobra.NoArgs, want{names: ""}},
		// Two or more optional positionals: read left to right.
		{"two optional", "copy [SRC] [DEST]", cobra.RangeArgs(0, 2), want{names: "src:optional:false dest:optional:false"}},
		{"optional run then variadic", "c A [B] [C] [D...]", cobra.MinimumNArgs(1), want{names: "a:one:true b:optional:false c:optional:false d:zero_or_more:false"}},
		{"a wide range offers the first few", "c [FILE...]", cobra.RangeArgs(0, 20), want{names: "file:optional:false file_2:optional:false file_3:optional:false file_4:optional:false"}},
		{"a Use line narrower than the validator is offered as it stands", "c", cobra.RangeArgs(0, 20), want{names: ""}},
		// Prose in the Use line: sanitized names.
		{"alternatives in angle brackets", "c <file|url>", cobra.ExactArgs(1), want{names: "file_or_url:one:true"}},
		{"alternatives with spaces", "c [name | id]", cobra.MaximumNArgs(1), want{names: "name_or_id:optional:false"}},
		{"nested optional items", "c [ITEM1 [ITEM2 ...]]", cobra.ArbitraryArgs, want{names: "item1:zero_or_more:false"}},
		{"bare dots", "c [...]", nil, want{names: "args:zero_or_more:false"}},
		{"choice syntax", "c (a|b)", nil, want{names: "a_or_b:one:true"}},
		{"braces", "c {start|stop}", cobra.ExactArgs(1), want{names: "start_or_stop:one:true"}},
		{"unbalanced bracket", "c [A", nil, want{names: "a:optional:false"}},
		{"flag-like words are not positionals", "c [-f FILE] NAME", cobra.ExactArgs(1), want{names: "name:one:true"}},
		// A Use line out of order names nothing reliably: generic names.
		{"required after optional", "c [A] B", cobra.RangeArgs(1, 2), want{names: "arg1:one:true arg2:optional:false"}},
		{"anything after a variadic", "c A... B", nil, want{names: "args:zero_or_more:false"}},
		// What stays undeterminable, named.
		{"counts that are not a range", "c [A] [B]", func(_ *cobra.Command, a []string) error {
			if len(a) == 1 {
				return errors.New("zero or two")
			}
			return nil
		}, want{reason: "accepts 0 and 2 positional arguments but not 1"}},
		{"panicking validator", "c A", func(*cobra.Command, []string) error { panic("boom") }, want{reason: "accepts no count"}},
	}
	for _, tt := range tests {
		t.Run(tt.rule, func(t *testing.T) {
			c := &cobra.Command{Use: tt.use, Args: tt.args, Run: func(*cobra.Command, []string) {}}
			parent := &cobra.Command{Use: "p"}
			parent.AddCommand(c)
			params, u := positionals(c)
			var got want
			if u != nil {
				got.reason = u.Reason
			}
			var names []string
			for _, p := range params {
				names = append(names, p.Name+":"+string(p.Arity)+":"+map[bool]string{true: "true", false: "false"}[p.Required])
			}
			got.names = strings.Join(names, " ")
			if tt.want.reason != "" {
				if !strings.Contains(got.reason, tt.want.reason) {
					t.Fatalf("reason %q, want it to contain %q", got.reason, tt.want.reason)
				}
				return
			}
			if got != tt.want {
				t.Fatalf("got %+v, want %+v", got, tt.want)
			}
		})
	}
	// ValidArgs enforced by the validator become the positionals' choices.
	choose := mustFind(t, fixtureTree(t), "choose")
	if diff := cmp.Diff([]any{"red", "green", "blue"}, param(t, choose, "color").Choices); diff != "" {
		t.Errorf("choices (-want +got)\n%s", diff)
	}
	// A root with subcommands and no Args validator takes no positionals.
	root := &cobra.Command{Use: "r X", Run: func(*cobra.Command, []string) {}}
	root.AddCommand(&cobra.Command{Use: "sub"})
	if ps, u := positionals(root); u != nil || len(ps) != 0 {
		t.Errorf("root with subcommands: positionals %v, %v; want none", ps, u)
	}
}

func TestSnakeCase(t *testing.T) {
	for in, want := range map[string]string{"dry-run": "dry_run", "promptFile": "prompt_file", "MODEL": "model", "PROMPT_FILE": "prompt_file", "v2Name": "v2_name", "a.b": "a_b",
		"dry_run": "dry_run", "c10": "c10", "x": "x", "": "", "é-x": "é_x", "naïve": "naïve"} {
		if got := snakeCase(in); got != want {
			t.Errorf("snakeCase(%q) = %q, want %q", in, got, want)
		}
	}
}
