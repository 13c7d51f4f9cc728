//go:build unix

// Package synth builds the synthetic cobra CLI of the growth figures: n
// leaf commands in groups of GroupSize, each with the same eight flags
// (string with a pattern, integer, boolean, string list, duration,
// number, plain string, boolean) and a machine-mode --json flag, and the
// verbsurface server that fronts it. The bench (bench/figures) builds
// the tree for 10, 100, 1,000 and 5,000 commands in process for the
// per-op figure, and runs bench/synthcli, the same tree as a binary, for
// the start, catalog, help and memory figures.
package synth

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strconv"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/spf13/cobra"
	"github.com/verbsurface/verbsurface/dispatch"
	"github.com/verbsurface/verbsurface/projector"
	"github.com/verbsurface/verbsurface/projector/fromcobra"
	"github.com/verbsurface/verbsurface/verbsurface"
)

// GroupSize is how many leaf commands one group holds: paths are
// ["gK", "cI"], as in a CLI with nouns and verbs.
const GroupSize = 50

// CommandsEnv carries the number of commands to the CLI the server runs:
// both must build the same tree.
const CommandsEnv = "SYNTH_COMMANDS"

// NewRoot returns the CLI with n leaf commands.
func NewRoot(n int) *cobra.Command {
	root := &cobra.Command{Use: "synth", SilenceUsage: true, SilenceErrors: true}
	var group *cobra.Command
	for i := range n {
		if i%GroupSize == 0 {
			g := strconv.Itoa(i / GroupSize)
			group = &cobra.Command{Use: "g" + g, Short: "group " + g + " of the synthetic commands"}
			root.AddCommand(group)
		}
		group.AddCommand(leaf(i))
	}
	return root
}

func leaf(i int) *cobra.Command {
	name := "c" + strconv.Itoa(i)
	c := &cobra.Command{
		Use:   name,
		Short: "synthetic command number " + strconv.Itoa(i) + ", one of many alike",
		Args:  cobra.NoArgs,
	}
	f := c.Flags()
	asJSON := f.Bool("json", false, "print the machine result")
	label := f.String("name", "", "the thing's name")
	count := f.Int("count", 1, "how many times")
	f.Bool("verbose", false, "say more")
	f.StringSlice("tags", nil, "tags to attach")
	f.Duration("timeout", 0, "give up after this long")
	f.Float64("ratio", 0.5, "a fraction")
	f.String("note", "", "free text")
	f.Bool("dry-run", false, "change nothing")
	_ = c.MarkFlagRequired("name")
	fromcobra.Constrain(c, "name", fromcobra.Constraint{Pattern: `^[a-z][a-z0-9-]{0,62}$`})
	c.RunE = func(cmd *cobra.Command, _ []string) error {
		if !*asJSON {
			fmt.Fprintf(cmd.OutOrStdout(), "%s %s x%d\n", cmd.CommandPath(), *label, *count)
			return nil
		}
		data, _ := json.Marshal(map[string]any{"command": cmd.CommandPath(), "name": *label, "count": *count})
		fmt.Fprintf(cmd.OutOrStdout(), `{"result_version":1,"ok":true,"data":%s}`+"\n", data)
		return nil
	}
	return c
}

// Walk walks the CLI's tree as the server does (--json excluded).
func Walk(n int) (*projector.Tree, error) {
	return fromcobra.Walk(NewRoot(n), &fromcobra.Options{ExcludeFlags: []string{"json"}})
}

// Registry registers every leaf command of t as an observe verb "gK.cI".
func Registry(t *projector.Tree) (*verbsurface.Registry, error) {
	reg, err := verbsurface.NewRegistry(nil)
	if err != nil {
		return nil, err
	}
	for _, c := range t.Commands {
		if len(c.Path) != 2 {
			continue
		}
		if err := reg.Register(verbsurface.Verb{Name: c.Path[0] + "." + c.Path[1], Class: verbsurface.ClassObserve, Path: c.Path}); err != nil {
			return nil, err
		}
	}
	return reg, nil
}

// Serve serves the n-command CLI over stdio, dispatching to exe (this
// binary) as a subprocess, as limcp mcp serves limcp: walk, register,
// check every verb, then serve.
func Serve(ctx context.Context, exe string, n int) error {
	t, err := Walk(n)
	if err != nil {
		return err
	}
	reg, err := Registry(t)
	if err != nil {
		return err
	}
	runner, err := dispatch.NewRunner(exe, &dispatch.Options{Env: append(os.Environ(), CommandsEnv+"="+strconv.Itoa(n))})
	if err != nil {
		return err
	}
	src, err := verbsurface.ExecutableTree(t, runner.Path())
	if err != nil {
		return err
	}
	s, err := verbsurface.New(reg, &verbsurface.Options{Source: src, Runner: runner, Machine: verbsurface.Machine{Args: []string{"--json"}}, Title: "synth"})
	if err != nil {
		return err
	}
	if bad := s.Check(ctx); len(bad) > 0 {
		return fmt.Errorf("%d verbs cannot be offered, the first: %s: %s", len(bad), bad[0].Verb, bad[0].Reason)
	}
	srv := mcp.NewServer(&mcp.Implementation{Name: "synth", Version: "v1"}, nil)
	verbsurface.AddRequestTool(srv, s)
	return srv.Run(ctx, &mcp.StdioTransport{})
}
