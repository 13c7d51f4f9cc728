// Command tasks is the cobra fixture CLI cmd/verbsurface's end-to-end
// tests front through its __verbsurface-tree command: it is built in
// another binary and never imported by the server. State is one JSON file
// under $TASKS_HOME; --json (persistent) prints one machine result.
package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"

	"github.com/spf13/cobra"
	"github.com/verbsurface/verbsurface/dispatch/machine"
	"github.com/verbsurface/verbsurface/projector/fromcobra"
)

// extraFlag, set at build time (-ldflags -X main.extraFlag=yes), adds a
// flag to add: the "edited CLI" of the tests.
var extraFlag string

type task struct {
	ID   int    `json:"id"`
	Name string `json:"name"`
	Size string `json:"size"`
}

func newRoot() *cobra.Command {
	root := &cobra.Command{Use: "tasks", Short: "keep tasks"}
	root.PersistentFlags().Bool("json", false, "print one machine result")
	file := filepath.Join(os.Getenv("TASKS_HOME"), "tasks.json")
	load := func() []task {
		var ts []task
		if b, err := os.ReadFile(file); err == nil {
			json.Unmarshal(b, &ts)
		}
		return ts
	}
	emit := func(c *cobra.Command, data any) error {
		if j, _ := c.Flags().GetBool("json"); j {
			return machine.WriteOK(c.OutOrStdout(), data)
		}
		fmt.Fprintln(c.OutOrStdout(), data)
		return nil
	}
	add := &cobra.Command{Use: "add NAME", Short: "add a task", Args: cobra.ExactArgs(1),
		RunE: func(c *cobra.Command, args []string) error {
			ts := load()
			size, _ := c.Flags().GetString("size")
			t := task{ID: len(ts) + 1, Name: args[0], Size: size}
			b, _ := json.Marshal(append(ts, t))
			if err := os.WriteFile(file, b, 0o644); err != nil {
				return err
			}
			return emit(c, t)
		}}
	add.Flags().String("size", "m", "task size")
	fromcobra.Constrain(add, "size", fromcobra.Constraint{Pattern: "^(s|m|l)$"})
	if extraFlag != "" {
		add.Flags().String("owner", "", "who owns it")
	}
	list := &cobra.Command{Use: "list", Aliases: []string{"ls"}, Short: "list tasks", Args: cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error { return emit(c, map[string]any{"tasks": load()}) }}
	purge := &cobra.Command{Use: "purge", Short: "delete every task", Args: cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error { return emit(c, map[string]any{"purged": true}) }}
	root.AddCommand(add, list, purge)
	root.AddCommand(fromcobra.TreeCommand(root, &fromcobra.Options{ExcludeFlags: []string{"json"}}))
	machine.MarkUsageErrors(root)
	return root
}

func main() {
	os.Exit(machine.Execute(newRoot(), nil, os.Stdout, "json"))
}
