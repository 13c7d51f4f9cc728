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
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/verbsurface/verbsurface/examples/limcp/internal/guard"
	"github.com/verbsurface/verbsurface/examples/limcp/internal/machine"
	"github.com/verbsurface/verbsurface/examples/limcp/internal/playbook"
	"github.com/verbsurface/verbsurface/examples/limcp/internal/schedule"
	"github.com/verbsurface/verbsurface/examples/limcp/internal/store"
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
	fmt.Fprintf(w, "%-16s %-15s next %s  %s\n", s.Name, s.Cron, s.NextRunAt.Local().Format(time.DateTime), strings.Join(s.Command, " "))
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
	c.RunE = a.runE(func(cmd *cobra.Command, args []string) error {
		name, argv := args[0], append([]string(nil), args[1:]...)
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
		if !hasCwd {
			wd, err := os.Getwd()
			if err != nil {
				return machine.Errorf(machine.InvalidArgument, map[string]any{"argument": "command"}, "cannot determine the working directory for the schedule: %v", err)
			}
			argv = append(argv[:1:1], append([]string{"--cwd=" + wd}, argv[1:]...)...)
		}
		st, err := a.store(cmd.Context())
		if err != nil {
			return err
		}
		sc, err := st.AddSchedule(cmd.Context(), store.Schedule{Name: name, Cron: expr, Command: argv, NextRunAt: cs.Next(time.Now())})
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
		return a.ok(map[string]any{"removed": args[0]}, func(w io.Writer) { fmt.Fprintf(w, "removed %s\n", args[0]) })
	})
	return c
}

func (a *app) scheduleTickCmd() *cobra.Command {
	var nowFlag string
	c := &cobra.Command{
		Use:   "tick",
		Short: "start every schedule that is due (run it from cron or a timer)",
		Args:  cobra.NoArgs,
	}
	c.Flags().StringVar(&nowFlag, "now", "", "tick as if it were this time (RFC 3339), for tests and catching up")
	c.RunE = a.runE(func(cmd *cobra.Command, args []string) error {
		now := time.Now()
		if nowFlag != "" {
			t, err := time.Parse(time.RFC3339, nowFlag)
			if err != nil {
				return machine.Errorf(machine.InvalidArgument, map[string]any{"argument": "now"}, "--now %q is not an RFC 3339 time: %v", nowFlag, err)
			}
			now = t
		}
		rt, err := a.runtime(cmd.Context())
		if err != nil {
			return err
		}
		started, err := schedule.Tick(cmd.Context(), rt.Store, now, func(ctx context.Context, argv []string) (string, error) {
			// The stored command is parsed again, with the tree and the
			// playbooks as they are now: a command that was harmless when
			// added may reach a forbidden flag today (a playbook arg that
			// changed type). Such a command is not run; the tick records
			// the refusal and its reason on the schedule.
			if err := guard.Check(newApp(a.opts).root(), argv, a.playbookInjector()); err != nil {
				return "", err
			}
			return startStored(ctx, rt.Exe, rt.Home, argv)
		})
		if err != nil {
			return err
		}
		return a.ok(map[string]any{"now": now.UTC(), "started": started}, func(w io.Writer) {
			for _, s := range started {
				if s.Error != "" {
					fmt.Fprintf(w, "%s: failed: %s\n", s.Schedule, s.Error)
				} else {
					fmt.Fprintf(w, "%s: started %s\n", s.Schedule, s.ID)
				}
			}
			if len(started) == 0 {
				fmt.Fprintln(w, "nothing due")
			}
		})
	})
	return c
}

// startStored runs a stored spawn command as `limcp --home HOME --json
// ARGV...` and returns the id from its machine result.
func startStored(ctx context.Context, exe, home string, argv []string) (string, error) {
	cmd := exec.CommandContext(ctx, exe, append([]string{"--home", home, "--json"}, argv...)...)
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
