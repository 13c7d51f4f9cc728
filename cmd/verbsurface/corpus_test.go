//go:build unix

package main

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// The corpus: real programs nobody here wrote, each fronted by one YAML
// file in examples/fronts that uses no wrapper and no code (docs/corpus.md
// has the table). For every program, TestCorpus shows that check passes,
// that help on each verb returns a schema, that one verb's schema agrees
// with the program's own --help, and that ops return the program's real
// output on data the test made, through a real go-sdk client over stdio.

// requireCorpusEnv makes a missing corpus program a failure rather than a
// skip (.ci/run sets it after installing them).
const requireCorpusEnv = "VERBSURFACE_REQUIRE_CORPUS"

// corpusGOBINEnv names the directory holding the corpus programs built
// with go install (.ci/run sets it; by default the user's cache directory,
// where .ci/run puts them too). It goes first on PATH for the whole test:
// Debian's package yq is another program of the same name.
const corpusGOBINEnv = "VERBSURFACE_CORPUS_GOBIN"

// corpusGOBIN is where .ci/run installs the corpus's Go programs.
func corpusGOBIN() string {
	if d := os.Getenv(corpusGOBINEnv); d != "" {
		return d
	}
	cache, err := os.UserCacheDir()
	if err != nil {
		return ""
	}
	return filepath.Join(cache, "verbsurface", "corpus-bin")
}

// corpusProgram is one program of the corpus and what its test does.
type corpusProgram struct {
	name    string   // examples/fronts/NAME.yaml
	bin     string   // the executable, as the YAML names it
	module  string   // for a Python program: the module /usr/bin/python3 must import
	version []string // the arguments that print its version
	want    string   // what that prints for the version docs/corpus.md names
	install string   // how to install it, for the skip message
	// spot is the verb whose schema is compared with the program's own
	// --help.
	spot string
	// folded are options that go with another the YAML takes away: those
	// storing into the same parameter (codespell's -c and -d).
	folded []string
	// setup makes the program's data in dir, where the YAML was copied,
	// and returns the variables serve needs.
	setup func(t *testing.T, dir string) []string
	// ops runs ops through the server and checks their real output.
	ops func(t *testing.T, c *client, dir string)
}

func TestCorpus(t *testing.T) {
	for _, p := range allCorpus(t) {
		t.Run(p.name, func(t *testing.T) {
			needCorpusProgram(t, p)
			dir := t.TempDir()
			config := filepath.Join(dir, p.name+".yaml")
			b, err := os.ReadFile(filepath.Join("..", "..", "examples", "fronts", p.name+".yaml"))
			if err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(config, b, 0o644); err != nil {
				t.Fatal(err)
			}
			var env []string
			if p.setup != nil {
				env = p.setup(t, dir)
			}
			cfg, err := LoadConfig(config)
			if err != nil {
				t.Fatal(err)
			}

			stdout, stderr, status := runVS(t, "check", "-c", config)
			if want := fmt.Sprintf(": ok: %d verbs offered\n", len(cfg.Verbs)); status != 0 || !strings.HasSuffix(stdout, want) {
				t.Fatalf("check: status %d, want %q (no warnings)\n%s%s", status, want, stdout, stderr)
			}

			c := serve(t, config, env...)
			schemas := map[string]map[string]any{}
			for _, v := range cfg.Verbs {
				schema, _ := c.help(v.Name)
				if schema["type"] != "object" {
					t.Errorf("help %s: schema %v", v.Name, schema)
				}
				schemas[v.Name] = schema
			}
			i := slices.IndexFunc(cfg.Verbs, func(v VerbConfig) bool { return v.Name == p.spot })
			if i < 0 {
				t.Fatalf("the spot-checked verb %s is not in %s", p.spot, config)
			}
			if cfg.Source.Declared == nil {
				agreesWithOwnHelp(t, cfg, i, schemas[p.spot], p.folded)
			}
			// A declared program's schema is the operator's word, a part
			// of what its help lists by design: check, which passed
			// above with no warning, found every declared option there.

			p.ops(t, c, dir)
		})
	}
}

// allCorpus is every row of the corpus, read and declared, with the
// corpus's Go programs first on PATH for the rest of the test.
func allCorpus(t *testing.T) []corpusProgram {
	if d := corpusGOBIN(); d != "" {
		t.Setenv("PATH", d+string(os.PathListSeparator)+os.Getenv("PATH"))
	}
	return slices.Concat(corpusPrograms, declaredCorpus)
}

// Every front in examples/fronts is a row of the corpus (so none is left
// untested), and docs/corpus.md links every one.
func TestCorpusCoversEveryFront(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("..", "..", "examples", "fronts", "*.yaml"))
	if err != nil || len(files) == 0 {
		t.Fatalf("examples/fronts: %v %v", files, err)
	}
	var fronts, rows []string
	for _, f := range files {
		fronts = append(fronts, strings.TrimSuffix(filepath.Base(f), ".yaml"))
	}
	for _, p := range slices.Concat(corpusPrograms, declaredCorpus) {
		rows = append(rows, p.name)
	}
	slices.Sort(rows)
	if !slices.Equal(fronts, rows) {
		t.Errorf("examples/fronts holds %v, the corpus's rows are %v", fronts, rows)
	}
	doc, err := os.ReadFile(filepath.Join("..", "..", "docs", "corpus.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range fronts {
		if link := "(../examples/fronts/" + name + ".yaml)"; !strings.Contains(string(doc), link) {
			t.Errorf("docs/corpus.md does not link %s", link)
		}
	}
	if len(fronts) < 10 {
		t.Errorf("the corpus has %d programs; issue 27 asks for at least ten", len(fronts))
	}
}

// needCorpusProgram skips the test when the program is missing or is not
// the version the corpus names, unless requireCorpusEnv says CI installed
// them, where either fails.
func needCorpusProgram(t *testing.T, p corpusProgram) {
	t.Helper()
	problem := ""
	if _, err := exec.LookPath(p.bin); err != nil {
		problem = err.Error()
	} else if p.module != "" && exec.Command(clickPython, "-c", "import "+p.module).Run() != nil {
		problem = clickPython + " cannot import " + p.module
	} else if out, _ := exec.Command(p.bin, p.version...).CombinedOutput(); !strings.Contains(string(out), p.want) {
		problem = fmt.Sprintf("%s %s printed %q, not version %q", p.bin, strings.Join(p.version, " "), strings.TrimSpace(string(out)), p.want)
	}
	if problem == "" {
		return
	}
	msg := fmt.Sprintf("%s (%s): %s", p.name, p.install, problem)
	if os.Getenv(requireCorpusEnv) != "" {
		t.Fatalf("%s is set, and %s", requireCorpusEnv, msg)
	}
	t.Skip(msg)
}

// helpEntry is one option of a program's own --help, read independently of
// the projectors: argparse, click and pflag all print an option as its
// option strings (each maybe followed by a value word) in a first column,
// two spaces, then its description.
type helpEntry struct {
	opts        []string // "-f", "--format"
	metavars    []string // the value words ("FORMAT", "string", "[human|json]")
	description string   // whitespace collapsed
}

func (e helpEntry) takesValue() bool { return len(e.metavars) > 0 }

// optionLine is an option line: at most six spaces of indentation (argparse
// and click print two, pflag six before a flag with no shorthand), then a
// dash and a letter or a second dash. Deeper lines are descriptions.
var optionLine = regexp.MustCompile(`^ {1,6}-[-A-Za-z0-9]`)

// ownHelp runs the program's --help for a command path and reads its
// options, and returns the whole text too.
func ownHelp(t *testing.T, command []string, path []string) ([]helpEntry, string) {
	t.Helper()
	argv := append(append(slices.Clone(command[1:]), path...), "--help")
	out, err := exec.Command(command[0], argv...).Output()
	if err != nil {
		t.Fatalf("%s %s: %v", command[0], strings.Join(argv, " "), err)
	}
	var entries []helpEntry
	cur := -1
	examples := false
	for _, line := range strings.Split(string(out), "\n") {
		if line != "" && line[0] != ' ' && strings.HasSuffix(line, ":") {
			// A section: cobra's Examples show command lines, not options.
			examples = strings.HasPrefix(line, "Example")
		}
		switch {
		case examples:
			cur = -1
		case optionLine.MatchString(line):
			sep := "  "
			if strings.Contains(line, "\t") {
				sep = "\t" // etcdctl's "--name=default<TAB>usage"
			}
			col, desc, _ := strings.Cut(strings.TrimSpace(line), sep)
			e := helpEntry{description: strings.TrimSpace(desc)}
			for _, piece := range regexp.MustCompile(`, | / `).Split(col, -1) {
				// A word with a dash is an option string (pygmentize's
				// "-S STYLE -f formatter" names two), any other a value.
				for _, w := range strings.Fields(piece) {
					if strings.HasPrefix(w, "-") {
						// "--name=default" takes a value; "--name[=default]"
						// is a flag that may be given bare (etcdctl's layout).
						if i := strings.Index(w, "[="); i > 0 {
							w = w[:i]
						} else if i := strings.Index(w, "="); i > 0 {
							e.metavars = append(e.metavars, w[i+1:])
							w = w[:i]
						}
						e.opts = append(e.opts, w)
					} else if len(e.opts) > 0 {
						e.metavars = append(e.metavars, w)
					}
				}
			}
			entries = append(entries, e)
			cur = len(entries) - 1
		case cur >= 0 && strings.HasPrefix(line, "       ") && strings.TrimSpace(line) != "":
			entries[cur].description = strings.TrimSpace(entries[cur].description + " " + strings.TrimSpace(line))
		default:
			cur = -1
		}
	}
	if len(entries) == 0 {
		t.Fatalf("%s %s lists no options", command[0], strings.Join(argv, " "))
	}
	for i := range entries {
		entries[i].description = strings.Join(strings.Fields(entries[i].description), " ")
	}
	return entries, string(out)
}

// norm is a name's letters and digits, lowercased: --write-changes,
// write_changes, WRITE_CHANGES and writeChanges are one name.
func norm(s string) string {
	return strings.Map(func(r rune) rune {
		switch {
		case r >= 'a' && r <= 'z', r >= '0' && r <= '9':
			return r
		case r >= 'A' && r <= 'Z':
			return r + 'a' - 'A'
		}
		return -1
	}, s)
}

// names reports whether the entry is the parameter or option called name:
// one of its option strings, or its value word (argparse's default metavar
// is the dest in capitals). A short option is one letter, whose case
// matters (pygmentize's -s and -S): it is its name exactly.
func (e helpEntry) names(name string) bool {
	name, _, _ = strings.Cut(name, "=")
	n := norm(name)
	for _, s := range e.opts {
		if short := len(s) == 2; short && (name == s || name == s[1:]) || !short && norm(s) == n {
			return true
		}
	}
	for _, s := range e.metavars {
		if norm(s) == n && len(n) > 1 {
			return true
		}
	}
	return false
}

// meta reports whether the entry is a help or version option, which an
// argparse or click projection leaves out.
func (e helpEntry) meta() bool {
	return slices.ContainsFunc(e.opts, func(o string) bool {
		return o == "-h" || o == "-V" || strings.Contains(o, "help") || strings.Contains(o, "version")
	})
}

// prefix is the first 24 characters of a description, whitespace
// collapsed: enough to tell two options apart, short of where a help
// formatter would substitute a default.
func prefix(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) > 24 {
		s = s[:24]
	}
	return s
}

// agreesWithOwnHelp compares the schema of verb i with what the program's
// own --help says of the same command:
//
//  1. every option the help lists is in the schema, unless the YAML takes
//     it away (exclude:, the verb's exclude: or args:, machine:,
//     source.click.exclude, or an option folded with one of those) or it
//     is help or version;
//  2. an option the help shows with a value word is not a boolean in the
//     schema, and one shown without is a boolean or a count (an integer);
//  3. every property of the schema is an option of the help, or a
//     positional: its description is in the help text, or its name is a
//     word of the usage line.
//
// An option is found in the schema by name (one of its option strings or
// its value word, letters compared), else by its description.
func agreesWithOwnHelp(t *testing.T, cfg *Config, i int, schema map[string]any, folded []string) {
	t.Helper()
	v := cfg.Verbs[i]
	entries, text := ownHelp(t, cfg.Command, v.Path)
	props, _ := schema["properties"].(map[string]any)
	takenAway := slices.Concat(cfg.Exclude, v.Exclude, v.Args, cfg.verbMachine(i).Args, folded)
	if cfg.Source.Click != nil {
		takenAway = append(takenAway, cfg.Source.Click.Exclude...)
	}
	matched := map[string]bool{}
	gone := 0
	for _, e := range entries {
		if slices.ContainsFunc(takenAway, e.names) {
			gone++
			for name := range props {
				// By option string only: a value word of a taken-away
				// option may be another parameter's name (pip's --log
				// <path> beside list's --path).
				if (helpEntry{opts: e.opts}).names(name) {
					t.Errorf("%s: %v is taken away by the YAML, but the schema offers %s", v.Name, e.opts, name)
				}
			}
			continue
		}
		name := ""
		for p := range props {
			if e.names(p) {
				name = p
			}
		}
		if name == "" && len(e.description) >= 8 {
			for p, s := range props {
				d, _ := s.(map[string]any)["description"].(string)
				if d != "" && prefix(d) == prefix(e.description) {
					name = p
				}
			}
		}
		if name == "" {
			gone++
			if !e.meta() {
				t.Errorf("%s: the program's help lists %v (%q), which is not in the schema", v.Name, e.opts, e.description)
			}
			continue
		}
		matched[name] = true
		typ := props[name].(map[string]any)["type"]
		switch {
		case e.takesValue() && typ == "boolean":
			t.Errorf("%s: %v takes a value (%v) in the program's help, but %s is a boolean", v.Name, e.opts, e.metavars, name)
		case !e.takesValue() && typ != "boolean" && typ != "integer":
			t.Errorf("%s: %v takes no value in the program's help, but %s is %v", v.Name, e.opts, name, typ)
		}
	}
	usage := ""
	for _, l := range strings.Split(text, "\n") {
		if strings.Contains(strings.ToLower(l), "usage:") || strings.HasPrefix(strings.TrimSpace(l), filepath.Base(cfg.Command[0])+" ") {
			usage += " " + l
		}
	}
	flat := strings.Join(strings.Fields(text), " ")
	for name, s := range props {
		if matched[name] {
			continue
		}
		d, _ := s.(map[string]any)["description"].(string)
		word := norm(strings.TrimSuffix(name, "_arg"))
		if (d == "" || !strings.Contains(flat, prefix(d))) && !strings.Contains(norm(usage), word) && name != "args" {
			t.Errorf("%s: schema property %s (%q) is neither an option of the program's help nor a positional of its usage", v.Name, name, d)
		}
	}
	if len(matched) == 0 {
		t.Errorf("%s: no option of the program's help was found in the schema", v.Name)
	}
	t.Logf("%s: %d options in %s's own help, %d of them in the schema, %d taken away by the YAML or help/version; %d properties",
		v.Name, len(entries), filepath.Base(cfg.Command[0]), len(matched), gone, len(props))
}

// quoted is s as a JSON string.
func quoted(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// runProgram runs a program the way a user would, to make a test's data.
func runProgram(t *testing.T, dir string, env []string, name string, args ...string) string {
	t.Helper()
	cmd := exec.Command(name, args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), env...)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%s %s: %v\n%s", name, strings.Join(args, " "), err, out)
	}
	return string(out)
}

// outsideRefused checks that an op naming a file outside the roots is
// refused before anything runs.
func outsideRefused(t *testing.T, c *client, op string) {
	t.Helper()
	if r := c.op(op); code(r) != "invalid_args" || !strings.Contains(fmt.Sprint(r["error"]), "outside_roots") {
		t.Errorf("a path outside the roots: %v", r)
	}
}

// unchanged checks that a file still holds what the test wrote.
func unchanged(t *testing.T, path, want string) {
	t.Helper()
	if b, err := os.ReadFile(path); err != nil || string(b) != want {
		t.Errorf("%s was changed: %q, %v", path, b, err)
	}
}

// outputOf decodes an op's output (under json or jsonl) into v.
func outputOf(t *testing.T, r outputResult, v any) {
	t.Helper()
	if err := json.Unmarshal(r.Output, v); err != nil {
		t.Fatalf("output %s: %v", r.Output, err)
	}
}
