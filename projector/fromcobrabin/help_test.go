package fromcobrabin

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// page builds a help page from lines.
func pageText(lines ...string) string { return strings.Join(lines, "\n") + "\n" }

func TestParseHelp(t *testing.T) {
	flags := []string{
		"Flags:",
		"  -h, --help          help for get",
		"      --name string   the name (default \"x\")",
	}
	for _, tc := range []struct {
		name string
		text string
		want *page // compared on useLine, hasSub, aliases, flag names and usages
		err  string
	}{
		{"a runnable command with aliases, examples and global flags", pageText(append(append([]string{
			"Get things.", "", "Usage:", "  app get NAME [flags]", "", "Aliases:", "  get, g, fetch", "", "Examples:", "  app get x", "", "Usage:", "  app get oops", "", "  app get y", ""},
			flags...), "", "Global Flags:", "  -v, --verbose   more")...),
			&page{useLine: "app get NAME [flags]", aliases: []string{"g", "fetch"},
				local:     []*flagLine{{name: "help", shorthand: "h", usage: "help for get"}, {name: "name", word: "string", usage: "the name (default \"x\")"}},
				inherited: []*flagLine{{name: "verbose", shorthand: "v", usage: "more"}}}, ""},
		{"a group with subcommands and the closing line", pageText(append(append([]string{
			"Usage:", "  app get [command]", "", "Available Commands:", "  one         the first", ""}, flags...),
			"", "Use \"app get [command] --help\" for more information about a command.")...),
			&page{hasSub: true, local: []*flagLine{{name: "help", shorthand: "h", usage: "help for get"}, {name: "name", word: "string", usage: "the name (default \"x\")"}}}, ""},
		{"usage lines without their indent (skopeo's template)", pageText(append([]string{"Usage:", "app get NAME", ""}, flags...)...),
			&page{useLine: "app get NAME", local: []*flagLine{{name: "help", shorthand: "h", usage: "help for get"}, {name: "name", word: "string", usage: "the name (default \"x\")"}}}, ""},
		{"a usage block in the long text that no section follows is not cobra's", pageText(append([]string{"Usage:", "  app get --like-this", "", "as an example.", "", "Usage:", "  app get", ""}, flags...)...),
			&page{useLine: "app get", local: []*flagLine{{name: "help", shorthand: "h", usage: "help for get"}, {name: "name", word: "string", usage: "the name (default \"x\")"}}}, ""},
		{"continuation lines join the usage", pageText("Usage:", "  app get", "", "Flags:", "  -h, --help          help for get", "      --name string   a usage over", "                      two lines (default \"x\")"),
			&page{useLine: "app get", local: []*flagLine{{name: "help", shorthand: "h", usage: "help for get"}, {name: "name", word: "string", usage: "a usage over\ntwo lines (default \"x\")"}}}, ""},
		{"a no-value default closes the column", pageText("Usage:", "  app get", "", "Flags:", "  -h, --help                help for get", "      --mode string[=\"a\"]   the mode"),
			&page{useLine: "app get", local: []*flagLine{{name: "help", shorthand: "h", usage: "help for get"}, {name: "mode", word: "string", hasNoOpt: true, noOptDef: `"a"`, usage: "the mode"}}}, ""},
		{"no usage block", pageText("USAGE", "  app get", "", "OPTIONS", "  -h, --help   help"), nil, "no \"Usage:\" line"},
		{"two usage blocks cobra's sections follow", pageText(append([]string{"Usage:", "  app get", "", "Flags:", "  -h, --help   help for get", "", "Usage:", "  app get", ""}, flags...)...), nil, "2 \"Usage:\" blocks"},
		{"no Flags block", pageText("Usage:", "  app get", "", "Aliases:", "  get, g"), nil, "no \"Flags:\" block"},
		{"a line after the Flags block that cobra does not print", pageText(append(append([]string{"Usage:", "  app get", ""}, flags...), "", "Environment:", "  APP_X   something")...), nil, "after the Flags block"},
		{"a flag line out of pflag's layout", pageText("Usage:", "  app get", "", "Flags:", "  -h, --help   help for get", "    --name   two-space flag"), nil, "neither a flag nor a continuation"},
		{"a closing line on a command without subcommands", pageText(append(append([]string{"Usage:", "  app get", ""}, flags...), "", "Use \"app get [command] --help\" for more information about a command.")...), nil, "disagree"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := parseHelp(tc.text, "app get")
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("error %v, want one containing %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			type flat struct {
				Use       string
				Sub       bool
				Aliases   []string
				Local     []flagLine
				Inherited []flagLine
			}
			f := func(p *page) flat {
				out := flat{Use: p.useLine, Sub: p.hasSub, Aliases: p.aliases}
				for _, l := range p.local {
					out.Local = append(out.Local, flagLine{name: l.name, shorthand: l.shorthand, word: l.word, usage: l.usage, hasNoOpt: l.hasNoOpt, noOptDef: l.noOptDef})
				}
				for _, l := range p.inherited {
					out.Inherited = append(out.Inherited, flagLine{name: l.name, shorthand: l.shorthand, word: l.word, usage: l.usage, hasNoOpt: l.hasNoOpt, noOptDef: l.noOptDef})
				}
				return out
			}
			if d := cmp.Diff(f(tc.want), f(got), cmp.AllowUnexported(flagLine{})); d != "" {
				t.Errorf("(-want +got)\n%s", d)
			}
		})
	}
}

func TestPflagDefault(t *testing.T) {
	for _, tc := range []struct {
		name, usage string
		quoted      bool
		text, def   string
		ok          bool
	}{
		{"a quoted default", `the name (default "x")`, true, "the name", "x", true},
		{"a quoted default holding the marker", `greeting (default "a (default \"b\")")`, true, "greeting", `a (default "b")`, true},
		{"prose before pflag's suffix", `x (default "a") or so (default "b")`, true, `x (default "a") or so`, "b", true},
		{"an unquoted suffix is not a string's", `cluster name (default kind)`, true, `cluster name (default kind)`, "", false},
		{"a typed default", `workers (default 4)`, false, "workers", "4", true},
		{"the last suffix is pflag's", `n (default 1) (default [a,b])`, false, "n (default 1)", "[a,b]", true},
		{"an empty usage", ` (default 5)`, false, "", "5", true},
		{"no suffix at the end", `wait (default 0s). Non-zero values...`, false, `wait (default 0s). Non-zero values...`, "", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			text, def, ok := pflagDefault(tc.usage, tc.quoted)
			if text != tc.text || def != tc.def || ok != tc.ok {
				t.Errorf("pflagDefault(%q, %v) = %q, %q, %v; want %q, %q, %v", tc.usage, tc.quoted, text, def, ok, tc.text, tc.def, tc.ok)
			}
		})
	}
}

func TestClassifyWord(t *testing.T) {
	for _, tc := range []struct {
		name  string
		f     flagLine
		raw   string
		known bool
		want  wordKind
	}{
		{"no word: a bool", flagLine{usage: "turn it on"}, "", false, wordType},
		{"a word the usage does not hold is the type", flagLine{word: "string", usage: "the name"}, "", false, wordType},
		{"a word the raw usage back-quotes is a placeholder", flagLine{word: "FILE", usage: "read FILE"}, "read `FILE`", true, wordPlaceholder},
		{"a word the raw usage holds without quotes is the type", flagLine{word: "string", usage: "a note (string)"}, "a note (string)", true, wordType},
		{"one back quote only: pflag prints the type", flagLine{word: "string", usage: "a ` string"}, "a ` string", true, wordType},
		{"another word back-quoted: inconsistent", flagLine{word: "FILE", usage: "read FILE or DIR"}, "read FILE or `DIR`", true, wordUnknown},
		{"the raw usage unknown and the word in the usage", flagLine{word: "DIR", usage: "copy to DIR"}, "", false, wordUnknown},
		{"the word past the first line of a usage", flagLine{word: "string", usage: "the format\na `string`"}, "the format", true, wordUnknown},
		{"the word on the first line only of a usage", flagLine{word: "string", usage: "a string\nover two lines"}, "a string", true, wordType},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got, why := classifyWord(&tc.f, tc.raw, tc.known); got != tc.want {
				t.Errorf("classifyWord = %v (%s), want %v", got, why, tc.want)
			}
		})
	}
}

func TestParseCompletion(t *testing.T) {
	c, err := parseCompletion([]byte("get\tGet things\n_activeHelp_ a hint\nput\n:4\n"))
	if err != nil {
		t.Fatal(err)
	}
	want := &completion{items: []candidate{{"get", "Get things"}, {"put", ""}}, directive: 4}
	if d := cmp.Diff(want, c, cmp.AllowUnexported(completion{}, candidate{})); d != "" {
		t.Errorf("(-want +got)\n%s", d)
	}
	for _, bad := range []string{"", "get\n", "get\n:x\n", "get\n:-1\n"} {
		if _, err := parseCompletion([]byte(bad)); err == nil {
			t.Errorf("parseCompletion(%q): no error", bad)
		}
	}
}

// The environment a walk runs the program in: the operator's, with the
// variables that change cobra's output set over it.
func TestEnviron(t *testing.T) {
	got := environ([]string{"PATH=/bin", "NO_COLOR=", "HELM_ACTIVE_HELP=1", "HELM_COMPLETION_DESCRIPTIONS=false", "COLUMNS=80"})
	want := append([]string{"PATH=/bin"}, fixedEnv...)
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("(-want +got)\n%s", d)
	}
}
