//go:build unix

package cli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/verbsurface/verbsurface/examples/limcp/internal/guard"
	"github.com/verbsurface/verbsurface/examples/limcp/internal/machine"
	"github.com/verbsurface/verbsurface/examples/limcp/internal/playbook"
	"github.com/verbsurface/verbsurface/examples/limcp/internal/quota"
	"github.com/verbsurface/verbsurface/examples/limcp/internal/schedule"
	"github.com/verbsurface/verbsurface/examples/limcp/internal/store"
	"github.com/verbsurface/verbsurface/examples/limcp/internal/termsafe"
)

func (a *app) scheduleCmd() *cobra.Command {
	return group("schedule", "run spawn commands on a cron schedule",
		a.scheduleAddCmd(), a.scheduleListCmd(), a.scheduleShowCmd(), a.scheduleRemoveCmd(), a.scheduleTickCmd())
}

// checkStoredCommand parses a schedule's command with a fresh tree, as a
// tick will run it, so a schedule that can never run is refused when added.
func (a *app) checkStoredCommand(argv []string) error {
	bad := func(format string, args ...any) error {
		return machine.Errorf(machine.InvalidArgument, map[string]any{"argument": "command"}, "schedule command %q: %s", strings.Join(argv, " "), fmt.Sprintf(format, args...))
	}
	root := newApp(a.opts).root()
	if err := guard.Check(root, argv, a.playbookInjector()); err != nil {
		var me *machine.Error
		if errors.As(err, &me) {
			return me // the playbook's own error (not found, invalid) says more
		}
		return machine.Errorf(machine.InvalidArgument, map[string]any{"argument": "command"}, "%v", err)
	}
	cmd, _, _ := root.Find(argv) // found and parsed by the guard
	if err := cmd.ValidateArgs(cmd.Flags().Args()); err != nil {
		return bad("%v", err)
	}
	if err := cmd.ValidateRequiredFlags(); err != nil {
		return bad("%v", err)
	}
	return nil
}

// playbookInjector is the guard's injection: the playbook as it is in
// this home now.
func (a *app) playbookInjector() guard.Injector {
	home := a.mustHome()
	return func(root *cobra.Command, name string) error {
		_, err := playbook.Inject(root, home, name)
		return err
	}
}

func (a *app) mustHome() string {
	h, _ := a.resolvedHome()
	return h
}

func humanSchedule(w io.Writer, s store.Schedule) {
	words := make([]string, len(s.Command))
	for i, word := range s.Command {
		words[i] = termsafe.Line(word)
	}
	fmt.Fprintf(w, "%-16s %-15s next %s  %s", termsafe.Line(s.Name), termsafe.Line(s.Cron), s.NextRunAt.Local().Format(time.DateTime), strings.Join(words, " "))
	if s.Cwd != "" {
		fmt.Fprintf(w, "  (in %s)", termsafe.Line(s.Cwd))
	}
	fmt.Fprintln(w)
}

func (a *app) scheduleAddCmd() *cobra.Command {
	var expr string
	c := &cobra.Command{
		Use:   "add NAME COMMAND...",
		Short: "store a spawn command to run on a cron schedule",
		Long: `Store COMMAND (a limcp agent, fanout, flow or play command line, after "--")
to run whenever the standard 5-field cron expression is due; "schedule tick"
starts what is due. Without --cwd the command runs in the current directory.

  limcp schedule add nightly --cron "0 3 * * *" -- agent echo "nightly check"`,
		Args: cobra.MinimumNArgs(2),
	}
	c.Flags().StringVar(&expr, "cron", "", `standard cron expression: minute hour day-of-month month day-of-week, e.g. "*/5 * * * *"`)
	_ = c.MarkFlagRequired("cron")
	constrainName(c, "name")
	c.RunE = a.runE(func(cmd *cobra.Command, args []string) error {
		name, argv := args[0], append([]string(nil), args[1:]...)
		if err := checkName("name", name); err != nil {
			return err
		}
		cs, err := schedule.Parse(expr)
		if err != nil {
			return err
		}
		if err := a.checkStoredCommand(argv); err != nil {
			return err
		}
		hasCwd := false
		for _, x := range argv {
			if x == "--" {
				break
			}
			hasCwd = hasCwd || x == "--cwd" || strings.HasPrefix(x, "--cwd=")
		}
		// Without --cwd the command runs where it was added. The
		// directory is kept beside the command, not rendered into it: the
		// machine result reaches MCP callers, and this directory is the
		// server's, not theirs.
		var wd string
		if !hasCwd {
			if wd, err = os.Getwd(); err != nil {
				return machine.Errorf(machine.InvalidArgument, map[string]any{"argument": "command"}, "cannot determine the working directory for the schedule: %v", err)
			}
		}
		limits, err := a.limits()
		if err != nil {
			return err
		}
		st, err := a.store(cmd.Context())
		if err != nil {
			return err
		}
		sc, err := st.AddScheduleWithin(cmd.Context(), store.Schedule{Name: name, Cron: expr, Command: argv, Cwd: wd, NextRunAt: cs.Next(time.Now())}, limits.Schedules)
		if errors.Is(err, store.ErrScheduleLimit) {
			n, _ := st.ScheduleCount(cmd.Context())
			return quota.Reached("schedules", int64(limits.Schedules), int64(n), fmt.Sprintf("schedule %q was not added", name))
		}
		if err != nil {
			return err
		}
		return a.ok(map[string]any{"schedule": sc}, func(w io.Writer) { humanSchedule(w, sc) })
	})
	return c
}

func (a *app) scheduleListCmd() *cobra.Command {
	c := &cobra.Command{Use: "list", Short: "list schedules", Args: cobra.NoArgs}
	c.RunE = a.runE(func(cmd *cobra.Command, args []string) error {
		st, err := a.readStore(cmd.Context())
		if err != nil {
			return err
		}
		all, err := st.Schedules(cmd.Context())
		if err != nil {
			return err
		}
		if all == nil {
			all = []store.Schedule{}
		}
		return a.ok(map[string]any{"schedules": all}, func(w io.Writer) {
			for _, s := range all {
				humanSchedule(w, s)
			}
		})
	})
	return c
}

func (a *app) scheduleShowCmd() *cobra.Command {
	c := &cobra.Command{Use: "show NAME", Short: "show one schedule", Args: cobra.ExactArgs(1)}
	c.RunE = a.runE(func(cmd *cobra.Command, args []string) error {
		st, err := a.readStore(cmd.Context())
		if err != nil {
			return err
		}
		sc, err := st.GetSchedule(cmd.Context(), args[0])
		if err != nil {
			return err
		}
		return a.ok(map[string]any{"schedule": sc}, func(w io.Writer) { humanSchedule(w, sc) })
	})
	return c
}

func (a *app) scheduleRemoveCmd() *cobra.Command {
	c := &cobra.Command{Use: "remove NAME", Short: "remove a schedule", Args: cobra.ExactArgs(1)}
	c.RunE = a.runE(func(cmd *cobra.Command, args []string) error {
		st, err := a.store(cmd.Context())
		if err != nil {
			return err
		}
		if err := st.RemoveSchedule(cmd.Context(), args[0]); err != nil {
			return err
		}
		return a.ok(map[string]any{"removed": args[0]}, func(w io.Writer) { fmt.Fprintf(w, "removed %s\n", termsafe.Line(args[0])) })
	})
	return c
}

func (a *app) scheduleTickCmd() *cobra.Command {
	var nowFlag string
	var budget int
	c := &cobra.Command{
		Use:   "tick",
		Short: "start every schedule that is due (run it from cron or a timer)",
		Long: `Start every schedule that is due, in name order. With --spawn-budget N at
most N stored commands run (a refused one costs nothing); the due schedules
past it are deferred: left due, for the next tick. limcp mcp sets the budget
from its spawn limits; neither flag is a caller's parameter.`,
		Args: cobra.NoArgs,
	}
	c.Flags().StringVar(&nowFlag, "now", "", "tick as if it were this time (RFC 3339), for tests and catching up")
	c.Flags().IntVar(&budget, SpawnBudgetFlag, -1, "run at most this many stored commands; defer the rest (-1: no budget)")
	c.RunE = a.runE(func(cmd *cobra.Command, args []string) error {
		now := time.Now()
		if nowFlag != "" {
			t, err := time.Parse(time.RFC3339, nowFlag)
			if err != nil {
				return machine.Errorf(machine.InvalidArgument, map[string]any{"argument": "now"}, "--now %q is not an RFC 3339 time: %v", nowFlag, err)
			}
			now = t
		}
		if budget < -1 {
			return machine.Errorf(machine.InvalidArgument, map[string]any{"argument": SpawnBudgetFlag}, "--%s %d is neither a count nor -1 (no budget)", SpawnBudgetFlag, budget)
		}
		rt, err := a.runtime(cmd.Context())
		if err != nil {
			return err
		}
		ticked, err := schedule.TickWithin(cmd.Context(), rt.Store, now, budget, func(ctx context.Context, sc store.Schedule) (string, error) {
			// The stored command is parsed again, with the tree and the
			// playbooks as they are now: a command that was harmless when
			// added may reach a forbidden flag today (a playbook arg that
			// changed type). Such a command is not run; the tick records
			// the refusal and its reason on the schedule.
			if err := guard.Check(newApp(a.opts).root(), sc.Command, a.playbookInjector()); err != nil {
				return "", err
			}
			return startStored(ctx, rt.Exe, rt.Home, sc.Cwd, sc.Command)
		})
		if err != nil {
			return err
		}
		data := map[string]any{"now": now.UTC(), "started": ticked.Started, "deferred": ticked.Deferred, "spent": ticked.Spent}
		return a.ok(data, func(w io.Writer) {
			for _, s := range ticked.Started {
				if s.Error != "" {
					fmt.Fprintf(w, "%s: failed: %s\n", termsafe.Line(s.Schedule), termsafe.Line(s.Error))
				} else {
					fmt.Fprintf(w, "%s: started %s\n", s.Schedule, s.ID)
				}
			}
			for _, d := range ticked.Deferred {
				fmt.Fprintf(w, "%s: deferred (the tick's budget of %d is spent)\n", d.Schedule, budget)
			}
			if len(ticked.Started) == 0 && len(ticked.Deferred) == 0 {
				fmt.Fprintln(w, "nothing due")
			}
		})
	})
	return c
}

// SpawnBudgetFlag is schedule tick's budget flag: how many stored
// commands one tick may run. limcp mcp renders it itself from its spawn
// limits; it is excluded from every schema (server.ExcludedFlags), as is
// --now, so no caller can lift the budget or choose the clock.
const SpawnBudgetFlag = "spawn-budget"

// startStored runs a stored spawn command as `limcp --home HOME --json
// ARGV...` in dir (when not empty) and returns the id from its machine
// result.
func startStored(ctx context.Context, exe, home, dir string, argv []string) (string, error) {
	cmd := exec.CommandContext(ctx, exe, append([]string{"--home", home, "--json"}, argv...)...)
	cmd.Dir = dir
	if os.Getenv(CommandTimeoutEnv) != "" {
		// A served tick's commands stop with it (watchServer).
		cmd.Env = append(os.Environ(), ParentPIDEnv+"="+strconv.Itoa(os.Getpid()))
	}
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, runErr := cmd.Output()
	var res struct {
		OK   bool `json:"ok"`
		Data struct {
			ID string `json:"id"`
		} `json:"data"`
		Error *machine.Error `json:"error"`
	}
	if err := json.Unmarshal(out, &res); err != nil {
		return "", fmt.Errorf("limcp %s: no machine result (%v): %s", strings.Join(argv, " "), runErr, strings.TrimSpace(stderr.String()))
	}
	if !res.OK {
		if res.Error != nil {
			return "", fmt.Errorf("%s: %s", res.Error.Code, res.Error.Message)
		}
		return "", fmt.Errorf("limcp %s failed", strings.Join(argv, " "))
	}
	return res.Data.ID, nil
}
