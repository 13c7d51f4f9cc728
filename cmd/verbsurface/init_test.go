//go:build unix

package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// initArgs are the arguments of verbsurface init that read the program a
// configuration fronts, from the same source; nil for a source init does
// not read (declared, a tree file).
func initArgs(cfg *Config) []string {
	s := cfg.Source
	command := "--command=" + strings.Join(cfg.resolvedCommand(), ",")
	python := func(flag string, p *PythonSource) []string {
		args := []string{flag, p.Target, command}
		if p.Python != "" {
			args = append(args, "--python", p.Python)
		}
		for _, d := range p.PythonPath {
			args = append(args, "--pythonpath", cfg.path(d))
		}
		return args
	}
	switch {
	case s.Cobra != nil:
		return []string{"--cobra", s.Cobra[0], command}
	case s.More.Clap != nil:
		return []string{"--clap", s.More.Clap[0], command}
	case s.More.Optparse != nil:
		p := s.More.Optparse
		args := python("--optparse", &PythonSource{Target: p.Target, Python: p.Python, PythonPath: p.PythonPath})
		if p.Command != "" {
			args = append(args, "--optparse-command", p.Command)
		}
		return args
	case s.Argparse != nil:
		return python("--argparse", s.Argparse)
	case s.Click != nil:
		return python("--click", s.Click)
	}
	return nil
}

// initThenCheck runs init for the program config fronts, then check on
// what it wrote, which must pass with no warning.
func initThenCheck(t *testing.T, config string) {
	t.Helper()
	cfg, err := LoadConfig(config)
	if err != nil {
		t.Fatal(err)
	}
	args := initArgs(cfg)
	if args == nil {
		t.Skipf("init reads parsers; %s declares or hands over its tree", config)
	}
	for _, v := range cfg.Verbs {
		if len(v.Fixed) > 0 || len(v.Positionals) > 0 {
			// What the reader cannot know, init cannot write: the
			// operator's fixed values and stated positionals.
			t.Skipf("%s: verb %s needs the operator's fixed values or positionals, which no reader gives init", config, v.Name)
		}
	}
	out := filepath.Join(t.TempDir(), "init.yaml")
	stdout, stderr, status := runVS(t, append([]string{"init", "-o", out}, args...)...)
	if status != 0 {
		t.Fatalf("init %q: status %d\n%s%s", args, status, stdout, stderr)
	}
	written, err := LoadConfig(out)
	if err != nil {
		t.Fatal(err)
	}
	stdout, stderr, status = runVS(t, "check", "-c", out)
	if want := fmt.Sprintf(": ok: %d verbs offered\n", len(written.Verbs)); status != 0 || !strings.HasSuffix(stdout, want) {
		b, _ := os.ReadFile(out)
		t.Fatalf("check of what init wrote: status %d, want %q\n%s%s\n%s", status, want, stdout, stderr, b)
	}
	t.Logf("%s: %d verbs offered", filepath.Base(config), len(written.Verbs))
}

// TestInitPassesCheck: what init writes passes check as written, for every
// corpus program init can read (examples/fronts; the missing ones skip as
// in TestCorpus) and for the configurations shipped beside the tests.
func TestInitPassesCheck(t *testing.T) {
	for _, p := range allCorpus(t) {
		t.Run(p.name, func(t *testing.T) {
			needCorpusProgram(t, p)
			initThenCheck(t, filepath.Join("..", "..", "examples", "fronts", p.name+".yaml"))
		})
	}
	shipped, err := filepath.Glob(filepath.Join("testdata", "*", "*.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	for _, config := range shipped {
		t.Run(filepath.Base(config), func(t *testing.T) {
			cfg, err := LoadConfig(config)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := exec.LookPath(cfg.resolvedCommand()[0]); err != nil {
				t.Skipf("%s: %v", config, err)
			}
			if p := cfg.Source.Argparse; p != nil && !importable(p, cfg) || cfg.Source.Click != nil && !importable(cfg.Source.Click, cfg) {
				t.Skipf("%s: the Python module of its parser is not installed", config)
			}
			initThenCheck(t, config)
		})
	}
}

// importable reports whether p's interpreter imports p's module.
func importable(p *PythonSource, cfg *Config) bool {
	python := p.Python
	if python == "" {
		python = "python3"
	}
	cmd := exec.Command(python, "-c", "import "+strings.SplitN(p.Target, ":", 2)[0])
	var path []string
	for _, d := range p.PythonPath {
		path = append(path, cfg.path(d))
	}
	cmd.Env = append(os.Environ(), "PYTHONPATH="+strings.Join(path, string(os.PathListSeparator)))
	return cmd.Run() == nil
}

// TestInitWrites: the starting file lists every command — read-like ones
// offered as observe verbs, the others commented out as control verbs —
// with its summary, its path-like parameters confined, its fenced
// commands named, and init never overwrites a file.
func TestInitWrites(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "notes.yaml")
	notes := filepath.Join("testdata", "notes")
	stdout, stderr, status := runVS(t, "init", "--argparse", "notes:build_parser", "--pythonpath", notes, "--command", "python3,"+filepath.Join(notes, "notes.py"), "-o", out)
	if status != 0 {
		t.Fatalf("init: %d\n%s%s", status, stdout, stderr)
	}
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	text := string(b)
	for _, want := range []string{
		"  - name: list\n    path: [\"list\"]\n    class: observe\n    summary: \"list notes\"\n",
		"  - name: show\n    path: [\"show\"]\n    class: observe\n",
		"  # - name: add\n  #   path: [\"add\"]\n  #   class: control\n  #   summary: \"add a note\"\n",
		"  # - name: admin.reset\n",
		"source: {argparse: {target: \"notes:build_parser\", pythonpath: [",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("want %q in\n%s", want, text)
		}
	}
	if _, stderr, status := runVS(t, "init", "--argparse", "notes:build_parser", "--pythonpath", notes, "--command", "python3", "-o", out); status == 0 || !strings.Contains(stderr, "never overwrites") {
		t.Errorf("init over an existing file: status %d, %s", status, stderr)
	}
	for _, args := range [][]string{{"init"}, {"init", "--argparse", "a:b"}, {"init", "--cobra", "x", "--click", "a:b"}} {
		if _, stderr, status := runVS(t, args...); status == 0 || stderr == "" {
			t.Errorf("%q: status %d, %s", args, status, stderr)
		}
	}
}

func TestVerbNames(t *testing.T) {
	names := map[string]bool{}
	for _, tc := range []struct {
		path []string
		want string
	}{
		{nil, "prog"},
		{[]string{"Job", "List"}, "job.list"},
		{[]string{"job", "list"}, "job.list_2"},
		{[]string{"3d", "x_y"}, "x3d.x_y"},
		{[]string{"a+b"}, "a-b"},
	} {
		if got := verbName("prog", tc.path, names); got != tc.want {
			t.Errorf("verbName(%q) = %q, want %q", tc.path, got, tc.want)
		}
	}
}
