// Command searchcorpus writes the search figure's corpus of one installed
// cobra program: every command the program's completion protocol lists
// (cobra's hidden __complete, the machine format the cobra-binary reader
// also reads), with its one-line description and its flags with theirs,
// as JSON. The corpora in verbsurface/testdata/search were written by it:
//
//	go run ./bench/searchcorpus podman >verbsurface/testdata/search/podman.json
//
// Only completion is read, so programs with their own help layout (gh,
// podman) are read like any other.
package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"regexp"
	"slices"
	"strings"
	"time"
)

// command is one entry of the corpus.
type command struct {
	Path    []string `json:"path"`
	Summary string   `json:"summary"`
	Flags   []flag   `json:"flags,omitempty"`
	Group   bool     `json:"group,omitempty"` // has subcommands
}

type flag struct {
	Name string `json:"name"`
	Help string `json:"help,omitempty"`
}

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: searchcorpus PROGRAM")
		os.Exit(2)
	}
	prog := os.Args[1]
	var out []command
	var walk func(path []string, summary string) error
	walk = func(path []string, summary string) error {
		subs, err := complete(prog, append(path, ""))
		if err != nil {
			return err
		}
		c := command{Path: path, Summary: summary}
		var children [][2]string
		for _, s := range subs {
			// Argument completions (a container's name, a file) are not
			// commands: a command always has a description, is named like
			// a word, and the walk goes no deeper than real CLIs do.
			if s[0] == "help" || s[0] == "completion" || s[1] == "" || len(path) >= 3 ||
				!commandWord.MatchString(s[0]) || slices.Contains(path, s[0]) {
				continue
			}
			children = append(children, s)
		}
		c.Group = len(children) > 0
		if !c.Group && len(path) > 0 {
			flags, err := complete(prog, append(path, "--"))
			if err != nil {
				return err
			}
			for _, f := range flags {
				if f[0] != "--help" && strings.HasPrefix(f[0], "--") {
					c.Flags = append(c.Flags, flag{Name: strings.TrimPrefix(f[0], "--"), Help: f[1]})
				}
			}
		}
		out = append(out, c)
		for _, s := range children {
			if err := walk(append(append([]string{}, path...), s[0]), s[1]); err != nil {
				return err
			}
		}
		return nil
	}
	if err := walk(nil, ""); err != nil {
		fmt.Fprintln(os.Stderr, "searchcorpus:", err)
		os.Exit(1)
	}
	enc := json.NewEncoder(os.Stdout)
	enc.SetIndent("", " ")
	if err := enc.Encode(out); err != nil {
		fmt.Fprintln(os.Stderr, "searchcorpus:", err)
		os.Exit(1)
	}
}

var commandWord = regexp.MustCompile(`^[a-z][a-z0-9-]*$`)

// complete asks the program for its completions of args: one
// [word, description] pair a line, until the ":N" directive line.
func complete(prog string, args []string) ([][2]string, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, prog, append([]string{"__complete"}, args...)...)
	cmd.Env = append(os.Environ(), "HOME="+os.TempDir(), "NO_COLOR=1")
	var stdout bytes.Buffer
	cmd.Stdout = &stdout
	if err := cmd.Run(); err != nil {
		return nil, fmt.Errorf("%s __complete %s: %w", prog, strings.Join(args, " "), err)
	}
	var out [][2]string
	sc := bufio.NewScanner(&stdout)
	for sc.Scan() {
		line := sc.Text()
		if strings.HasPrefix(line, ":") {
			break
		}
		word, desc, _ := strings.Cut(line, "\t")
		out = append(out, [2]string{word, desc})
	}
	return out, sc.Err()
}
