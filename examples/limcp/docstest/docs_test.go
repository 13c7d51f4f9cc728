//go:build unix

package docstest

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/verbsurface/verbsurface/examples/limcp/internal/e2e"
)

// Package docstest runs the READMEs as written (its own package, so the
// minutes it takes have their own test timeout).
//
// The READMEs are run as written: every shell block, in order, in a fresh
// home and a fresh temporary directory, with `limcp` on PATH as
// `go install ./examples/limcp` would put it. A block a test machine cannot
// run (one that needs a client such as Claude Code, or a server that runs
// until stopped) is preceded by a marker line saying why:
//
//	<!-- docs-test: skip: needs Claude Code -->
//
// A block that runs a third-party program the suite installs in CI (a
// Debian package) names it:
//
//	<!-- docs-test: needs: yamllint -->
//
// Where a program it names is not on PATH, that block and the rest of its
// page are skipped (later blocks may stand on it), unless
// $VERBSURFACE_REQUIRE_PROGRAMS is set (.ci/run sets it after installing
// them), where the absence fails.
//
// A ```sh block runs as a bash script; a ```console block runs the lines
// that start with "$ " (a line ending in a backslash continues on the
// next), and the lines between are the output a reader sees, not checked.
// Each file's blocks share one shell, so a variable one block sets is there
// in the next, as in a reader's terminal.

const docsSkipMarker = "<!-- docs-test: skip:"

// docsNeedsMarker names the programs the next block runs.
const docsNeedsMarker = "<!-- docs-test: needs:"

// requireProgramsEnv makes a program a needs marker names and PATH lacks a
// failure rather than a skip.
const requireProgramsEnv = "VERBSURFACE_REQUIRE_PROGRAMS"

// docsInsideVar is set in the environment of the blocks, so that this test
// never runs inside itself.
const docsInsideVar = "VERBSURFACE_DOCS_TEST"

var limcpBin string

func TestMain(m *testing.M) {
	bin, cleanup, err := e2e.Build()
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	limcpBin = bin
	code := m.Run()
	cleanup()
	os.Exit(code)
}

// taggedEnv is this process's environment without the developer's LIMCP_
// variables, tagged so that every process a block leaves behind is reaped.
func taggedEnv(t *testing.T) []string {
	tag := t.TempDir()
	t.Cleanup(func() {
		if left := e2e.Reap(tag); len(left) > 0 {
			t.Errorf("processes %v outlived the blocks and could not be stopped", left)
		}
	})
	env := []string{e2e.TagVar + "=" + tag}
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "LIMCP_") {
			env = append(env, kv)
		}
	}
	return env
}

// docBlock is one fenced shell block of a Markdown file.
type docBlock struct {
	line  int    // the fence's line, 1-based
	lang  string // sh or console
	text  string
	skip  string   // the marker's reason, when marked
	needs []string // the programs a needs marker names
}

// docBlocks returns the sh and console blocks of a Markdown file in order.
func docBlocks(path string) ([]docBlock, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var blocks []docBlock
	var cur *docBlock
	var body strings.Builder
	indent := "" // the fence's own indentation (a block inside a list item)
	skip := ""
	var needs []string
	sc := bufio.NewScanner(bytes.NewReader(b))
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		trimmed := strings.TrimSpace(line)
		switch {
		case cur != nil && trimmed == "```":
			cur.text = body.String()
			blocks = append(blocks, *cur)
			cur = nil
		case cur != nil:
			body.WriteString(strings.TrimPrefix(line, indent) + "\n")
		case strings.HasPrefix(trimmed, docsSkipMarker):
			skip = strings.TrimSpace(strings.TrimSuffix(strings.TrimPrefix(trimmed, docsSkipMarker), "-->"))
		case strings.HasPrefix(trimmed, docsNeedsMarker):
			needs = strings.Fields(strings.TrimSuffix(strings.TrimPrefix(trimmed, docsNeedsMarker), "-->"))
		case strings.HasPrefix(trimmed, "```"):
			lang := strings.TrimPrefix(trimmed, "```")
			if lang == "sh" || lang == "console" {
				cur = &docBlock{line: n, lang: lang, skip: skip, needs: needs}
				indent = line[:len(line)-len(strings.TrimLeft(line, " "))]
				body.Reset()
			}
			skip, needs = "", nil
		case trimmed != "":
			skip, needs = "", nil // a marker applies to the block right after it
		}
	}
	if cur != nil {
		return nil, fmt.Errorf("%s:%d: unclosed code block", path, cur.line)
	}
	return blocks, sc.Err()
}

// blocksToRun is the blocks of file a test machine runs, in order: not
// those marked skip, and none from the first block that needs a program
// PATH lacks (later blocks may stand on it) — or, when require is set, an
// error naming the program. notes say what was left out and why.
func blocksToRun(file string, blocks []docBlock, require bool) (run []docBlock, notes []string, err error) {
	for _, b := range blocks {
		if b.skip != "" {
			notes = append(notes, fmt.Sprintf("%s:%d: skipped: %s", file, b.line, b.skip))
			continue
		}
		if missing := missingPrograms(b.needs); len(missing) > 0 {
			if require {
				return nil, notes, fmt.Errorf("%s:%d needs %s, not on PATH (%s is set: CI installed them)", file, b.line, strings.Join(missing, ", "), requireProgramsEnv)
			}
			notes = append(notes, fmt.Sprintf("%s:%d and the rest of the page: skipped: %s not on PATH (.ci/run installs it)", file, b.line, strings.Join(missing, ", ")))
			break
		}
		run = append(run, b)
	}
	return run, notes, nil
}

// missingPrograms is those of programs that PATH does not hold.
func missingPrograms(programs []string) []string {
	var missing []string
	for _, p := range programs {
		if _, err := exec.LookPath(p); err != nil {
			missing = append(missing, p)
		}
	}
	return missing
}

// script is what a block runs in the shell.
func (b docBlock) script() string {
	if b.lang == "sh" {
		return b.text
	}
	var out strings.Builder
	cont := false
	for _, line := range strings.Split(b.text, "\n") {
		switch {
		case cont:
			out.WriteString(line + "\n")
		case strings.HasPrefix(line, "$ "):
			out.WriteString(strings.TrimPrefix(line, "$ ") + "\n")
		default:
			continue
		}
		cont = strings.HasSuffix(line, "\\")
	}
	return out.String()
}

// TestDocsRunAsWritten runs every shell block of every page a reader is
// sent to (docPages).
func TestDocsRunAsWritten(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: the READMEs' blocks build and run limcp for real")
	}
	// A block that runs the suite (marked skip, but a marker can be lost)
	// would run this test again from inside itself, without end.
	if os.Getenv(docsInsideVar) != "" {
		t.Skip("running inside a README block: not again")
	}
	root, err := filepath.Abs("../../..")
	if err != nil {
		t.Fatal(err)
	}
	pages, err := docPages(root)
	if err != nil {
		t.Fatal(err)
	}
	for _, file := range pages {
		// Every page's commands are typed at the clone's root, as the
		// README's are (examples/limcp/README.md starts with go install
		// ./examples/limcp).
		doc := struct{ file, dir string }{file, root}
		t.Run(doc.file, func(t *testing.T) {
			blocks, err := docBlocks(filepath.Join(root, doc.file))
			if err != nil {
				t.Fatal(err)
			}
			home, bin, tmp := t.TempDir(), t.TempDir(), t.TempDir()
			if err := os.Symlink(limcpBin, filepath.Join(bin, "limcp")); err != nil {
				t.Fatal(err)
			}
			dir := doc.dir
			if dir == "" {
				dir = tmp
			}
			var script strings.Builder
			script.WriteString("set -euo pipefail\n")
			run, notes, err := blocksToRun(doc.file, blocks, os.Getenv(requireProgramsEnv) != "")
			for _, n := range notes {
				t.Log(n)
			}
			if err != nil {
				t.Fatal(err)
			}
			for _, b := range run {
				fmt.Fprintf(&script, "echo '::: %s:%d' >&2\n%s\n", doc.file, b.line, b.script())
			}
			ran := len(run)
			if ran == 0 {
				if doc.file == "README.md" {
					t.Fatalf("%s has no block that runs", doc.file)
				}
				t.Skipf("%s has no shell block that a test machine can run", doc.file)
			}
			cmd := exec.Command("bash", "-c", script.String())
			cmd.Dir = dir
			cmd.Env = docsEnv(taggedEnv(t), home, bin, tmp)
			var out bytes.Buffer
			cmd.Stdout, cmd.Stderr = &out, &out
			cmd.Stdin = nil
			done := make(chan error, 1)
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			go func() { done <- cmd.Wait() }()
			select {
			case err = <-done:
			case <-time.After(4 * time.Minute):
				_ = cmd.Process.Kill()
				err = fmt.Errorf("timed out: %w", <-done)
			}
			if err != nil {
				t.Fatalf("%s does not run as written (%v); the last block started is the last '::: FILE:LINE' line:\n%s", doc.file, err, tail(out.String(), 6000))
			}
		})
	}
}

// docsEnv is a reader's fresh environment: a new HOME, TMPDIR and no
// LIMCP_ variables, limcp first on PATH; the Go caches stay where they
// are, so `go run` does not rebuild the world.
func docsEnv(base []string, home, bin, tmp string) []string {
	keep := map[string]string{}
	for _, k := range []string{"GOCACHE", "GOMODCACHE", "GOPATH"} {
		out, err := exec.Command("go", "env", k).Output()
		if err == nil {
			keep[k] = strings.TrimSpace(string(out))
		}
	}
	var env []string
	for _, kv := range base {
		k, _, _ := strings.Cut(kv, "=")
		switch {
		case k == "HOME" || k == "TMPDIR" || k == "PATH" || k == "XDG_STATE_HOME" || k == "GOBIN":
		case keep[k] != "":
		default:
			env = append(env, kv)
		}
	}
	for k, v := range keep {
		env = append(env, k+"="+v)
	}
	// GOBIN is the reader's PATH directory: `go install ./examples/limcp`
	// puts limcp where the blocks that follow find it, and nowhere else.
	return append(env, docsInsideVar+"=1", "HOME="+home, "TMPDIR="+tmp, "GOBIN="+bin, "PATH="+bin+string(os.PathListSeparator)+os.Getenv("PATH"))
}

func tail(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return "…" + s[len(s)-n:]
}

// docPages are the Markdown pages whose shell blocks a reader types, as
// paths relative to the clone's root: the README, the reference CLI's, and
// every page under docs/.
func docPages(root string) ([]string, error) {
	pages := []string{"README.md", "examples/limcp/README.md"}
	more, err := filepath.Glob(filepath.Join(root, "docs", "*.md"))
	if err != nil {
		return nil, err
	}
	for _, m := range more {
		rel, err := filepath.Rel(root, m)
		if err != nil {
			return nil, err
		}
		pages = append(pages, rel)
	}
	return pages, nil
}

// TestDocsPagesAreLinked: every page under docs/ is reachable from the
// README, directly or through docs/README.md, so no page of the guide is
// an orphan a reader never finds; and every relative link of the README and
// the pages names a file that exists.
func TestDocsPagesAreLinked(t *testing.T) {
	root, _ := filepath.Abs("../../..")
	pages, err := docPages(root)
	if err != nil {
		t.Fatal(err)
	}
	linked := map[string]bool{}
	link := regexp.MustCompile(`\]\(([^)\s#]+)(#[^)\s]*)?\)`)
	for _, page := range append(pages, "SECURITY.md", "CONTRACTS.md", "CHANGELOG.md") {
		b, err := os.ReadFile(filepath.Join(root, page))
		if err != nil {
			t.Errorf("%s: %v", page, err)
			continue
		}
		for _, m := range link.FindAllStringSubmatch(string(b), -1) {
			target := m[1]
			if strings.Contains(target, "://") || strings.HasPrefix(target, "mailto:") {
				continue
			}
			abs := filepath.Join(root, filepath.Dir(page), target)
			if _, err := os.Stat(abs); err != nil {
				t.Errorf("%s links to %s, which does not exist", page, target)
				continue
			}
			if rel, err := filepath.Rel(root, abs); err == nil && (page == "README.md" || page == filepath.Join("docs", "README.md")) {
				linked[rel] = true
			}
		}
	}
	for _, page := range pages {
		if strings.HasPrefix(page, "docs"+string(filepath.Separator)) && page != filepath.Join("docs", "README.md") && !linked[page] {
			t.Errorf("%s is linked neither from README.md nor from docs/README.md", page)
		}
	}
}

// TestDocBlocks pins how blocks are read: fences, the skip marker (for the
// next block only), console prompts and continuations.
func TestDocBlocks(t *testing.T) {
	md := "intro\n" + docsSkipMarker + " needs a client -->\n```sh\nclaude mcp add x\n```\n" +
		docsNeedsMarker + " yamllint csvjson -->\n```sh\nyamllint x\n```\n" +
		"```console\n$ limcp agent echo \\\n    hi\nok, started\n$ limcp job list\n```\n" +
		"```go\nfmt.Println()\n```\n```sh\necho two\n```\n"
	path := filepath.Join(t.TempDir(), "x.md")
	if err := os.WriteFile(path, []byte(md), 0o600); err != nil {
		t.Fatal(err)
	}
	blocks, err := docBlocks(path)
	if err != nil {
		t.Fatal(err)
	}
	if len(blocks) != 4 || blocks[0].skip != "needs a client" || blocks[1].skip != "" || blocks[2].skip != "" || blocks[3].skip != "" {
		t.Fatalf("blocks %+v", blocks)
	}
	if !slices.Equal(blocks[1].needs, []string{"yamllint", "csvjson"}) || blocks[0].needs != nil || blocks[2].needs != nil {
		t.Fatalf("needs markers read as %+v", blocks)
	}
	if got, want := blocks[2].script(), "limcp agent echo \\\n    hi\nlimcp job list\n"; got != want {
		t.Errorf("console script %q, want %q", got, want)
	}
}

// TestBlocksToRun: a block needing a program PATH lacks ends the page's
// run (skipped with a note), or fails it when CI says the programs are
// installed; a block needing one PATH has runs, and skip markers skip.
func TestBlocksToRun(t *testing.T) {
	const absent = "verbsurface-test-no-such-program"
	blocks := []docBlock{
		{line: 1, text: "a"},
		{line: 2, text: "b", skip: "needs a client"},
		{line: 3, text: "c", needs: []string{"sh"}},
		{line: 4, text: "d", needs: []string{"sh", absent}},
		{line: 5, text: "e"},
	}
	run, notes, err := blocksToRun("x.md", blocks, false)
	if err != nil {
		t.Fatal(err)
	}
	var lines []int
	for _, b := range run {
		lines = append(lines, b.line)
	}
	if !slices.Equal(lines, []int{1, 3}) {
		t.Errorf("ran the blocks of lines %v, want [1 3]", lines)
	}
	if len(notes) != 2 || !strings.Contains(notes[1], "x.md:4 and the rest of the page") || !strings.Contains(notes[1], absent) || strings.Contains(notes[1], "sh,") {
		t.Errorf("notes %q", notes)
	}
	if _, _, err := blocksToRun("x.md", blocks, true); err == nil || !strings.Contains(err.Error(), "x.md:4 needs "+absent) {
		t.Errorf("with the programs required: %v, want an error naming %s at x.md:4", err, absent)
	}
}

// TestReposStandAlone: nothing in the repository points outside it (a
// clone has no ../shared).
func TestReposStandAlone(t *testing.T) {
	root, _ := filepath.Abs("../../..")
	out, err := exec.Command("git", "-C", root, "grep", "-n", "-I", "-F", "-e", "../shared", "--", "*.md", "*.go", ":!*_test.go").CombinedOutput()
	var exit *exec.ExitError
	switch {
	case err == nil:
		t.Errorf("files point outside the repository:\n%s", out)
	case errors.As(err, &exit) && exit.ExitCode() == 1:
		// git grep found nothing: what the test wants.
	case errors.Is(err, exec.ErrNotFound):
		t.Skip("git is not installed; nothing to search with")
	default:
		// A search that failed proves nothing either way.
		t.Fatalf("git grep: %v\n%s", err, out)
	}
}
