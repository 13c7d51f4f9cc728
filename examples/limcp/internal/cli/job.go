//go:build unix

package cli

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/spf13/cobra"
	"github.com/verbsurface/verbsurface/examples/limcp/internal/machine"
	"github.com/verbsurface/verbsurface/examples/limcp/internal/notify"
	"github.com/verbsurface/verbsurface/examples/limcp/internal/run"
	"github.com/verbsurface/verbsurface/examples/limcp/internal/store"
	"github.com/verbsurface/verbsurface/examples/limcp/internal/termsafe"
	"github.com/verbsurface/verbsurface/projector/fromcobra"
	"github.com/verbsurface/verbsurface/wait"
)

func (a *app) jobCmd() *cobra.Command {
	return group("job", "observe runs: status, output, list, observe, wait",
		a.jobStatusCmd(), a.jobOutputCmd(), a.jobListCmd(), a.jobObserveCmd(), a.jobWaitCmd())
}

// StatusRecord is one record of `job status`: the record, the ids of its
// children (a play's session, a session's invocations, a show's plays), and
// its notify setting with the state of its deliveries (null without one).
// It is also the body of a terminal notification.
type StatusRecord = store.StatusRecord

func (a *app) jobStatusCmd() *cobra.Command {
	c := &cobra.Command{
		Use:   "status IDS...",
		Short: "show records by id or unique id prefix (at least 8 characters)",
		Args:  cobra.MinimumNArgs(1),
	}
	constrainIDs(c)
	c.RunE = a.runE(func(cmd *cobra.Command, args []string) error {
		st, err := a.readStore(cmd.Context())
		if err != nil {
			return err
		}
		out := make([]StatusRecord, 0, len(args))
		for _, id := range args {
			r, err := st.Resolve(cmd.Context(), id)
			if err != nil {
				return err
			}
			sr, err := st.Status(cmd.Context(), r)
			if err != nil {
				return err
			}
			out = append(out, sr)
		}
		return a.ok(map[string]any{"records": out}, func(w io.Writer) {
			for _, r := range out {
				fmt.Fprintf(w, "%s  %-10s %-10s %-9s %s", r.ID, r.Kind, r.Status, r.Phase, termsafe.Line(r.Label))
				if r.ReasonCode != "" {
					fmt.Fprintf(w, "  [%s]", r.ReasonCode)
				}
				if r.PID != nil {
					fmt.Fprintf(w, "  pid %d", *r.PID)
				}
				fmt.Fprintln(w)
				for _, k := range r.Children {
					fmt.Fprintf(w, "  └ %s\n", k)
				}
				humanNotify(w, r.Notify)
			}
		})
	})
	return c
}

// OutputCap bounds the bytes `job output` returns per stream (the tail is kept).
const OutputCap = 64 << 10

// Output is the data of `job output`.
type Output struct {
	ID          string       `json:"id"`
	Kind        store.Kind   `json:"kind"`
	Status      store.Status `json:"status"`
	Terminal    bool         `json:"terminal"`
	Stdout      string       `json:"stdout"`
	Stderr      string       `json:"stderr"`
	StdoutBytes int64        `json:"stdout_bytes"` // the stream's full size
	StderrBytes int64        `json:"stderr_bytes"`
	Truncated   bool         `json:"truncated"` // a stream was cut to the cap or to --tail lines

	// Children, for a container (play, session, show), are the runs under
	// it with their outputs inlined when all of them fit (ChildrenInline),
	// else each with the request that reads it; ChildrenMore says there
	// were more than MaxChildrenListed.
	Children       []ChildOutput `json:"children,omitempty"`
	ChildrenInline bool          `json:"children_inline,omitempty"`
	ChildrenMore   bool          `json:"children_more,omitempty"`
	// Error is the error an agent program reported in its own machine
	// output (a preset's JSON), at most OutputCap bytes; "" when none.
	Error string `json:"error,omitempty"`
}

func (a *app) jobOutputCmd() *cobra.Command {
	var tail int
	c := &cobra.Command{
		Use:   "output ID",
		Short: fmt.Sprintf("show a run's captured stdout and stderr (at most %d KiB each, the end kept)", OutputCap>>10),
		Args:  cobra.ExactArgs(1),
	}
	c.Flags().IntVar(&tail, "tail", 0, "only the last N lines of each stream (0: everything, up to the cap)")
	c.RunE = a.runE(func(cmd *cobra.Command, args []string) error {
		if tail < 0 {
			return machine.Errorf(machine.InvalidArgument, map[string]any{"argument": "tail"}, "--tail %d is negative", tail)
		}
		st, err := a.readStore(cmd.Context())
		if err != nil {
			return err
		}
		r, err := st.Resolve(cmd.Context(), args[0])
		if err != nil {
			return err
		}
		home, _ := a.resolvedHome()
		dir := run.Dir(home, r.ID)
		o := Output{ID: r.ID, Kind: r.Kind, Status: r.Status, Terminal: r.Terminal()}
		var cut1, cut2 bool
		o.Stdout, o.StdoutBytes, cut1 = readBounded(filepath.Join(dir, run.StdoutFile), tail)
		o.Stderr, o.StderrBytes, cut2 = readBounded(filepath.Join(dir, run.StderrFile), tail)
		o.Truncated = cut1 || cut2
		if containerKinds[r.Kind] {
			if o.Children, o.ChildrenInline, o.ChildrenMore, err = childOutputs(cmd.Context(), st, home, r, tail); err != nil {
				return err
			}
		}
		o.Error, _, _ = readBounded(filepath.Join(dir, run.ErrorFile), 0)
		return a.ok(o, func(w io.Writer) {
			io.WriteString(w, o.Stdout)
			if o.Stdout != "" && !strings.HasSuffix(o.Stdout, "\n") {
				io.WriteString(w, "\n")
			}
			writeChildren(w, o.Children, o.ChildrenInline)
			if o.Stderr != "" {
				io.WriteString(termsafe.Writer(a.opts.Stderr), o.Stderr)
			}
		})
	})
	return c
}

// readBounded returns the end of a file: at most OutputCap bytes, and at
// most tail lines when tail > 0. A missing file is empty.
func readBounded(path string, tail int) (string, int64, bool) {
	return readBoundedTo(path, tail, OutputCap)
}

// readBoundedTo is readBounded with the byte cap given.
func readBoundedTo(path string, tail int, limit int64) (string, int64, bool) {
	f, err := os.Open(path)
	if err != nil {
		return "", 0, false
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return "", 0, false
	}
	size, cut := fi.Size(), false
	if size > limit {
		_, _ = f.Seek(size-limit, io.SeekStart)
		cut = true
	}
	b, _ := io.ReadAll(io.LimitReader(f, limit))
	s := string(b)
	if tail > 0 {
		lines := strings.SplitAfter(s, "\n")
		if lines[len(lines)-1] == "" {
			lines = lines[:len(lines)-1]
		}
		if len(lines) > tail {
			s = strings.Join(lines[len(lines)-tail:], "")
			cut = true
		}
	}
	return s, size, cut
}

func (a *app) jobListCmd() *cobra.Command {
	var kind, status, cursor string
	var limit int
	c := &cobra.Command{
		Use:   "list",
		Short: "list records, newest first, a page at a time",
		Args:  cobra.NoArgs,
	}
	c.Flags().StringVar(&kind, "kind", "", "only records of this kind: invocation, session, play, show")
	c.Flags().StringVar(&status, "status", "", "only records with this status: preparing, running, completed, failed, timed_out, cancelled, aborted")
	c.Flags().IntVar(&limit, "limit", store.DefaultListLimit, fmt.Sprintf("page size (1..%d)", store.MaxListLimit))
	c.Flags().StringVar(&cursor, "cursor", "", "continue after the page that returned this next_cursor")
	c.RunE = a.runE(func(cmd *cobra.Command, args []string) error {
		if kind != "" && !oneOf(kind, store.Kinds) {
			return machine.Errorf(machine.InvalidArgument, map[string]any{"argument": "kind"}, "--kind %q is not one of %s", kind, joinAny(store.Kinds))
		}
		if status != "" && !oneOf(status, store.Statuses) {
			return machine.Errorf(machine.InvalidArgument, map[string]any{"argument": "status"}, "--status %q is not one of %s", status, joinAny(store.Statuses))
		}
		if limit < 1 || limit > store.MaxListLimit {
			return machine.Errorf(machine.InvalidArgument, map[string]any{"argument": "limit"}, "--limit %d is out of range 1..%d", limit, store.MaxListLimit)
		}
		st, err := a.readStore(cmd.Context())
		if err != nil {
			return err
		}
		p, err := st.List(cmd.Context(), store.ListQuery{Kind: store.Kind(kind), Status: store.Status(status), Limit: limit, Cursor: cursor})
		if err != nil {
			return err
		}
		recs := make([]store.RecordJSON, len(p.Records))
		for i := range p.Records {
			recs[i] = p.Records[i].JSON()
		}
		var next *string
		if p.NextCursor != "" {
			next = &p.NextCursor
		}
		return a.ok(map[string]any{"records": recs, "next_cursor": next}, func(w io.Writer) {
			for _, r := range recs {
				fmt.Fprintf(w, "%s  %-10s %-10s %s  %s\n", r.ID, r.Kind, r.Status, r.CreatedAt.Local().Format(time.DateTime), termsafe.Line(r.Label))
			}
			if next != nil {
				fmt.Fprintf(w, "more: limcp job list --cursor %s\n", *next)
			}
		})
	})
	return c
}

func oneOf[T ~string](s string, set []T) bool {
	for _, x := range set {
		if string(x) == s {
			return true
		}
	}
	return false
}

func joinAny[T ~string](set []T) string {
	parts := make([]string, len(set))
	for i, x := range set {
		parts[i] = string(x)
	}
	return strings.Join(parts, ", ")
}

func (a *app) jobObserveCmd() *cobra.Command {
	c := &cobra.Command{
		Use:   "observe IDS...",
		Short: "observe records with process evidence (what job.wait polls); reaps runs whose process is gone",
		Long: `Observe each id: its record and what the process table says about its process. A started
run whose process is conclusively gone with no end recorded is moved to failed
(run.failed.process_gone) by compare-and-set: the fenced reap. Unknown and
ambiguous ids are per-id errors, not a failure of the command.`,
		Args: cobra.MinimumNArgs(1),
	}
	c.RunE = a.runE(func(cmd *cobra.Command, args []string) error {
		st, err := a.readStore(cmd.Context())
		if err != nil {
			return err
		}
		obs, err := (&run.Observer{Store: st}).Observe(cmd.Context(), args)
		if err != nil {
			return err
		}
		// The poller's visit also recovers notifications nobody is
		// delivering (one indexed query; a launch only when there are
		// some). Its failure never fails the observation.
		if exe, err := a.executable(); err == nil {
			home, _ := a.resolvedHome()
			_, _ = notify.Sweep(cmd.Context(), st, func(ids ...string) error { return notify.Launch(exe, home, ids...) })
		}
		return a.ok(map[string]any{"observations": obs}, func(w io.Writer) {
			for _, o := range obs {
				if o.Error != nil {
					fmt.Fprintf(w, "%s  error %s: %s\n", o.ID, o.Error.Code, o.Error.Message)
					continue
				}
				fmt.Fprintf(w, "%s  %-10s %-10s phase=%s process=%s end_recorded=%t %s\n", o.ID, o.Kind, o.Status, o.Phase, o.Process, o.EndRecorded, o.ReasonCode)
			}
		})
	})
	return c
}

func (a *app) jobWaitCmd() *cobra.Command {
	var maxWait, poll float64
	c := &cobra.Command{
		Use:   "wait IDS...",
		Short: "wait until runs end or the window passes; report every id",
		Long: `Observe the ids until none is pending or the window ends, then report each
id and the partition: terminal, pending, stopped_without_end, unresolved_spawn.
Expiry is not an error. The window and poll interval are clamped (window
0..300 s, poll 0.25..30 s) and echoed.`,
		Args: cobra.MinimumNArgs(1),
	}
	constrainIDs(c)
	c.Flags().Float64Var(&maxWait, "max-wait-seconds", wait.DefaultMaxWait.Seconds(), "how long to wait at most, in seconds (0: one snapshot)")
	c.Flags().Float64Var(&poll, "poll-interval-seconds", wait.DefaultPollInterval.Seconds(), "seconds between observations")
	c.RunE = a.runE(func(cmd *cobra.Command, args []string) error {
		st, err := a.readStore(cmd.Context())
		if err != nil {
			return err
		}
		ctx, stop := signal.NotifyContext(cmd.Context(), os.Interrupt, syscall.SIGTERM)
		defer stop()
		res, err := wait.Wait(ctx, &run.Observer{Store: st}, args, &wait.Options{MaxWait: wait.Seconds(maxWait), PollInterval: wait.Seconds(poll)})
		if err != nil {
			if ctx.Err() != nil && cmd.Context().Err() == nil {
				return machine.Errorf(machine.WaitFailed, nil, "wait interrupted: %v", context.Cause(ctx))
			}
			return machine.Errorf(machine.WaitFailed, nil, "%v", err)
		}
		return a.ok(res, func(w io.Writer) {
			for _, e := range res.Entries {
				if e.Error != nil {
					fmt.Fprintf(w, "%s  error %s: %s\n", e.ID, e.Error.Code, e.Error.Message)
					continue
				}
				fmt.Fprintf(w, "%s  %-10s %-10s %-9s %s\n", e.ID, e.Kind, e.Status, e.Outcome, e.ReasonCode)
			}
			switch {
			case res.AllTerminal:
				fmt.Fprintln(w, "all ended")
			case res.TimedOut:
				fmt.Fprintf(w, "still pending after %gs: %s\n", res.MaxWaitSeconds, strings.Join(res.Pending, " "))
			}
			if len(res.StoppedWithoutEnd) > 0 {
				fmt.Fprintf(w, "stopped without a recorded end: %s\n", strings.Join(res.StoppedWithoutEnd, " "))
			}
			if len(res.UnresolvedSpawn) > 0 {
				fmt.Fprintf(w, "never started: %s\n", strings.Join(res.UnresolvedSpawn, " "))
			}
		})
	})
	return c
}

// humanNotify prints a record's notify setting and deliveries.
func humanNotify(w io.Writer, n *store.NotifyJSON) {
	if n == nil {
		return
	}
	fmt.Fprintf(w, "  notify: %s (timeout %s, %d attempts)\n", notifyTargets(n), n.Timeout, n.MaxAttempts)
	if len(n.Deliveries) == 0 {
		fmt.Fprintln(w, "    not yet: the record has not ended")
	}
	for _, d := range n.Deliveries {
		fmt.Fprintf(w, "    %-7s %s after %d of %d attempts", d.Channel, d.State, d.Attempts, d.MaxAttempts)
		if d.NextAttemptAt != nil {
			fmt.Fprintf(w, ", next at %s", d.NextAttemptAt.Local().Format(time.TimeOnly))
		}
		if d.LastError != nil {
			fmt.Fprintf(w, "; last error: %s", termsafe.Line(*d.LastError))
		}
		fmt.Fprintln(w)
	}
}

// notifyTargets says where a setting announces an end.
func notifyTargets(n *store.NotifyJSON) string {
	var to []string
	if n.URL != nil {
		to = append(to, "POST "+*n.URL)
	}
	if n.Command != nil {
		to = append(to, "run "+strings.Join(n.Command, " "))
	}
	return strings.Join(to, "; ")
}

// MaxIDs is how many ids one `job status` or `job wait` offers a surface
// caller (its schema's maxItems; duplicates are refused too). The CLI run
// by a person takes any number; over MCP, one request cannot make the
// server observe 10,000 runs, or one run 300,000 times.
const MaxIDs = 256

func constrainIDs(c *cobra.Command) {
	fromcobra.Constrain(c, "ids", fromcobra.Constraint{MaxItems: MaxIDs, UniqueItems: true})
}
