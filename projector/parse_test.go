package projector

import (
	"errors"
	"fmt"
	"strings"
	"testing"
)

// parseTree is a small CLI in the given dialect: a root with a persistent
// flag, a group "job" with "list", and "agent MODEL PROMPT" with flags of
// every shape the reader must handle.
func parseTree(d Dialect) *Tree {
	str := func(name string, opts ...string) *Param {
		return &Param{Name: name, Options: opts, Kind: KindString, Arity: ArityOne}
	}
	flag := func(name string, opts ...string) *Param {
		return &Param{Name: name, Options: opts, Kind: KindBoolean, Arity: ArityNone, FlagValue: true}
	}
	maxv := 3.0
	return &Tree{Program: "cli", Dialect: d, Commands: []*Command{
		{Path: []string{}, Params: []*Param{}},
		{Path: []string{"job"}, Params: []*Param{}},
		{Path: []string{"job", "list"}, Runnable: true, Params: []*Param{}},
		{Path: []string{"agent"}, Aliases: []string{"a"}, Runnable: true, Excluded: []string{"--json", "-j", "--home"}, Params: []*Param{
			{Name: "model", Kind: KindString, Arity: ArityOne, Required: true, Choices: []any{"echo", "slow"}},
			{Name: "prompt", Kind: KindString, Arity: ArityOne, Required: true},
			str("label", "--label", "-l"),
			{Name: "prompt_file", Options: []string{"--prompt-file", "-p"}, Kind: KindString, Arity: ArityOne, Path: PathUseRead},
			{Name: "count", Options: []string{"--count", "-n"}, Kind: KindInteger, Arity: ArityOne},
			flag("quiet", "--quiet", "-q"),
			flag("wait", "--wait", "-w"),
			{Name: "verbose", Options: []string{"-v"}, Kind: KindInteger, Arity: ArityCount, Maximum: &maxv},
			{Name: "tag", Options: []string{"--tag", "-t"}, Kind: KindString, Arity: ArityRepeated},
			{Name: "pair", Options: []string{"--pair"}, Kind: KindString, Arity: ArityExactly, N: 2},
			{Name: "color", Options: []string{"--color"}, Kind: KindString, Arity: ArityOptional, Bare: true, Const: "auto"},
			{Name: "mode", Options: []string{"--mode"}, Kind: KindString, Arity: ArityOne, Choices: []any{"fast", "safe"}},
		}},
	}}
}

// TestParseArgv: one row per rule of ParseArgv, in its order, with what it
// reads when it reads.
func TestParseArgv(t *testing.T) {
	tests := []struct {
		name string
		d    Dialect
		argv []string
		want string // the reading ("agent: label=x quiet | echo hi"), or "error: <reason part>"
	}{
		{"a plain command", DialectPflag, []string{"agent", "echo", "hi"}, "agent: | model=echo prompt=hi"},
		{"an alias names the command", DialectPflag, []string{"a", "echo", "hi"}, "agent: | model=echo prompt=hi"},
		{"a nested command", DialectPflag, []string{"job", "list"}, "job list: |"},
		// 1. the command path
		{"an option before the path ends", DialectPflag, []string{"--label=x", "agent", "echo", "hi"}, "error: before the command path ends"},
		{"a word naming no subcommand", DialectPflag, []string{"jobs", "list"}, "error: names no subcommand"},
		{"a group runs nothing", DialectPflag, []string{"job"}, "error: group of commands"},
		// 3. exact spelling
		{"an unknown option", DialectPflag, []string{"agent", "--bogus", "echo", "hi"}, "error: not an option of"},
		{"an abbreviation argparse would accept", DialectArgparse, []string{"agent", "--prompt-f=/etc/shadow", "echo", "hi"}, "error: an abbreviation"},
		// 4. excluded
		{"an excluded option", DialectPflag, []string{"agent", "--json", "echo", "hi"}, "excluded: --json"},
		{"an excluded option with a value attached", DialectPflag, []string{"agent", "--home=/x", "echo", "hi"}, "excluded: --home"},
		{"an excluded short option inside combined flags", DialectPflag, []string{"agent", "-qj", "echo", "hi"}, "excluded: -j"},
		// 5. combined short options and attached values
		{"combined flags", DialectPflag, []string{"agent", "-qw", "echo", "hi"}, "agent: quiet wait | model=echo prompt=hi"},
		{"combined flags ending in a value", DialectClick, []string{"agent", "-qlx", "echo", "hi"}, "agent: quiet label=x | model=echo prompt=hi"},
		{"a count repeated", DialectArgparse, []string{"agent", "-vvv", "echo", "hi"}, "agent: verbose verbose verbose | model=echo prompt=hi"},
		{"a combined short option that is unknown", DialectPflag, []string{"agent", "-qz", "echo", "hi"}, "error: -z is not an option"},
		{"a short option with =", DialectClick, []string{"agent", "-l=x", "echo", "hi"}, "error: click keeps the '='"},
		{"a value on a flag", DialectArgparse, []string{"agent", "--quiet=yes", "echo", "hi"}, "error: takes no value"},
		{"pflag's bool value", DialectPflag, []string{"agent", "--quiet=false", "echo", "hi"}, "agent: quiet=false | model=echo prompt=hi"},
		// 6. values
		{"a value as the next word", DialectPflag, []string{"agent", "--label", "x", "echo", "hi"}, "agent: label=x | model=echo prompt=hi"},
		{"a value after =", DialectArgparse, []string{"agent", "--label=-x", "echo", "hi"}, "agent: label=-x | model=echo prompt=hi"},
		{"a missing value", DialectPflag, []string{"agent", "echo", "hi", "--label"}, "error: needs 1 value"},
		{"a dash-leading value as a separate word", DialectPflag, []string{"agent", "--label", "--prompt-file=/etc/shadow", "echo", "hi"}, "error: starts with '-' as a separate word"},
		{"-- as a value", DialectPflag, []string{"agent", "--label", "--", "echo", "hi"}, "error: starts with '-'"},
		{"a negative number for pflag", DialectPflag, []string{"agent", "-n", "-3", "echo", "hi"}, "agent: count=-3 | model=echo prompt=hi"},
		{"a negative number for argparse", DialectArgparse, []string{"agent", "-n", "-3", "echo", "hi"}, "error: starts with '-'"},
		{"two values", DialectClick, []string{"agent", "--pair", "a", "b", "echo", "hi"}, "agent: pair=a,b | model=echo prompt=hi"},
		{"a repeated option", DialectPflag, []string{"agent", "-t", "a", "--tag=b", "echo", "hi"}, "agent: tag=a tag=b | model=echo prompt=hi"},
		{"a bare option last", DialectArgparse, []string{"agent", "echo", "hi", "--color"}, "agent: color | model=echo prompt=hi"},
		{"a bare option before a word argparse would take", DialectArgparse, []string{"agent", "--color", "echo", "hi"}, "error: may take the next word"},
		{"a bare option before a word pflag leaves alone", DialectPflag, []string{"agent", "--color", "echo", "hi"}, "agent: color | model=echo prompt=hi"},
		// 7. values the parameter does not admit
		{"not one of the choices", DialectPflag, []string{"agent", "--mode=wild", "echo", "hi"}, "error: not one of the choices"},
		{"not an integer", DialectPflag, []string{"agent", "-n", "many", "echo", "hi"}, "error: takes an integer"},
		{"a positional not among its choices", DialectPflag, []string{"agent", "gpt", "hi"}, "error: not one of the choices"},
		// 8. positionals
		{"too many positionals", DialectPflag, []string{"agent", "echo", "hi", "there"}, "error: takes at most 2"},
		{"too few positionals", DialectPflag, []string{"agent", "echo"}, "error: needs at least 2"},
		{"-- makes the rest positional", DialectPflag, []string{"agent", "--", "echo", "--prompt-file=/etc/shadow"}, "agent: | model=echo prompt=--prompt-file=/etc/shadow"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			pa, err := ParseArgv(parseTree(tt.d), tt.argv)
			got := ""
			var ae *ArgvError
			switch {
			case errors.As(err, &ae) && ae.Excluded != "":
				got = "excluded: " + ae.Excluded
			case err != nil:
				got = "error: " + err.Error()
			default:
				got = reading(pa)
			}
			if strings.HasPrefix(tt.want, "error: ") {
				if !strings.HasPrefix(got, "error: ") || !strings.Contains(got, strings.TrimPrefix(tt.want, "error: ")) {
					t.Fatalf("ParseArgv(%q) = %s; want %s", tt.argv, got, tt.want)
				}
				return
			}
			if got != tt.want {
				t.Fatalf("ParseArgv(%q) = %s; want %s", tt.argv, got, tt.want)
			}
		})
	}
}

// reading renders what a parse set, for the table.
func reading(pa *ParsedArgv) string {
	var opts, pos []string
	for _, o := range pa.Options {
		if len(o.Values) == 0 {
			opts = append(opts, o.Param.Name)
			continue
		}
		opts = append(opts, o.Param.Name+"="+strings.Join(o.Values, ","))
	}
	for _, p := range pa.Positionals {
		pos = append(pos, p.Param.Name+"="+p.Word)
	}
	return strings.Join(pa.Command.Path, " ") + ": " + strings.TrimSpace(strings.Join(opts, " ")+" | "+strings.Join(pos, " "))
}

// TestParseArgvArgFiles: a word argparse would read as a file of arguments
// is refused wherever it stands, after "--" too (an option's attached
// value is not such a word).
func TestParseArgvArgFiles(t *testing.T) {
	tr := parseTree(DialectArgparse)
	tr.Find("agent").ArgFilePrefixes = "@"
	for _, argv := range [][]string{{"agent", "echo", "@/etc/shadow"}, {"agent", "--", "echo", "@x"}, {"agent", "--label", "@x", "echo", "hi"}} {
		if _, err := ParseArgv(tr, argv); err == nil || !strings.Contains(err.Error(), "file of more arguments") {
			t.Errorf("ParseArgv(%q) = %v", argv, err)
		}
	}
	if _, err := ParseArgv(tr, []string{"agent", "--label=@x", "echo", "hi"}); err != nil {
		t.Errorf("an attached value starting with @: %v", err)
	}
}

// TestParseArgvUnrepresentable: a command whose model is incomplete is
// not read at all.
func TestParseArgvUnrepresentable(t *testing.T) {
	tr := parseTree(DialectPflag)
	tr.Find("agent").Params[2].Unrepresentable = &Unrepresentable{Reason: "custom action"}
	if _, err := ParseArgv(tr, []string{"agent", "echo", "hi"}); err == nil || !strings.Contains(err.Error(), "custom action") {
		t.Fatalf("ParseArgv: %v", err)
	}
}

func TestFillPositionals(t *testing.T) {
	cmd := &Command{Path: []string{"lint"}, Params: []*Param{
		{Name: "a", Kind: KindString, Arity: ArityOne, Required: true},
		{Name: "b", Kind: KindString, Arity: ArityOptional},
		{Name: "c", Kind: KindString, Arity: ArityZeroOrMore},
		{Name: "d", Kind: KindString, Arity: ArityOne, Required: true},
	}}
	for n, want := range map[int]string{2: "a d", 3: "a b d", 5: "a b c c d"} {
		ps, err := fillPositionals(cmd, n)
		if err != nil {
			t.Fatalf("%d words: %v", n, err)
		}
		var names []string
		for _, p := range ps {
			names = append(names, p.Name)
		}
		if got := strings.Join(names, " "); got != want {
			t.Errorf("%d words fill %q; want %q", n, got, want)
		}
	}
	if _, err := fillPositionals(cmd, 1); err == nil {
		t.Error("1 word filled two required positionals")
	}
}

func TestLooksLikePath(t *testing.T) {
	for _, tt := range []struct {
		p    *Param
		want bool
	}{
		{&Param{Name: "config_file", Options: []string{"-c", "--config-file"}, Kind: KindString, Arity: ArityOne}, true},
		{&Param{Name: "write_output", Kind: KindString, Arity: ArityOne}, true},
		{&Param{Name: "o", Options: []string{"-o"}, Metavar: "FILE", Kind: KindString, Arity: ArityOne}, true},
		{&Param{Name: "files", Metavar: "FILE_OR_DIR", Kind: KindString, Arity: ArityZeroOrMore}, true},
		{&Param{Name: "output", Options: []string{"--output", "-o"}, Kind: KindString, Arity: ArityOne}, true},
		{&Param{Name: "output_format", Options: []string{"--output-format"}, Kind: KindString, Arity: ArityOne}, false},
		{&Param{Name: "output", Options: []string{"-o", "--output"}, Kind: KindString, Arity: ArityOne, Choices: []any{"json", "yaml"}}, false},
		{&Param{Name: "output", Options: []string{"-o", "--output"}, Metavar: "format", Kind: KindString, Arity: ArityOne}, false},
		{&Param{Name: "config_data", Kind: KindString, Arity: ArityOne}, false},
		{&Param{Name: "label", Kind: KindString, Arity: ArityOne}, false},
		{&Param{Name: "dir", Kind: KindString, Arity: ArityOne, Path: PathUseDir}, false}, // marked: not a hint but a rule
		{&Param{Name: "output_file", Kind: KindBoolean, Arity: ArityNone}, false},
		// Numbered copies of a path-like word (a usage line's
		// "<file> <file>"): each looks like a path, as the first does.
		{&Param{Name: "file", Kind: KindString, Arity: ArityOne}, true},
		{&Param{Name: "file_2", Kind: KindString, Arity: ArityOne}, true},
		{&Param{Name: "file_3", Kind: KindString, Arity: ArityOne}, true},
		{&Param{Name: "yaml_file1", Kind: KindString, Arity: ArityOptional}, true},
		{&Param{Name: "arg_2", Kind: KindString, Arity: ArityOne}, false},
		{&Param{Name: "2", Kind: KindString, Arity: ArityOne}, false},
	} {
		if got := LooksLikePath(tt.p); got != tt.want {
			t.Errorf("LooksLikePath(%s, metavar %q) = %v; want %v", tt.p.Name, tt.p.Metavar, got, tt.want)
		}
	}
}

// TestWithdrawParams: a withdrawn parameter is supplied, not excluded: a
// command requiring it stays offerable, its exclusive partners go with it
// and the groups it satisfies are gone.
func TestWithdrawParams(t *testing.T) {
	cmd := &Command{Path: []string{"tables"}, Runnable: true, Params: []*Param{
		{Name: "format", Options: []string{"-f", "--format"}, Kind: KindString, Arity: ArityOne, Required: true},
		{Name: "csv", Options: []string{"--csv"}, Kind: KindBoolean, Arity: ArityNone, FlagValue: true},
		{Name: "path", Kind: KindString, Arity: ArityOne, Required: true},
		{Name: "nl", Options: []string{"--nl"}, Kind: KindBoolean, Arity: ArityNone, FlagValue: true},
	}, Groups: []Group{{Params: []string{"format", "csv"}}}, AnyRequired: [][]string{{"format", "nl"}}}
	got := WithdrawParams(cmd, "--format")
	var names []string
	for _, p := range got.Params {
		names = append(names, p.Name)
	}
	if fmt.Sprint(names) != "[path nl]" || len(got.Groups) != 0 || len(got.AnyRequired) != 0 || fmt.Sprint(got.Excluded) != "[-f --format --csv]" {
		t.Fatalf("withdrawn: params %v groups %v any %v excluded %v", names, got.Groups, got.AnyRequired, got.Excluded)
	}
	if _, err := Project(got); err != nil {
		t.Errorf("does not project: %v", err)
	}
	if len(cmd.Params) != 4 || cmd.Excluded != nil {
		t.Error("the command was modified")
	}
}

func TestExcludeFromCommand(t *testing.T) {
	cmd := &Command{Path: []string{"x"}, Runnable: true, Params: []*Param{
		{Name: "home", Options: []string{"--home"}, Kind: KindString, Arity: ArityOne},
		{Name: "src", Kind: KindString, Arity: ArityOptional},
		{Name: "dst", Kind: KindString, Arity: ArityOptional},
	}}
	got, unmatched := ExcludeFromCommand(cmd, "home", "--hmoe")
	if len(got.Params) != 2 || fmt.Sprint(unmatched) != "[--hmoe]" {
		t.Errorf("params %d, unmatched %v", len(got.Params), unmatched)
	}
	if got, _ := ExcludeFromCommand(cmd, "src"); got.Unrepresentable == nil || !strings.Contains(got.Unrepresentable.Reason, "comes before positional dst") {
		t.Errorf("excluding a positional before another: %+v", got.Unrepresentable)
	}
	if got, _ := ExcludeFromCommand(cmd, "dst"); got.Unrepresentable != nil {
		t.Errorf("excluding the last positional: %+v", got.Unrepresentable)
	}
}

// BenchmarkParseArgv reads a stored command line of the size a schedule
// holds: what the stored-command guard costs an op.
func BenchmarkParseArgv(b *testing.B) {
	tr := parseTree(DialectPflag)
	argv := []string{"agent", "--label", "nightly", "-qw", "-n", "4", "--tag=a", "-t", "b", "--mode=safe", "echo", "check the logs"}
	for b.Loop() {
		if _, err := ParseArgv(tr, argv); err != nil {
			b.Fatal(err)
		}
	}
}
