package projector

import (
	"encoding/json"
	"os/exec"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// declaredFind is a command as an operator would declare it: find-like
// options and positionals, with nothing filled in.
func declaredFind() *Command {
	return &Command{Path: []string{"search"}, Summary: "search files", Params: []*Param{
		{Name: "name", Options: []string{"-n", "--name"}},
		{Name: "depth", Options: []string{"--depth"}, Kind: KindInteger},
		{Name: "verbose", Options: []string{"-v"}, Kind: KindBoolean},
		{Name: "quiet", Options: []string{"-q"}, Arity: ArityCount},
		{Name: "tag", Options: []string{"--tag"}, Arity: ArityRepeated},
		{Name: "format", Options: []string{"--format"}, Choices: []any{"json", "text"}, Default: "text"},
		{Name: "root", Path: PathUseDir},
		{Name: "files", Arity: ArityZeroOrMore, Path: PathUseRead},
	}}
}

func TestDeclareFillsDefaults(t *testing.T) {
	tr, err := Declare("find", Rendering{}, declaredFind())
	if err != nil {
		t.Fatal(err)
	}
	if tr.Dialect != DialectDeclared || len(tr.Commands) != 2 || tr.Find() == nil || tr.Find().Runnable {
		t.Fatalf("want the declared command under a root group, got %+v", tr.Commands)
	}
	c := tr.Find("search")
	byName := map[string]*Param{}
	for _, p := range c.Params {
		byName[p.Name] = p
	}
	for _, row := range []struct {
		name  string
		check func(*Param) bool
	}{
		{"name", func(p *Param) bool { return p.Kind == KindString && p.Arity == ArityOne && p.Pattern == "" }},
		{"verbose", func(p *Param) bool { return p.Arity == ArityNone && p.FlagValue && p.Default == false }},
		{"quiet", func(p *Param) bool { return p.Kind == KindInteger && *p.Maximum == MaxCount }},
		{"root", func(p *Param) bool { return p.Required && p.Arity == ArityOne && p.Path == PathUseDir }},
		{"files", func(p *Param) bool { return !p.Required && p.Pattern == "" }},
	} {
		if !row.check(byName[row.name]) {
			t.Errorf("%s: %+v", row.name, byName[row.name])
		}
	}
	if !c.Runnable || c.Rendering == nil {
		t.Errorf("command: %+v", c)
	}
	if declaredFind().Params[0].Kind != "" {
		t.Error("Declare changed its input")
	}
	if _, err := Project(c); err != nil {
		t.Errorf("Project: %v", err)
	}
}

// Without "--", every positional refuses a leading "-"; with separate
// values, every option value does: Declare adds the constraint, or
// refuses a declaration that contradicts it.
func TestDeclareWordsOfTheirOwn(t *testing.T) {
	tr, err := Declare("find", Rendering{Values: ValuesSeparate, NoSeparator: true}, declaredFind())
	if err != nil {
		t.Fatal(err)
	}
	c := tr.Find("search")
	for _, p := range c.Params {
		switch {
		case p.Kind == KindString && p.Choices == nil && p.Pattern != DeclaredValuePattern:
			t.Errorf("%s: pattern %q, want %q", p.Name, p.Pattern, DeclaredValuePattern)
		case p.Kind == KindInteger && p.Arity != ArityCount && (p.Minimum == nil || *p.Minimum != 0):
			t.Errorf("%s: minimum %v, want 0", p.Name, p.Minimum)
		}
	}
	for _, v := range []any{"-x", "--", "-"} {
		if _, err := RenderArgv(DialectDeclared, c, map[string]any{"root": v}); err == nil {
			t.Errorf("positional %q rendered without \"--\"", v)
		}
		if _, err := RenderArgv(DialectDeclared, c, map[string]any{"root": "r", "name": v}); err == nil {
			t.Errorf("separate option value %q rendered", v)
		}
	}
	if _, err := RenderArgv(DialectDeclared, c, map[string]any{"root": "r", "depth": -1}); err == nil {
		t.Error("a negative separate number rendered")
	}
	// With "--" and glued values, the same values are safe and rendered.
	tr, _ = Declare("find", Rendering{}, declaredFind())
	argv, err := RenderArgv(DialectDeclared, tr.Find("search"), map[string]any{"root": "-x", "name": "-y", "depth": -1})
	if want := []string{"--name=-y", "--depth=-1", "--", "-x"}; err != nil || !slices.Equal(argv, want) {
		t.Errorf("glued and separated: %q %v, want %q", argv, err, want)
	}
}

func TestDeclareRefuses(t *testing.T) {
	sep := Rendering{NoSeparator: true}
	one := func(p *Param) *Command { return &Command{Path: []string{"x"}, Params: []*Param{p}} }
	neg := -1.0
	for _, row := range []struct {
		rule string
		r    Rendering
		cmds []*Command
		want string
	}{
		{"a command word is not an option", Rendering{}, []*Command{{Path: []string{"-x"}}}, `"-x" is not a command word`},
		{"a path is declared once", Rendering{}, []*Command{{Path: []string{"x"}}, {Path: []string{"x"}}}, "declared twice"},
		{"values is equals or separate", Rendering{Values: "glued"}, []*Command{{Path: []string{"x"}}}, `values "glued"`},
		{"a name is an identifier", Rendering{}, []*Command{one(&Param{Name: "a-b"})}, `"a-b" is not a letter`},
		{"an option string starts with a dash", Rendering{}, []*Command{one(&Param{Name: "a", Options: []string{"a"}})}, `"a" is not an option string`},
		{"an option string holds no =", Rendering{}, []*Command{one(&Param{Name: "a", Options: []string{"--a=b"}})}, "is not an option string"},
		{"an option string is one parameter's", Rendering{}, []*Command{{Path: []string{"x"}, Params: []*Param{{Name: "a", Options: []string{"--a"}}, {Name: "b", Options: []string{"--a"}}}}}, `option --a is also parameter "a"'s`},
		{"names are unique", Rendering{}, []*Command{{Path: []string{"x"}, Params: []*Param{{Name: "a", Options: []string{"--a"}}, {Name: "a", Options: []string{"--b"}}}}}, `two parameters are named "a"`},
		{"a positional is not a boolean", Rendering{}, []*Command{one(&Param{Name: "a", Kind: KindBoolean})}, "cannot be a boolean"},
		{"a positional's arity", Rendering{}, []*Command{one(&Param{Name: "a", Arity: ArityRepeated})}, "a positional takes arity"},
		{"an option's arity", Rendering{}, []*Command{one(&Param{Name: "a", Options: []string{"-a"}, Arity: ArityZeroOrMore})}, "an option takes arity"},
		{"a flag is a boolean", Rendering{}, []*Command{one(&Param{Name: "a", Options: []string{"-a"}, Arity: ArityNone, Kind: KindString})}, "is a boolean"},
		{"a flag defaults to false", Rendering{}, []*Command{one(&Param{Name: "a", Options: []string{"-a"}, Kind: KindBoolean, Default: true})}, "defaults to false"},
		{"a path is a string", Rendering{}, []*Command{one(&Param{Name: "a", Kind: KindInteger, Path: PathUseRead})}, `path "read"`},
		{"a choice matches the kind", Rendering{}, []*Command{one(&Param{Name: "a", Kind: KindInteger, Choices: []any{"x"}})}, "choice x"},
		{"a choice matches the pattern", Rendering{}, []*Command{one(&Param{Name: "a", Pattern: "^[a-z]+$", Choices: []any{"X"}})}, "choice X"},
		{"a pattern compiles", Rendering{}, []*Command{one(&Param{Name: "a", Pattern: "("})}, "pattern"},
		{"a default is admitted", Rendering{}, []*Command{one(&Param{Name: "a", Options: []string{"--a"}, Choices: []any{"x"}, Default: "y"})}, "default y"},
		{"two variable positionals", Rendering{}, []*Command{{Path: []string{"x"}, Params: []*Param{{Name: "a", Arity: ArityZeroOrMore}, {Name: "b", Arity: ArityOneOrMore}}}}, "both take a variable number"},
		{"without --, a pattern must be anchored", sep, []*Command{one(&Param{Name: "a", Pattern: "[a-z]+"})}, `does not start with "^"`},
		{"without --, a pattern must refuse a dash", sep, []*Command{one(&Param{Name: "a", Pattern: "^[-a-z]+$"})}, `first character may be "-"`},
		{"without --, a pattern may not start with any character", sep, []*Command{one(&Param{Name: "a", Pattern: "^.*$"})}, `first character may be "-"`},
		{"without --, an optional group before a dash", sep, []*Command{one(&Param{Name: "a", Pattern: "^(?:x)?-$"})}, `first character may be "-"`},
		{"without --, a choice must not start with a dash", sep, []*Command{one(&Param{Name: "a", Choices: []any{"-a"}})}, `choice "-a" starts with "-"`},
		{"without --, a number must not be negative", sep, []*Command{one(&Param{Name: "a", Kind: KindInteger, Minimum: &neg})}, "minimum -1"},
		{"a one-letter option's value is not glued by =", Rendering{}, []*Command{one(&Param{Name: "a", Options: []string{"-a"}})}, "getopt reads"},
		{"separate values, the same", Rendering{Values: ValuesSeparate}, []*Command{one(&Param{Name: "a", Options: []string{"-a"}, Pattern: "^.+$"})}, "values separate"},
	} {
		t.Run(row.rule, func(t *testing.T) {
			_, err := Declare("prog", row.r, row.cmds...)
			if err == nil || !strings.Contains(err.Error(), row.want) {
				t.Fatalf("got %v, want an error with %q", err, row.want)
			}
		})
	}
	// Patterns that do refuse a leading dash are kept as declared.
	for _, pat := range []string{`^[a-z]+$`, `^(?:foo|bar)$`, `^$`, `^x*[a-z]`, `^(?:[0-9]{2}|[a-f]+)\.txt$`} {
		tr, err := Declare("prog", sep, one(&Param{Name: "a", Pattern: pat}))
		if err != nil || tr.Find("x").Params[0].Pattern != pat {
			t.Errorf("pattern %q: %v", pat, err)
		}
	}
}

func TestDeclaredRendering(t *testing.T) {
	args := map[string]any{"name": "a b", "depth": 2, "verbose": true, "quiet": 2, "tag": []any{"x", "y"},
		"format": "json", "root": "r", "files": []any{"f1", "f2"}}
	for _, row := range []struct {
		r    Rendering
		want []string
	}{
		{Rendering{}, []string{"--name=a b", "--depth=2", "-v", "-q", "-q", "--tag=x", "--tag=y", "--format=json", "--", "r", "f1", "f2"}},
		{Rendering{Values: ValuesSeparate}, []string{"--name", "a b", "--depth", "2", "-v", "-q", "-q", "--tag", "x", "--tag", "y", "--format", "json", "--", "r", "f1", "f2"}},
		{Rendering{NoSeparator: true}, []string{"--name=a b", "--depth=2", "-v", "-q", "-q", "--tag=x", "--tag=y", "--format=json", "r", "f1", "f2"}},
	} {
		tr, err := Declare("find", row.r, declaredFind())
		if err != nil {
			t.Fatal(err)
		}
		argv, err := RenderArgv(DialectDeclared, tr.Find("search"), args)
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(row.want, argv); diff != "" {
			t.Errorf("%+v: (-want +got)\n%s", row.r, diff)
		}
		// false for a flag is its default: nothing is said.
		argv, _ = RenderArgv(DialectDeclared, tr.Find("search"), map[string]any{"root": "r", "verbose": false})
		if want := []string{"--", "r"}; row.r.NoSeparator {
			if !slices.Equal(argv, []string{"r"}) {
				t.Errorf("verbose false: %q", argv)
			}
		} else if !slices.Equal(argv, want) {
			t.Errorf("verbose false: %q, want %q", argv, want)
		}
	}
}

// The rendering in each style is read back by a real C parser: util-linux
// getopt(1), which parses with getopt_long as most C programs do and
// prints what it read. "+" stops at the first positional, as a program
// that refuses "--" must, so the no-separator style is read back too.
func TestDeclaredRenderingGetopt(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("util-linux getopt is Linux's")
	}
	getopt, err := exec.LookPath("getopt")
	if err != nil {
		t.Skip(err)
	}
	values := []string{"plain", "a b", "it's", "x=y", "--", "-dash", "ünï", `"q"`, "", "{}", "tab\there"}
	for _, r := range []Rendering{{}, {Values: ValuesSeparate}, {NoSeparator: true}, {Values: ValuesSeparate, NoSeparator: true}} {
		tr, err := Declare("find", r, declaredFind())
		if err != nil {
			t.Fatal(err)
		}
		c := tr.Find("search")
		for _, v := range values {
			args := map[string]any{"name": v, "tag": []any{v, "t"}, "root": v, "files": []any{"f", v}, "verbose": true, "quiet": 3}
			argv, err := RenderArgv(DialectDeclared, c, args)
			if err != nil {
				// Only what could be read as an option is refused,
				// and only where the style would let it.
				if strings.HasPrefix(v, "-") && (r.NoSeparator || r.Values == ValuesSeparate) {
					continue
				}
				t.Fatalf("%+v %q: %v", r, v, err)
			}
			out, err := exec.Command(getopt, append([]string{"-o", "+n:vq", "-l", "name:,depth:,tag:,format:", "--"}, argv...)...).Output()
			if err != nil {
				t.Fatalf("getopt %q: %v", argv, err)
			}
			got := shellWords(t, string(out))
			want := []string{"--name", v, "-v", "-q", "-q", "-q", "--tag", v, "--tag", "t", "--", v, "f", v}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("%+v %q: getopt read %q (-want +got)\n%s", r, v, argv, diff)
			}
		}
	}
}

// shellWords reads getopt's output: words separated by spaces, each bare
// or in single quotes, a quote spelt '\”.
func shellWords(t *testing.T, s string) []string {
	t.Helper()
	s = strings.TrimSuffix(s, "\n")
	var out []string
	var b strings.Builder
	in, word := false, false
	for i := 0; i < len(s); i++ {
		ch := s[i]
		switch {
		case in && ch == '\'':
			in = false
		case in:
			b.WriteByte(ch)
		case ch == '\'':
			in, word = true, true
		case ch == '\\' && i+1 < len(s):
			i++
			b.WriteByte(s[i])
			word = true
		case ch == ' ':
			if word {
				out = append(out, b.String())
			}
			b.Reset()
			word = false
		default:
			b.WriteByte(ch)
			word = true
		}
	}
	if in {
		t.Fatalf("unterminated quote in %q", s)
	}
	if word {
		out = append(out, b.String())
	}
	return out
}

func TestParseArgvRefusesDeclared(t *testing.T) {
	tr, err := Declare("find", Rendering{}, declaredFind())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ParseArgv(tr, []string{"search", "--", "r"}); err == nil || !strings.Contains(err.Error(), "declared, not read") {
		t.Errorf("ParseArgv of a declared tree: %v", err)
	}
}

// A declared rendering read back by a real hand-written parser: jq 1.6's
// (main.c), which reads options anywhere on the line, takes --indent's
// value as the next word, and with --args prints the positionals it read
// ($ARGS.positional). Values separate, no "--": every value jq could take
// for an option is refused by the schema, and every other comes back
// exactly.
func TestDeclaredRenderingJQ(t *testing.T) {
	jq, err := exec.LookPath("jq")
	if err != nil {
		t.Skip("jq is not installed")
	}
	if out, _ := exec.Command(jq, "--version").Output(); strings.TrimSpace(string(out)) != "jq-1.6" {
		t.Skipf("jq %q: the parser described is jq 1.6's", out)
	}
	tr, err := Declare("jq", Rendering{Values: ValuesSeparate, NoSeparator: true}, &Command{Params: []*Param{
		{Name: "indent", Options: []string{"--indent"}, Kind: KindInteger, Maximum: func() *float64 { m := 7.0; return &m }()},
		{Name: "filter"},
		{Name: "words", Arity: ArityZeroOrMore},
	}})
	if err != nil {
		t.Fatal(err)
	}
	root := tr.Find()
	values := []string{"plain", "a b", "it's", "x=y", "ünï", `"q"`, "", "{}", "tab\there", "--", "-x", "--indent", "-", "日本"}
	for _, v := range values {
		argv, err := RenderArgv(tr.Dialect, root, map[string]any{"indent": 0, "filter": "$ARGS.positional", "words": []any{v, "w"}})
		if err != nil {
			if !strings.HasPrefix(v, "-") {
				t.Errorf("%q refused: %v", v, err)
			}
			continue
		}
		if strings.HasPrefix(v, "-") {
			t.Errorf("%q rendered without a separator: %q", v, argv)
		}
		out, err := exec.Command(jq, append([]string{"-n", "-c", "--args"}, argv...)...).Output()
		if err != nil {
			t.Fatalf("jq %q: %v", argv, err)
		}
		var got []string
		if err := json.Unmarshal(out, &got); err != nil {
			t.Fatalf("jq printed %q: %v", out, err)
		}
		if want := []string{v, "w"}; !slices.Equal(got, want) {
			t.Errorf("%q: jq read %q, want %q", argv, got, want)
		}
	}
}
