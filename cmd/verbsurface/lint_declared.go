//go:build unix

package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/verbsurface/verbsurface/dispatch"
)

// helpTimeout bounds one run of a declared program's help for check.
const helpTimeout = 10 * time.Second

// maxHelpBytes bounds the help text check reads: a program that prints
// more is compared with its first bytes.
const maxHelpBytes = 1 << 20

// lintDeclared compares each declared command a verb offers with the
// program's own help (source.declared.help appended to the command's
// path, stdout and stderr together, whatever the exit status), and warns
// about every option none of whose flags the help shows, and about a help
// that could not be read. An option marked unlisted: is not looked for
// (the operator vouched for it: jq's --help shows "some of the options").
// It proves nothing about what the options do: the declaration remains
// the operator's word, and check only says where the program's own words
// do not back it.
func (f *front) lintDeclared(ctx context.Context) []*Warning {
	d := f.cfg.Source.Declared
	if d == nil || len(d.helpArgs()) == 0 {
		return nil
	}
	var warns []*Warning
	done := map[string]bool{}
	for i, v := range f.cfg.Verbs {
		j := slices.IndexFunc(d.Commands, func(dc DeclaredCommand) bool { return slices.Equal(*dc.Path, v.Path) })
		if j < 0 || done[pathKey(v.Path)] {
			continue
		}
		done[pathKey(v.Path)] = true
		dc := d.Commands[j]
		warn := func(param, format string, args ...any) {
			warns = append(warns, &Warning{File: f.cfg.file, Line: nodeLine(f.cfg.doc, "source", "declared", "commands", j),
				Field: fmt.Sprintf("source.declared.commands[%d]", j), Verb: v.Name, Param: param, Msg: fmt.Sprintf(format, args...)})
		}
		argv := append(append(slices.Clone(f.cfg.resolvedCommand()), v.Path...), d.helpArgs()...)
		help, err := f.runHelp(ctx, i, argv)
		shown := strings.Join(argv[1:], " ")
		if err != nil {
			warn("", "could not read the program's help to compare the declaration with (%s %s): %v", argv[0], shown, err)
			continue
		}
		for _, p := range dc.Options {
			if p.Unlisted || slices.ContainsFunc(p.Flags, func(fl string) bool { return flagShown(help, fl) }) {
				continue
			}
			warn(p.Name, "option %s (%s) is not in the output of `%s %s`: check the declaration against the program's manual, or mark the option unlisted: true once you have",
				strings.Join(p.Flags, "/"), p.Name, f.cfg.Command[0], shown)
		}
	}
	return warns
}

// runHelp runs argv as verb i's command would run (its environment and
// directory), and returns stdout and stderr together.
func (f *front) runHelp(ctx context.Context, i int, argv []string) ([]byte, error) {
	ctx, cancel := context.WithTimeout(ctx, helpTimeout)
	defer cancel()
	prog, err := exec.LookPath(argv[0])
	if err != nil {
		return nil, err
	}
	cmd := exec.CommandContext(ctx, prog, argv[1:]...)
	cmd.Env = dispatch.AllowlistEnv(os.Environ(), f.cfg.Env.Pass...)
	if dir, _, _ := f.cfg.cwdOf(i); dir != "" {
		cmd.Dir = dir
	}
	var out capped
	out.max = maxHelpBytes
	cmd.Stdout, cmd.Stderr = &out, &out
	err = cmd.Run()
	if ctx.Err() != nil {
		return nil, fmt.Errorf("no answer within %v", helpTimeout)
	}
	if out.Len() == 0 {
		if err == nil {
			err = fmt.Errorf("it printed nothing")
		}
		return nil, err
	}
	return out.Bytes(), nil
}

// capped is a buffer that keeps its first max bytes and drops the rest.
type capped struct {
	bytes.Buffer
	max int
}

func (c *capped) Write(p []byte) (int, error) {
	if room := c.max - c.Len(); room > 0 {
		c.Buffer.Write(p[:min(room, len(p))])
	}
	return len(p), nil
}

// flagShown reports whether help shows the option string fl as a word of
// its own: not inside a longer option ("-c" in "-color"), though it may be
// followed by "=" and a value word ("-std=<standard>"), a comma or a space.
func flagShown(help []byte, fl string) bool {
	re := regexp.MustCompile(`(?:^|[^A-Za-z0-9_-])` + regexp.QuoteMeta(fl) + `(?:$|[^A-Za-z0-9_-])`)
	return re.Match(help)
}

// pathKey is a command path as one map key.
func pathKey(path []string) string { return strings.Join(path, "\x00") }
