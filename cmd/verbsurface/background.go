//go:build unix

package main

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"

	"github.com/spf13/cobra"
	"github.com/verbsurface/verbsurface/background"
)

// superviseCmd is the name of the hidden subcommand a background run's
// supervisor runs: `verbsurface __supervise-run DIR ID`.
const superviseCmd = "__supervise-run"

// supervisorExe is the binary a run's supervisor runs: this one (a test
// binary points it at the verbsurface it built).
var supervisorExe = os.Executable

// runsDirName is the store's directory in the state directory.
const runsDirName = "runs"

// newBackgrounds opens the runs of the front named name, in its state
// directory (the one its generated token and cobra cache use).
func newBackgrounds(name string, env []string) (*background.Runs, error) {
	state, err := tokenDirPath(name, os.Getenv)
	if err != nil {
		return nil, fmt.Errorf("background runs need a state directory: %w", err)
	}
	exe, err := supervisorExe()
	if err != nil {
		return nil, fmt.Errorf("background runs: this binary's path, to start supervisors: %w", err)
	}
	return background.Open(&background.Options{Dir: filepath.Join(state, runsDirName), Supervisor: []string{exe, superviseCmd}, Env: env})
}

// openBackgrounds opens the background runs' store when a verb is marked
// background; nil otherwise.
func (c *Config) openBackgrounds(env []string) (*background.Runs, error) {
	if !slices.ContainsFunc(c.Verbs, func(v VerbConfig) bool { return v.Background }) {
		return nil, nil
	}
	b, err := newBackgrounds(c.Name, env)
	if err != nil {
		return nil, &ConfigError{File: c.file, Field: "background", Msg: err.Error()}
	}
	return b, nil
}

func newSuperviseCmd() *cobra.Command {
	return &cobra.Command{
		Use:    superviseCmd + " DIR ID",
		Short:  "supervise one background run (started by serve; not for use by hand)",
		Hidden: true,
		Args:   cobra.ExactArgs(2),
		RunE: func(c *cobra.Command, args []string) error {
			return background.Supervise(c.Context(), args[0], args[1])
		},
	}
}
