package fromclap

import (
	"reflect"
	"testing"
)

// TestReadOptionHead: one row per spelling of an option entry's head that
// clap 2, 3 and 4 print.
func TestReadOptionHead(t *testing.T) {
	for _, c := range []struct {
		head string
		want *optionHead
		bad  bool
	}{
		{"-H, --hidden", &optionHead{short: "-H", long: "--hidden"}, false},
		{"--no-ignore-vcs", &optionHead{long: "--no-ignore-vcs"}, false},
		{"-N", &optionHead{short: "-N"}, false},
		{"-u, --unrestricted...", &optionHead{short: "-u", long: "--unrestricted", multiple: true}, false},
		{"-d, --max-depth <depth>", &optionHead{short: "-d", long: "--max-depth", values: []string{"depth"}}, false},
		{"--changed-within <date|dur>", &optionHead{long: "--changed-within", values: []string{"date|dur"}}, false},
		{"-x, --exec <cmd>...", &optionHead{short: "-x", long: "--exec", values: []string{"cmd"}, multiple: true}, false},
		{"-P, --parameter-scan <VAR> <MIN> <MAX>", &optionHead{short: "-P", long: "--parameter-scan", values: []string{"VAR", "MIN", "MAX"}}, false},
		{"--color[=<WHEN>]", &optionHead{long: "--color", values: []string{"WHEN"}, optional: true}, false},
		{"--color [<WHEN>]", &optionHead{long: "--color", values: []string{"WHEN"}, optional: true}, false},
		{"--name=<NAME>", &optionHead{long: "--name", values: []string{"NAME"}}, false},
		{"-o <FILE>", &optionHead{short: "-o", values: []string{"FILE"}}, false},
		{"-f, --file <PATTERNFILE>...", &optionHead{short: "-f", long: "--file", values: []string{"PATTERNFILE"}, multiple: true}, false},
		{"--colors COLOR", nil, true},
		{"-xy", nil, true},
		{"<FILE>", nil, true},
	} {
		t.Run(c.head, func(t *testing.T) {
			got, err := readOptionHead(c.head)
			if c.bad {
				if err == nil {
					t.Fatalf("read %+v, want an error", got)
				}
				return
			}
			if err != nil || !reflect.DeepEqual(got, c.want) {
				t.Fatalf("got %+v, %v; want %+v", got, err, c.want)
			}
		})
	}
}

// TestReadUsage: the usage words clap prints, and one it does not.
func TestReadUsage(t *testing.T) {
	for _, c := range []struct {
		line string
		want []usageWord
	}{
		{"fdfind [OPTIONS] [pattern] [path]...", []usageWord{{kind: "options"}, {kind: "positional", name: "pattern"}, {kind: "positional", name: "path", multiple: true}}},
		{"hyperfine [OPTIONS] <command>...", []usageWord{{kind: "options"}, {kind: "positional", name: "command", required: true, multiple: true}}},
		{"zoxide <SUBCOMMAND>", []usageWord{{kind: "command", required: true}}},
		{"prog [OPTIONS] [COMMAND]", []usageWord{{kind: "options"}, {kind: "command"}}},
		{"batcat cache [OPTIONS] <--build|--clear>", []usageWord{{kind: "options"}, {kind: "group", required: true, members: []string{"--build", "--clear"}}}},
		{"prog --name <NAME> <FILE>", []usageWord{{kind: "option", name: "--name", required: true}, {kind: "positional", name: "NAME", required: true}, {kind: "positional", name: "FILE", required: true}}},
		{"rg [OPTIONS] PATTERN [PATH ...]", []usageWord{{kind: "options"}, {kind: "word", name: "PATTERN"}, {kind: "word", name: "[PATH"}, {kind: "word", name: "...]"}}},
	} {
		t.Run(c.line, func(t *testing.T) {
			if got := readUsage(c.line); !reflect.DeepEqual(got, c.want) {
				t.Fatalf("got %+v\nwant %+v", got, c.want)
			}
		})
	}
}

// TestParseHelpNotes: sections, entries split across lines, and the notes
// clap appends, in each version's layout.
func TestParseHelpNotes(t *testing.T) {
	h, err := parseHelp(`prog 1.0
A tool.

Usage: prog [OPTIONS] <FILE>
       prog <COMMAND>

Commands:
  run   Run it [aliases: r, go]
  help  Print this message or the help of the given subcommand(s)

Arguments:
  <FILE>  the file

Options:
  -c, --color <WHEN>  When to use colors [default: auto] [possible values: auto,
                      always, never]
      --mode <MODE>
          How to run

          Possible values:
          - fast: quickly
          - slow: carefully

          [default: slow]
  -h, --help          Print help information

Filters:
      --only <KIND>  Keep only these

Bugs go to the tracker.
`)
	if err != nil {
		t.Fatal(err)
	}
	if len(h.usage) != 2 || len(h.commands) != 2 || len(h.args) != 1 || len(h.options) != 4 {
		t.Fatalf("usage %q, %d commands, %d args, %d options", h.usage, len(h.commands), len(h.args), len(h.options))
	}
	def, values, _ := h.options[0].notes()
	if *def != "auto" || !reflect.DeepEqual(values, []string{"auto", "always", "never"}) {
		t.Errorf("--color: default %v values %q", def, values)
	}
	def, values, _ = h.options[1].notes()
	if *def != "slow" || !reflect.DeepEqual(values, []string{"fast", "slow"}) || h.options[1].summary() != "How to run" {
		t.Errorf("--mode: default %v values %q summary %q", def, values, h.options[1].summary())
	}
	name, aliases, ok := commandName(h.commands[0])
	if name != "run" || !ok || !reflect.DeepEqual(aliases, []string{"r", "go"}) {
		t.Errorf("run: %q %q %v", name, aliases, ok)
	}
	if _, _, ok := commandName(h.commands[1]); ok {
		t.Errorf("clap's help subcommand read as a command")
	}
	if h.options[3].head != "--only <KIND>" {
		t.Errorf("custom heading: %+v", h.options[3])
	}
	if _, err := parseHelp("usage is not here\n"); err == nil {
		t.Errorf("a text without a usage section parsed")
	}
}
