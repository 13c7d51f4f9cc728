//go:build unix

package fromclap

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/verbsurface/verbsurface/projector"
	"github.com/verbsurface/verbsurface/projector/internal/goldentree"
)

// installed returns the program's path, or skips the test with a reason;
// under CI (.ci/run installs them from Debian) a missing one fails.
func installed(t testing.TB, name, pkg string) string {
	t.Helper()
	p, err := exec.LookPath(name)
	if err != nil {
		if os.Getenv("CI") == "true" || os.Getenv("VERBSURFACE_REQUIRE_PROGRAMS") == "1" {
			t.Fatalf("%s is not installed: .ci/run installs Debian's %s", name, pkg)
		}
		t.Skipf("%s is not installed (apt-get install %s)", name, pkg)
	}
	return p
}

// debianClap are the clap programs of Debian bookworm the tests read.
var debianClap = []struct{ bin, pkg string }{
	{"fdfind", "fd-find"},      // 8.6.0, clap 4
	{"rg", "ripgrep"},          // 13.0.0, clap 2 (ripgrep 14 has its own parser)
	{"batcat", "bat"},          // 0.22.1, clap 3
	{"tldr", "tealdeer"},       // 1.5.0, clap 3
	{"zoxide", "zoxide"},       // 0.4.3, clap 2
	{"hyperfine", "hyperfine"}, // 1.15.0, clap 3
}

// TestGoldenDebian pins the projection of Debian's clap programs as read
// from their help: every command's schema, or why it is unavailable.
func TestGoldenDebian(t *testing.T) {
	for _, p := range debianClap {
		t.Run(p.bin, func(t *testing.T) {
			installed(t, p.bin, p.pkg)
			tree, err := Walk(context.Background(), []string{p.bin}, nil)
			if err != nil {
				t.Fatal(err)
			}
			if tree.Dialect != projector.DialectClap || tree.Program != p.bin {
				t.Errorf("dialect %q program %q", tree.Dialect, tree.Program)
			}
			goldentree.Check(t, tree, p.bin)
		})
	}
}

// TestCommandRules: what a help settles and what it leaves unavailable,
// one row per rule, on clap-shaped help texts.
func TestCommandRules(t *testing.T) {
	for _, c := range []struct {
		name, help, unavailable string
	}{
		{"one usage line reads", "Usage: p [OPTIONS] <A> [B] [C]...\n\nArguments:\n  <A>  a\n  [B]  b\n  [C]...  c\n\nOptions:\n  -x, --ex <V>  x\n", ""},
		{"several usage lines", "Usage: p [OPTIONS] <A>\n       p [OPTIONS] -e <B>\n\nArguments:\n  <A>  a\n", "2 usage lines"},
		{"the program's own usage", "USAGE:\n    p [OPTIONS] PATTERN [PATH ...]\n\nOPTIONS:\n    -x  x\n", "the program's own"},
		{"a list before another positional", "Usage: p <A>... <B>\n\nArguments:\n  <A>...  a\n  <B>  b\n", "argv cannot say"},
		{"a required positional after an optional one", "Usage: p [A] <B>\n\nArguments:\n  [A]  a\n  <B>  b\n", "argv cannot say"},
		{"an argument not in the usage", "Usage: p [OPTIONS]\n\nArguments:\n  [A]  a\n", "not in its usage line"},
		{"a usage positional not listed", "Usage: p <A>\n", "its arguments do not list"},
		{"several values per occurrence", "Usage: p [OPTIONS]\n\nOptions:\n  -x, --exec <cmd>...  run\n", "takes several values"},
		{"two value names", "Usage: p [OPTIONS]\n\nOptions:\n  --range <LO> <HI>  r\n", "takes 2 values"},
		{"an optional value", "Usage: p [OPTIONS]\n\nOptions:\n  --color[=<WHEN>]  c\n", "may be left out"},
		{"a required option the options lack", "Usage: p --name <NAME>\n", "its options do not list"},
		{"a required option", "Usage: p [OPTIONS] --name <NAME> <FILE>\n\nArguments:\n  <FILE>  f\n\nOptions:\n  --name <NAME>  n\n", ""},
		{"a required group", "Usage: p [OPTIONS] <--build|--clear>\n\nOptions:\n  -b, --build  b\n  -c, --clear  c\n", ""},
		{"only subcommands", "Usage: p <COMMAND>\n\nCommands:\n  run  r\n", "only dispatches"},
	} {
		t.Run(c.name, func(t *testing.T) {
			h, err := parseHelp(c.help)
			if err != nil {
				t.Fatal(err)
			}
			cmd := (&node{path: []string{}, help: h}).command()
			_, perr := projector.Project(cmd)
			switch {
			case c.unavailable == "" && perr != nil:
				t.Fatalf("unavailable: %v", perr)
			case c.unavailable != "" && (perr == nil || !strings.Contains(perr.Error(), c.unavailable)):
				t.Fatalf("got %v, want unavailable for %q", perr, c.unavailable)
			}
		})
	}
}

// TestRequiredParts: a required option and a required group are required
// in the schema; positionals keep the usage's order and arity.
func TestRequiredParts(t *testing.T) {
	h, err := parseHelp("Usage: p [OPTIONS] --name <NAME> <--build|--clear> <FILE> [REST]...\n\nArguments:\n  <FILE>  f\n  [REST]...  r\n\nOptions:\n  --name <NAME>  n\n  -b, --build  b\n  -c, --clear  c\n  -v, --verbose...  v\n")
	if err != nil {
		t.Fatal(err)
	}
	cmd := (&node{path: []string{}, help: h}).command()
	byName := map[string]*projector.Param{}
	for _, p := range cmd.Params {
		byName[p.Name] = p
	}
	if p := byName["name"]; p == nil || !p.Required || p.Arity != projector.ArityOne {
		t.Errorf("--name: %+v", p)
	}
	if p := byName["verbose"]; p == nil || p.Arity != projector.ArityCount {
		t.Errorf("--verbose...: %+v", p)
	}
	if p := byName["FILE"]; p == nil || !p.Required || !p.Positional() {
		t.Errorf("FILE: %+v", p)
	}
	if p := byName["REST"]; p == nil || p.Arity != projector.ArityZeroOrMore {
		t.Errorf("REST: %+v", p)
	}
	if len(cmd.Groups) != 1 || !cmd.Groups[0].Required || strings.Join(cmd.Groups[0].Params, ",") != "build,clear" {
		t.Errorf("groups %+v", cmd.Groups)
	}
	argv, err := projector.RenderArgv(projector.DialectClap, cmd, map[string]any{"name": "-n", "build": true, "verbose": float64(2), "FILE": "-f", "REST": []any{"--", "x"}})
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(argv, " "); got != "--name=-n --build --verbose --verbose -- -f -- x" {
		t.Errorf("argv %q", got)
	}
}

// script writes an executable shell script and returns its path.
func script(t *testing.T, body string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "prog")
	if err := os.WriteFile(p, []byte("#!/bin/sh\n"+body), 0o755); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestWalkErrors: a walk that gives no tree is an *Error with its Kind; a
// subcommand whose help fails is unavailable, not an error.
func TestWalkErrors(t *testing.T) {
	ctx := context.Background()
	for _, c := range []struct {
		name string
		argv []string
		opts *Options
		kind ErrorKind
	}{
		{"no such program", []string{"/nonexistent/prog"}, nil, KindLaunch},
		{"not clap's layout", []string{script(t, "echo 'usage is elsewhere'\n")}, nil, KindLayout},
		{"help fails", []string{script(t, "echo oops >&2; exit 2\n")}, nil, KindLayout},
		{"past the timeout", []string{script(t, "sleep 5\n")}, &Options{Timeout: 200 * time.Millisecond}, KindCall},
		{"past the output cap", []string{script(t, "yes Usage: p\n")}, &Options{MaxOutput: 1000}, KindCall},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := Walk(ctx, c.argv, c.opts)
			var e *Error
			if !errors.As(err, &e) || e.Kind != c.kind {
				t.Fatalf("got %v, want an *Error of kind %s", err, c.kind)
			}
		})
	}
	prog := script(t, `case "$1" in
run) echo "broken" >&2; exit 3;;
*) printf 'Usage: p <COMMAND>\n\nCommands:\n  run  Run it\n  help  Print this message or the help of the given subcommand(s)\n';;
esac
`)
	tree, err := Walk(ctx, []string{prog}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(tree.Commands) != 2 {
		t.Fatalf("%d commands, want the root and run (not help)", len(tree.Commands))
	}
	if run := tree.Find("run"); run == nil || run.Unrepresentable == nil || !strings.Contains(run.Unrepresentable.Reason, "could not be read") || run.Summary != "Run it" {
		t.Errorf("run: %+v", run)
	}
	if _, err := Walk(ctx, []string{prog}, &Options{MaxCommands: 1}); !errors.As(err, new(*Error)) {
		t.Errorf("past MaxCommands: %v", err)
	}
}
