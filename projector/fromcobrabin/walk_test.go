package fromcobrabin_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/verbsurface/verbsurface/projector"
	"github.com/verbsurface/verbsurface/projector/fromcobrabin"
	"github.com/verbsurface/verbsurface/projector/internal/goldentree"
)

func walkFixture(t *testing.T, opts *fromcobrabin.Options) *projector.Tree {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	tree, err := fromcobrabin.Walk(ctx, []string{fixtureBin}, opts)
	if err != nil {
		t.Fatal(err)
	}
	return tree
}

// TestGoldenFixture pins the schema and fingerprint of every fixture
// command read from its help (and the reason of every unavailable one) in
// testdata/fixture.golden.json.
func TestGoldenFixture(t *testing.T) {
	goldentree.Check(t, walkFixture(t, nil), "fixture")
}

// Reading a tree runs no command: every fixture command records its run
// in FIXTURE_RAN, and after a walk the file does not exist — not even the
// command that reads its argv raw, whose --help would run it.
func TestWalkRunsNothing(t *testing.T) {
	ran := filepath.Join(t.TempDir(), "ran")
	tree := walkFixture(t, &fromcobrabin.Options{Env: append(os.Environ(), "FIXTURE_RAN="+ran)})
	if len(tree.Commands) < 10 {
		t.Fatalf("only %d commands read", len(tree.Commands))
	}
	if b, err := os.ReadFile(ran); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("commands ran while reading the tree: %q (%v)", b, err)
	}
}

// The commands the program offers are the tree's: hidden, deprecated and
// help-topic commands are not, nor cobra's own help and completion
// commands; parents come before children, siblings in the program's order.
func TestWalkCommands(t *testing.T) {
	tree := walkFixture(t, nil)
	var got []string
	for _, c := range tree.Commands {
		got = append(got, strings.Join(c.Path, " "))
	}
	want := []string{"", "broken", "custom", "exclusive", "get", "get item", "get items", "pick", "placeholders", "prose", "raw", "rawhelp", "required", "select", "tristate", "twice", "types", "unknown", "vague", "validate"}
	if strings.Join(got, ",") != strings.Join(want, ",") {
		t.Errorf("commands %q, want %q", got, want)
	}
	if tree.Program != "fixture" || tree.Dialect != projector.DialectPflag {
		t.Errorf("program %q dialect %q", tree.Program, tree.Dialect)
	}
	if c := tree.Find("g", "one"); c == nil || strings.Join(c.Path, " ") != "get item" {
		t.Errorf("aliases: Find(g, one) = %v", c)
	}
	if r := tree.Find(); r.Runnable || r.Summary != "A cobra CLI exercising the help reader." {
		t.Errorf("root: runnable %v, summary %q", r.Runnable, r.Summary)
	}
	if c := tree.Find("get", "item"); c.Summary != "Get one item" {
		t.Errorf("summary %q: a command's is the Short its parent completes", c.Summary)
	}
}

// Each rule that makes a command unavailable, by the fixture command that
// breaks it and the words its reason must hold.
func TestWalkUnavailable(t *testing.T) {
	tree := walkFixture(t, nil)
	for _, tc := range []struct {
		rule   string
		path   string
		param  string
		reason string
	}{
		{"a command that does not parse its flags is not asked for its help", "raw", "", "does not parse flags (DisableFlagParsing"},
		{"nor one that offers cobra's help flag but completes past an unknown flag", "rawhelp", "", "goes on past an unknown flag (--verbsurface-no-such-flag), so it does not parse flags"},
		{"a Use line out of grammatical order gives no positionals", "prose", "", "positionals cannot be determined"},
		{"a command whose subcommands cannot be listed", "broken", "", "listing its subcommands failed"},
		{"a usage line naming an option the command does not have", "unknown", "", "names the option -x, which the command does not have"},
		{"a word that may be a placeholder past the raw usage's first line", "vague", "format", "past the first line"},
	} {
		t.Run(tc.rule, func(t *testing.T) {
			c := tree.Find(strings.Fields(tc.path)...)
			if c == nil {
				t.Fatalf("no command %q", tc.path)
			}
			_, err := projector.Project(c)
			var ue *projector.UnavailableError
			if !errors.As(err, &ue) {
				t.Fatalf("projects (%v), want unavailable", err)
			}
			if ue.Param != tc.param || !strings.Contains(ue.Reason, tc.reason) || !strings.Contains(ue.Error(), tc.path) {
				t.Errorf("unavailable for %q (parameter %q), want %q (parameter %q)", ue.Error(), ue.Param, tc.reason, tc.param)
			}
		})
	}
}

// How each flag spelling of pflag's usage is read: by its type word, or
// through the completion protocol where the word is a placeholder.
func TestWalkFlags(t *testing.T) {
	tree := walkFixture(t, nil)
	param := func(path, name string) *projector.Param {
		t.Helper()
		for _, p := range tree.Find(strings.Fields(path)...).Params {
			if p.Name == name {
				return p
			}
		}
		t.Fatalf("%s: no parameter %s", path, name)
		return nil
	}
	for _, tc := range []struct {
		rule       string
		path, name string
		kind       projector.Kind
		arity      projector.Arity
		def        any
		action     string
	}{
		{"a string's quoted default", "types", "greeting", projector.KindString, projector.ArityOne, `hello, "world" (default x)`, "pflag:string"},
		{"prose that looks like a default is prose", "types", "region", projector.KindString, projector.ArityOne, "", "pflag:string"},
		{"a typed default that does not read is prose", "types", "jobs", projector.KindInteger, projector.ArityOne, int64(0), "pflag:int"},
		{"no word: a bool, spelled --flag=value", "types", "enabled", projector.KindBoolean, projector.ArityOne, false, "pflag:bool"},
		{"a bool's default", "types", "color", projector.KindBoolean, projector.ArityOne, true, "pflag:bool"},
		{"int8's range and default", "types", "i8", projector.KindInteger, projector.ArityOne, int64(-2), "pflag:int8"},
		{"float means float64", "types", "f64", projector.KindNumber, projector.ArityOne, 0.5, "pflag:float64"},
		{"a duration's default", "types", "timeout", projector.KindString, projector.ArityOne, "1m30s", "pflag:duration"},
		{"a duration's zero", "types", "grace", projector.KindString, projector.ArityOne, "0s", "pflag:duration"},
		{"strings means stringSlice", "types", "labels", projector.KindString, projector.ArityRepeated, []string{"a", "b,c"}, "pflag:stringSlice"},
		{"ints means intSlice", "types", "ports", projector.KindInteger, projector.ArityRepeated, []int64{80}, "pflag:intSlice"},
		{"stringToString", "types", "env", projector.KindString, projector.ArityRepeated, []string{}, "pflag:stringToString"},
		{"another built-in type is string-in", "types", "addr", projector.KindString, projector.ArityOne, nil, "pflag:ip"},
		{"a custom type is string-in", "types", "level", projector.KindString, projector.ArityOne, nil, "pflag:level"},
		{"a camel-case name in snake case", "types", "prompt_file", projector.KindString, projector.ArityOne, "", "pflag:string"},
		{"a placeholder that reads x is a string", "placeholders", "greet", projector.KindString, projector.ArityOne, nil, "pflag:`NAME`"},
		{"a placeholder with a quoted default is a string with it", "placeholders", "motto", projector.KindString, projector.ArityOne, "carpe diem", "pflag:`MOTTO`"},
		{"a placeholder that parses bare and as true is a bool", "placeholders", "switch", projector.KindBoolean, projector.ArityOne, false, "pflag:`switch`"},
		{"a placeholder that parses bare and as 2 is a count", "placeholders", "loud", projector.KindInteger, projector.ArityOne, int64(0), "pflag:`n`"},
		{"a placeholder that reads 1 and -1 and 2^31, not x nor 1.5, is an int", "placeholders", "size", projector.KindInteger, projector.ArityOne, int64(0), "pflag:`N`"},
		{"a placeholder that reads 1.5 and 1e39 is a float64", "placeholders", "ratio", projector.KindNumber, projector.ArityOne, 0.0, "pflag:`RATIO`"},
		{"a placeholder that reads 1.5, not 1e39, is a float32", "placeholders", "scale", projector.KindNumber, projector.ArityOne, 0.0, "pflag:`SCALE`"},
		{"a placeholder that reads 1 and 128, not -1 nor 256, is a uint8", "placeholders", "byte", projector.KindInteger, projector.ArityOne, uint64(0), "pflag:`BYTE`"},
		{"a placeholder that reads -1 and 128, not 32768, is an int16 with its default", "placeholders", "delta", projector.KindInteger, projector.ArityOne, int64(-3), "pflag:`DELTA`"},
		{"a placeholder that reads 1s, not 1, is a duration", "placeholders", "every", projector.KindString, projector.ArityOne, "1m0s", "pflag:`INTERVAL`"},
		{"a placeholder that reads none of them is a string its Set validates", "placeholders", "shape", projector.KindString, projector.ArityOne, nil, "pflag:`SHAPE`"},
		{"a placeholder cobra completes again once given is repeated", "placeholders", "header", projector.KindString, projector.ArityRepeated, []string{}, "pflag:`HEADER`"},
		{"a repeated placeholder's default", "placeholders", "exclude", projector.KindString, projector.ArityRepeated, []string{"a", "b"}, "pflag:`PATTERN`"},
		{"a word the usage holds without quotes is the type", "placeholders", "note", projector.KindString, projector.ArityOne, "", "pflag:string"},
		{"an inherited placeholder", "placeholders", "config", projector.KindString, projector.ArityOne, nil, "pflag:`FILE`"},
		{"a placeholder beside a required flag, asked for on its own", "required", "dest", projector.KindString, projector.ArityOne, nil, "pflag:`DIR`"},
	} {
		t.Run(tc.rule, func(t *testing.T) {
			p := param(tc.path, tc.name)
			if p.Unrepresentable != nil {
				t.Fatalf("unrepresentable: %s", p.Unrepresentable.Reason)
			}
			if p.Kind != tc.kind || p.Arity != tc.arity || p.Action != tc.action || !equalDefault(p.Default, tc.def) {
				t.Errorf("got %s %s %s default %#v, want %s %s %s default %#v", p.Kind, p.Arity, p.Action, p.Default, tc.kind, tc.arity, tc.action, tc.def)
			}
		})
	}
	if p := param("types", "output"); strings.Join(p.Options, " ") != "--output -o" {
		t.Errorf("options %q", p.Options)
	}
	if p := param("types", "mode"); !p.Bare || p.Const != "auto" {
		t.Errorf("mode: bare %v const %v, want a bare form storing auto", p.Bare, p.Const)
	}
	if p := param("placeholders", "target"); !p.Bare || p.Const != "-" {
		t.Errorf("target: bare %v const %v, want a bare form storing -", p.Bare, p.Const)
	}
	if p := param("required", "id"); p.Required {
		t.Error("a required flag is marked required; help cannot tell it from a one-required group's")
	}
	root := tree.Find()
	for _, p := range root.Params {
		if p.Name == "version" || p.Name == "help" || p.Name == "trace" {
			t.Errorf("root offers %s: cobra's own --version and --help, and hidden flags, are no parameters", p.Name)
		}
	}
	if pos := param("get items", "name"); pos.Arity != projector.ArityZeroOrMore || !pos.Positional() {
		t.Errorf("get items NAME...: %s %s", pos.Arity, pos.Options)
	}
}

// Usage lines as program authors write them: an option's placeholder is
// its value, not a positional ("select -f <file> -r <format> <selector>"
// takes one positional), and a word repeated three times means any number
// ("validate <file> <file> <file>": one or more).
func TestWalkUsageLines(t *testing.T) {
	tree := walkFixture(t, nil)
	positionals := func(path string) string {
		t.Helper()
		c := tree.Find(path)
		if c.Unrepresentable != nil {
			t.Fatalf("%s unavailable: %s", path, c.Unrepresentable.Reason)
		}
		var out []string
		for _, p := range c.Params {
			if p.Positional() {
				out = append(out, fmt.Sprintf("%s:%s:%v", p.Name, p.Arity, p.Required))
			}
		}
		return strings.Join(out, " ")
	}
	if got, want := positionals("select"), "selector:one:true"; got != want {
		t.Errorf("select -f <file> -r <format> <selector>: positionals %q, want %q", got, want)
	}
	if got, want := positionals("validate"), "file:one_or_more:true"; got != want {
		t.Errorf("validate <file> <file> <file>: positionals %q, want %q", got, want)
	}
}

// A flag printed with no type word is a bool only when its parser reads
// --flag=true and --flag=false and its help prints no default a bool
// cannot have: the fixture's tristate flags take on, off or auto, and are
// strings (their Set the validator), so "auto" can be asked for.
func TestWalkNoWordFlags(t *testing.T) {
	tree := walkFixture(t, nil)
	c := tree.Find("tristate")
	for _, name := range []string{"color", "pager"} {
		i := slices.IndexFunc(c.Params, func(p *projector.Param) bool { return p.Name == name })
		if i < 0 {
			t.Fatalf("no parameter %s", name)
		}
		p := c.Params[i]
		if p.Unrepresentable != nil || p.Kind != projector.KindString || p.Arity != projector.ArityOne || p.Default != nil {
			t.Errorf("--%s: %s %s default %v (%v), want a string with no default", name, p.Kind, p.Arity, p.Default, p.Unrepresentable)
		}
	}
	// A bool whose usage ends in prose that reads like a default of
	// several words stays a bool.
	if i := slices.IndexFunc(c.Params, func(p *projector.Param) bool { return p.Name == "all" }); i < 0 || c.Params[i].Kind != projector.KindBoolean {
		t.Errorf("--all (\"(default hides the old ones)\"): not a boolean")
	}
	argv, err := projector.RenderArgv(projector.DialectPflag, c, map[string]any{"pager": "auto"})
	if err != nil || !slices.Contains(argv, "--pager=auto") {
		t.Errorf("render pager=auto: %q %v", argv, err)
	}
}

func equalDefault(a, b any) bool {
	if a == nil || b == nil {
		return a == nil && b == nil
	}
	return strings.TrimSpace(strings.ReplaceAll(fmtAny(a), " ", "")) == strings.TrimSpace(strings.ReplaceAll(fmtAny(b), " ", ""))
}

// ExcludeFlags leaves a flag out everywhere and records it.
func TestWalkExcludeFlags(t *testing.T) {
	tree := walkFixture(t, &fromcobrabin.Options{ExcludeFlags: []string{"profile"}})
	c := tree.Find("types")
	for _, p := range c.Params {
		if p.Name == "profile" {
			t.Fatal("profile offered")
		}
	}
	if strings.Join(c.Excluded, " ") != "--profile" {
		t.Errorf("excluded %q", c.Excluded)
	}
}

// A walk that cannot produce a tree fails as a whole, with its kind.
func TestWalkFailures(t *testing.T) {
	for _, tc := range []struct {
		rule string
		argv []string
		opts *fromcobrabin.Options
		kind fromcobrabin.ErrorKind
		msg  string
	}{
		{"no such executable", []string{filepath.Join(t.TempDir(), "nothing")}, nil, fromcobrabin.KindLaunch, "nothing"},
		{"a program that is not cobra's", []string{"/bin/echo"}, nil, fromcobrabin.KindProtocol, "completion"},
		{"a call past its timeout", []string{fixtureBin}, &fromcobrabin.Options{Timeout: 300 * time.Millisecond, Env: append(os.Environ(), "FIXTURE_SLEEP=1")}, fromcobrabin.KindCall, "did not finish within 300ms"},
		{"a call past its output cap", []string{fixtureBin}, &fromcobrabin.Options{MaxOutput: 1 << 20, Env: append(os.Environ(), "FIXTURE_FLOOD=1")}, fromcobrabin.KindCall, "printed more than 1048576 bytes"},
		{"more commands than allowed", []string{fixtureBin}, &fromcobrabin.Options{MaxCommands: 3}, fromcobrabin.KindLimit, "more than 3 command paths"},
	} {
		t.Run(tc.rule, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			start := time.Now()
			tree, err := fromcobrabin.Walk(ctx, tc.argv, tc.opts)
			var e *fromcobrabin.Error
			if !errors.As(err, &e) || e.Kind != tc.kind || !strings.Contains(err.Error(), tc.msg) {
				t.Fatalf("Walk = %v, %v; want an Error of kind %s saying %q", tree, err, tc.kind, tc.msg)
			}
			if time.Since(start) > 30*time.Second {
				t.Errorf("took %s", time.Since(start))
			}
		})
	}
}

// A cancelled walk stops and says so.
func TestWalkCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := fromcobrabin.Walk(ctx, []string{fixtureBin}, nil); !errors.Is(err, context.Canceled) {
		t.Fatalf("Walk = %v, want context.Canceled", err)
	}
}

// Walks share nothing: several at once give the same tree (run with
// -race).
func TestWalkConcurrent(t *testing.T) {
	want := goldentree.Entries(t, walkFixture(t, nil))
	var wg sync.WaitGroup
	errs := make(chan string, 3)
	for range 3 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			tree, err := fromcobrabin.Walk(context.Background(), []string{fixtureBin}, &fromcobrabin.Options{Parallel: 2})
			if err != nil {
				errs <- err.Error()
				return
			}
			if got := goldentree.Entries(t, tree); fmtAny(got) != fmtAny(want) {
				errs <- "a concurrent walk gave another tree"
			}
		}()
	}
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Error(e)
	}
}
