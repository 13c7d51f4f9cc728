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
	"sync"
	"time"

	"github.com/spf13/cobra"
	"github.com/verbsurface/verbsurface/examples/limcp/internal/guard"
	"github.com/verbsurface/verbsurface/examples/limcp/internal/machine"
	"github.com/verbsurface/verbsurface/examples/limcp/internal/notify"
	"github.com/verbsurface/verbsurface/examples/limcp/internal/playbook"
	"github.com/verbsurface/verbsurface/examples/limcp/internal/run"
	"github.com/verbsurface/verbsurface/examples/limcp/internal/schedule"
	"github.com/verbsurface/verbsurface/examples/limcp/internal/store"
	"github.com/verbsurface/verbsurface/kill"
)

func (a *app) killCmd() *cobra.Command {
	var grace time.Duration
	c := &cobra.Command{
		Use:   "kill ID",
		Short: "stop a run and everything under it (play → session → invocations)",
		Long: `Stop the run ID and, transitively, everything under it. Each process group is
signalled only after its leader's identity (pid and start time) is proven:
SIGTERM, then SIGKILL after the grace. Ends are recorded as
run.cancelled.manual_kill, or run.cancelled.force_kill when SIGKILL was needed.
An entity that cannot be stopped is reported (kill_partial) and left as it is.
A show is never killed as a whole: kill its plays.`,
		Args: cobra.ExactArgs(1),
	}
	c.Flags().DurationVar(&grace, "grace", kill.DefaultGrace, "time between SIGTERM and SIGKILL")
	c.RunE = a.runE(func(cmd *cobra.Command, args []string) error {
		if grace <= 0 {
			return machine.Errorf(machine.InvalidArgument, map[string]any{"argument": "grace"}, "--grace %s must be positive", grace)
		}
		rt, err := a.runtime(cmd.Context())
		if err != nil {
			return err
		}
		rep, err := rt.Kill(cmd.Context(), args[0], grace)
		if err != nil {
			return err
		}
		return a.ok(rep, func(w io.Writer) {
			for _, r := range rep.Reaped {
				fmt.Fprintf(w, "%-10s %s %s %s\n", r.Kind, r.ID, r.Status, r.ReasonCode)
			}
			for _, r := range rep.AlreadyEnded {
				fmt.Fprintf(w, "%-10s %s already %s (%s)\n", r.Kind, r.ID, r.Status, r.ReasonCode)
			}
		})
	})
	return c
}

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

func (a *app) teamCmd() *cobra.Command {
	return group("team", "message boards runs and people share", a.teamCreateCmd(), a.teamListCmd(), a.teamPostCmd(), a.teamReadCmd())
}

func (a *app) teamCreateCmd() *cobra.Command {
	c := &cobra.Command{Use: "create NAME", Short: "create a team board", Args: cobra.ExactArgs(1)}
	c.RunE = a.runE(func(cmd *cobra.Command, args []string) error {
		if strings.TrimSpace(args[0]) == "" {
			return machine.Errorf(machine.InvalidArgument, map[string]any{"argument": "name"}, "a team name cannot be empty")
		}
		st, err := a.store(cmd.Context())
		if err != nil {
			return err
		}
		t, err := st.CreateTeam(cmd.Context(), args[0])
		if err != nil {
			return err
		}
		return a.ok(map[string]any{"team": t}, func(w io.Writer) { fmt.Fprintf(w, "created team %s\n", t.Name) })
	})
	return c
}

func (a *app) teamListCmd() *cobra.Command {
	c := &cobra.Command{Use: "list", Short: "list team boards", Args: cobra.NoArgs}
	c.RunE = a.runE(func(cmd *cobra.Command, args []string) error {
		st, err := a.readStore(cmd.Context())
		if err != nil {
			return err
		}
		ts, err := st.Teams(cmd.Context())
		if err != nil {
			return err
		}
		if ts == nil {
			ts = []store.Team{}
		}
		return a.ok(map[string]any{"teams": ts}, func(w io.Writer) {
			for _, t := range ts {
				fmt.Fprintf(w, "%-20s %d messages\n", t.Name, t.Messages)
			}
		})
	})
	return c
}

func (a *app) teamPostCmd() *cobra.Command {
	var author string
	c := &cobra.Command{Use: "post TEAM MESSAGE", Short: "post a message on a team board", Args: cobra.ExactArgs(2)}
	c.Flags().StringVar(&author, "author", "", "who is posting (default $USER)")
	c.RunE = a.runE(func(cmd *cobra.Command, args []string) error {
		if author == "" {
			author = a.opts.Getenv("USER")
		}
		if author == "" {
			author = "someone"
		}
		st, err := a.store(cmd.Context())
		if err != nil {
			return err
		}
		m, err := st.Post(cmd.Context(), store.Message{Team: args[0], Author: author, Body: args[1]})
		if err != nil {
			return err
		}
		return a.ok(map[string]any{"message": m}, func(w io.Writer) { fmt.Fprintf(w, "posted #%d on %s\n", m.Seq, m.Team) })
	})
	return c
}

func (a *app) teamReadCmd() *cobra.Command {
	var after int64
	var limit int
	c := &cobra.Command{Use: "read TEAM", Short: "read a team board, oldest first", Args: cobra.ExactArgs(1)}
	c.Flags().Int64Var(&after, "after", 0, "only messages after this sequence number")
	c.Flags().IntVar(&limit, "limit", 100, "at most this many messages (1..1000)")
	c.RunE = a.runE(func(cmd *cobra.Command, args []string) error {
		if limit < 1 || limit > 1000 {
			return machine.Errorf(machine.InvalidArgument, map[string]any{"argument": "limit"}, "--limit %d is out of range 1..1000", limit)
		}
		st, err := a.readStore(cmd.Context())
		if err != nil {
			return err
		}
		ms, err := st.Read(cmd.Context(), args[0], after, limit)
		if err != nil {
			return err
		}
		if ms == nil {
			ms = []store.Message{}
		}
		return a.ok(map[string]any{"team": args[0], "messages": ms}, func(w io.Writer) {
			for _, m := range ms {
				fmt.Fprintf(w, "#%d %s %s: %s\n", m.Seq, m.At.Local().Format(time.DateTime), m.Author, m.Body)
			}
		})
	})
	return c
}

func (a *app) workerCmd() *cobra.Command {
	c := &cobra.Command{
		Use:    run.WorkerCommand + " ID",
		Short:  "run a record (internal: started detached by the spawn commands)",
		Hidden: true,
		Args:   cobra.ExactArgs(1),
	}
	c.RunE = a.runE(func(cmd *cobra.Command, args []string) error {
		rt, err := a.runtime(cmd.Context())
		if err != nil {
			return err
		}
		if err := rt.Work(cmd.Context(), args[0]); err != nil {
			return err
		}
		return a.ok(map[string]any{"id": args[0]}, nil)
	})
	return c
}

// notifyCmd is the delivery process a terminal transition starts
// (notify.Launch): it delivers the pending notifications of the records
// named and exits. It is hidden and never projected.
func (a *app) notifyCmd() *cobra.Command {
	c := &cobra.Command{
		Use:    notify.DeliverCommand + " IDS...",
		Short:  "deliver the terminal notifications of records (internal: started detached when a run ends)",
		Hidden: true,
		Args:   cobra.MinimumNArgs(1),
	}
	c.RunE = a.runE(func(cmd *cobra.Command, args []string) error {
		st, err := a.store(cmd.Context())
		if err != nil {
			return err
		}
		home, _ := a.resolvedHome()
		d := &notify.Deliverer{Store: st, Home: home}
		// Records are delivered concurrently: one slow target must not hold
		// up the others handed to this process.
		got := make([][]store.Delivery, len(args))
		errs := make([]error, len(args))
		var wg sync.WaitGroup
		for i, id := range args {
			wg.Add(1)
			go func(i int, id string) {
				defer wg.Done()
				if got[i], errs[i] = d.Deliver(cmd.Context(), id); errs[i] != nil {
					errs[i] = fmt.Errorf("record %s: %w", id, errs[i])
				}
			}(i, id)
		}
		wg.Wait()
		if err := errors.Join(errs...); err != nil {
			return err
		}
		out := map[string][]store.DeliveryJSON{}
		for i, id := range args {
			out[id] = []store.DeliveryJSON{}
			for _, x := range got[i] {
				out[id] = append(out[id], x.JSON())
			}
		}
		return a.ok(map[string]any{"deliveries": out}, nil)
	})
	return c
}
