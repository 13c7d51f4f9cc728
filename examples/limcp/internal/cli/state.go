//go:build unix

package cli

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/verbsurface/verbsurface/examples/limcp/internal/machine"
	"github.com/verbsurface/verbsurface/examples/limcp/internal/notify"
	"github.com/verbsurface/verbsurface/examples/limcp/internal/playbook"
	"github.com/verbsurface/verbsurface/examples/limcp/internal/provider"
	"github.com/verbsurface/verbsurface/examples/limcp/internal/run"
	"github.com/verbsurface/verbsurface/examples/limcp/internal/store"
	"github.com/verbsurface/verbsurface/examples/limcp/internal/termsafe"
	"github.com/verbsurface/verbsurface/internal/procid"
	"github.com/verbsurface/verbsurface/wait"
)

func (a *app) stateCmd() *cobra.Command {
	return group("state", "inspect the state home; migrate the store (at a terminal only)",
		a.stateListCmd(), a.stateShowCmd(), a.stateDoctorCmd(), a.stateMigrateCmd())
}

// playbookNames lists the playbooks under home.
func playbookNames(home string) []string {
	ents, _ := os.ReadDir(filepath.Join(home, playbook.Dir))
	out := []string{}
	for _, e := range ents {
		if n, ok := strings.CutSuffix(e.Name(), playbook.Suffix); ok && !e.IsDir() {
			out = append(out, n)
		}
	}
	sort.Strings(out)
	return out
}

func (a *app) stateListCmd() *cobra.Command {
	c := &cobra.Command{Use: "list", Short: "list what the state home holds: row counts, playbooks, providers", Args: cobra.NoArgs}
	c.RunE = a.runE(func(cmd *cobra.Command, args []string) error {
		st, err := a.readStore(cmd.Context())
		if err != nil {
			return err
		}
		counts, err := st.Counts(cmd.Context())
		if err != nil {
			return err
		}
		home, _ := a.resolvedHome()
		provs := []string{provider.EchoName}
		if cfg, err := provider.LoadConfig(home); err == nil {
			for _, p := range cfg.Providers {
				provs = append(provs, p.Name)
			}
		}
		data := map[string]any{"home": home, "counts": counts, "playbooks": playbookNames(home), "providers": provs}
		return a.ok(data, func(w io.Writer) {
			keys := make([]string, 0, len(counts))
			for k := range counts {
				keys = append(keys, k)
			}
			sort.Strings(keys)
			for _, k := range keys {
				fmt.Fprintf(w, "%-12s %d\n", k, counts[k])
			}
			fmt.Fprintf(w, "playbooks    %s\nproviders    %s\n", strings.Join(playbookNames(home), " "), strings.Join(provs, " "))
		})
	})
	return c
}

func (a *app) stateShowCmd() *cobra.Command {
	c := &cobra.Command{Use: "show", Short: "show where state lives and how the store is configured", Args: cobra.NoArgs}
	c.RunE = a.runE(func(cmd *cobra.Command, args []string) error {
		st, err := a.readStore(cmd.Context())
		if err != nil {
			return err
		}
		home, _ := a.resolvedHome()
		v, err := st.Version(cmd.Context())
		if err != nil {
			return err
		}
		var mode string
		if err := st.DB().QueryRowContext(cmd.Context(), "PRAGMA journal_mode").Scan(&mode); err != nil {
			return err
		}
		trust, err := st.TrustEntries(cmd.Context())
		if err != nil {
			return err
		}
		data := map[string]any{
			"home": home, "store": st.Path(), "schema_version": v, "current_schema_version": store.CurrentVersion,
			"store_exists": !st.Empty(), "journal_mode": mode, "busy_timeout_ms": store.BusyTimeout.Milliseconds(),
			"runs_dir": filepath.Join(home, run.RunsDir), "playbooks_dir": filepath.Join(home, playbook.Dir),
			"providers_file": filepath.Join(home, provider.ConfigFile), "config_file": filepath.Join(home, notify.ConfigFile), "trust": trust,
		}
		return a.ok(data, func(w io.Writer) {
			fmt.Fprintf(w, "home       %s\nstore      %s (schema %d, %s)\n", home, st.Path(), v, mode)
			for _, t := range trust {
				fmt.Fprintf(w, "trusted    %s %s\n", t.Kind, t.Subject)
			}
		})
	})
	return c
}

// Check is one finding of `state doctor`.
type Check struct {
	Name   string `json:"name"`
	Status string `json:"status"` // ok, warn, fail
	Detail string `json:"detail"`
}

func (a *app) stateDoctorCmd() *cobra.Command {
	c := &cobra.Command{
		Use:   "doctor",
		Short: "check the store and the state home (read-only: reports, never repairs)",
		Args:  cobra.NoArgs,
	}
	c.RunE = a.runE(func(cmd *cobra.Command, args []string) error {
		ctx := cmd.Context()
		st, err := a.readStore(ctx)
		if err != nil {
			return err
		}
		home, _ := a.resolvedHome()
		var checks []Check
		add := func(name, status, format string, args ...any) {
			checks = append(checks, Check{Name: name, Status: status, Detail: fmt.Sprintf(format, args...)})
		}
		var qc string
		if err := st.DB().QueryRowContext(ctx, "PRAGMA quick_check").Scan(&qc); err != nil || qc != "ok" {
			add("integrity", "fail", "quick_check: %s %v", qc, err)
		} else {
			add("integrity", "ok", "quick_check ok")
		}
		add("schema", "ok", "schema version %d (current)", store.CurrentVersion)
		var mode string
		_ = st.DB().QueryRowContext(ctx, "PRAGMA journal_mode").Scan(&mode)
		if st.Empty() {
			add("store", "ok", "no store yet at %s: the first command that writes creates it", st.Path())
		} else if mode == "wal" {
			add("journal_mode", "ok", "wal")
		} else {
			add("journal_mode", "warn", "journal mode is %q, not wal", mode)
		}
		// Both files are optional: an absent one is said to be absent, not
		// claimed to parse.
		cfg, err := provider.LoadConfig(home)
		if path := filepath.Join(home, provider.ConfigFile); !present(path) {
			add("providers", "ok", "%s: absent (optional; the built-in echo provider and the presets)", path)
		} else if err != nil {
			add("providers", "fail", "%v", err)
		} else {
			add("providers", "ok", "%s parses", path)
		}
		// Which agent programs a model name can start here, and why not:
		// a preset or provider that is not usable is a warning, not a
		// failure (a machine need not have every agent).
		avail := provider.Availabilities(cfg, provider.LookPathIn(a.opts.Getenv("PATH")))
		for _, av := range avail {
			switch {
			case av.Usable && av.Source == provider.SourcePreset:
				add("preset "+av.Name, "ok", "usable: %s runs %s; needs %s", av.Program, av.Path, av.Needs)
			case av.Usable:
				add("provider "+av.Name, "ok", "usable: runs %s (declared in %s)", av.Path, provider.ConfigFile)
			case av.Source == provider.SourceDisabled:
				add("preset "+av.Name, "ok", "not usable: disabled in %s", provider.ConfigFile)
			case av.Source == provider.SourcePreset:
				add("preset "+av.Name, "warn", "not usable: %s; install %s (%s) to use it", av.Reason, av.Program, av.Doc)
			default:
				add("provider "+av.Name, "warn", "not usable: %s", av.Reason)
			}
		}
		if path := filepath.Join(home, notify.ConfigFile); !present(path) {
			add("config", "ok", "%s: absent (optional; no notify default)", path)
		} else if _, err := notify.Resolve(home, notify.PerRun{}, func(string) string { return "" }); err != nil {
			add("config", "fail", "%v", err)
		} else {
			add("config", "ok", "%s parses (notify default and policy)", path)
		}
		if stale, err := st.StaleDeliveries(ctx, notify.SweepGrace, 100); err != nil {
			return err
		} else if len(stale) > 0 {
			add("notifications", "warn", "%d records have a notification nobody is delivering (the next `job observe` restarts them): %s", len(stale), strings.Join(stale, " "))
		} else {
			add("notifications", "ok", "no notification is stuck")
		}
		var bad []string
		for _, n := range playbookNames(home) {
			if _, _, err := playbook.Load(home, n); err != nil {
				bad = append(bad, err.Error())
			}
		}
		if len(bad) > 0 {
			add("playbooks", "fail", "%s", strings.Join(bad, "; "))
		} else {
			add("playbooks", "ok", "%d playbooks parse", len(playbookNames(home)))
		}
		active, err := st.Active(ctx)
		if err != nil {
			return err
		}
		var gone, stale []string
		for _, r := range active {
			if r.Status == store.StatusRunning && r.PID > 0 && procid.Check(procid.Identity{PID: r.PID, StartTime: r.StartTime}) == procid.Gone {
				gone = append(gone, r.ID)
			}
			if r.Status == store.StatusPreparing && time.Since(r.PhaseEnteredAt) > wait.DefaultPreparingThreshold {
				stale = append(stale, r.ID)
			}
		}
		if len(gone) > 0 {
			add("running_without_process", "warn", "%d running records have no live worker (the next `job observe` reaps them): %s", len(gone), strings.Join(gone, " "))
		} else {
			add("running_without_process", "ok", "every running record has a live worker")
		}
		if len(stale) > 0 {
			add("unresolved_spawns", "warn", "%d records preparing for more than %s: %s", len(stale), wait.DefaultPreparingThreshold, strings.Join(stale, " "))
		} else {
			add("unresolved_spawns", "ok", "no record stuck preparing")
		}
		if wide := widePermissions(home); len(wide) > 0 {
			add("permissions", "warn", "readable by others: %s; any limcp command that writes the store tightens the home and the store, or run chmod go-rwx on each", strings.Join(wide, ", "))
		} else {
			add("permissions", "ok", "the home and the store are private (0700 / 0600)")
		}
		healthy := true
		for _, c := range checks {
			healthy = healthy && c.Status != "fail"
		}
		return a.ok(map[string]any{"healthy": healthy, "checks": checks, "providers": avail}, func(w io.Writer) {
			for _, c := range checks {
				fmt.Fprintf(w, "%-4s %-24s %s\n", c.Status, c.Name, c.Detail)
			}
		})
	})
	return c
}

func (a *app) stateMigrateCmd() *cobra.Command {
	c := &cobra.Command{
		Use:   "migrate",
		Short: "upgrade the store to this binary's schema (privileged: at a terminal only)",
		Args:  cobra.NoArgs,
	}
	c.RunE = a.runE(func(cmd *cobra.Command, args []string) error {
		st, err := a.openStore(cmd.Context(), store.Options{AllowOutdated: true})
		if err != nil {
			return err
		}
		from, to, err := st.Migrate(cmd.Context())
		if err != nil {
			return err
		}
		return a.ok(map[string]any{"store": st.Path(), "from": from, "to": to}, func(w io.Writer) {
			if from == to {
				fmt.Fprintf(w, "%s is already at schema version %d\n", st.Path(), to)
			} else {
				fmt.Fprintf(w, "%s migrated from schema version %d to %d\n", st.Path(), from, to)
			}
		})
	})
	return c
}

var pluginNameRE = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9_.-]*$`)

func (a *app) pluginCmd() *cobra.Command {
	trust := &cobra.Command{
		Use:   "trust NAME",
		Short: "record that you trust the plugin NAME (privileged: at a terminal only)",
		Args:  cobra.ExactArgs(1),
	}
	trust.RunE = a.runE(func(cmd *cobra.Command, args []string) error {
		if !pluginNameRE.MatchString(args[0]) {
			return machine.Errorf(machine.InvalidArgument, map[string]any{"argument": "name"}, "plugin name %q must match %s", args[0], pluginNameRE)
		}
		st, err := a.store(cmd.Context())
		if err != nil {
			return err
		}
		t, err := st.SetTrust(cmd.Context(), store.Trust{Kind: "plugin", Subject: args[0]})
		if err != nil {
			return err
		}
		return a.ok(map[string]any{"trust": t}, func(w io.Writer) { fmt.Fprintf(w, "trusted plugin %s\n", t.Subject) })
	})
	return group("plugin", "manage plugins", trust)
}

func (a *app) hooksCmd() *cobra.Command {
	trust := &cobra.Command{
		Use:   "trust PATH",
		Short: "record that you trust the hooks file at PATH as it is now (privileged: at a terminal only)",
		Args:  cobra.ExactArgs(1),
	}
	trust.RunE = a.runE(func(cmd *cobra.Command, args []string) error {
		path, err := filepath.Abs(args[0])
		if err != nil {
			return machine.Errorf(machine.InvalidArgument, map[string]any{"argument": "path"}, "hooks path %q: %v", args[0], err)
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return machine.Errorf(machine.InvalidArgument, map[string]any{"argument": "path"}, "cannot read hooks file %s: %v", path, err)
		}
		sum := sha256.Sum256(b)
		st, err := a.store(cmd.Context())
		if err != nil {
			return err
		}
		t, err := st.SetTrust(cmd.Context(), store.Trust{Kind: "hooks", Subject: path, Digest: "sha256:" + hex.EncodeToString(sum[:])})
		if err != nil {
			return err
		}
		return a.ok(map[string]any{"trust": t}, func(w io.Writer) { fmt.Fprintf(w, "trusted hooks %s (%s)\n", t.Subject, t.Digest) })
	})
	return group("hooks", "manage hooks files", trust)
}

// MonitorEntry is one running record of `monitor`.
type MonitorEntry struct {
	store.RecordJSON
	Process    string  `json:"process"` // alive, gone, unknown
	AgeSeconds float64 `json:"age_seconds"`
}

func (a *app) monitorCmd() *cobra.Command {
	c := &cobra.Command{
		Use:   "monitor",
		Short: "show what is running now, with process evidence (read-only)",
		Args:  cobra.NoArgs,
	}
	c.RunE = a.runE(func(cmd *cobra.Command, args []string) error {
		st, err := a.readStore(cmd.Context())
		if err != nil {
			return err
		}
		active, err := st.Active(cmd.Context())
		if err != nil {
			return err
		}
		now := time.Now()
		out := []MonitorEntry{}
		for _, r := range active {
			ev := "unknown"
			if r.PID > 0 {
				ev = string(procid.Check(procid.Identity{PID: r.PID, StartTime: r.StartTime}))
			}
			out = append(out, MonitorEntry{RecordJSON: r.JSON(), Process: ev, AgeSeconds: now.Sub(r.CreatedAt).Seconds()})
		}
		return a.ok(map[string]any{"running": out}, func(w io.Writer) {
			for _, m := range out {
				fmt.Fprintf(w, "%s  %-10s %-10s %-8s %6.1fs  %s\n", m.ID, m.Kind, m.Status, m.Process, m.AgeSeconds, termsafe.Line(m.Label))
			}
			if len(out) == 0 {
				fmt.Fprintln(w, "nothing running")
			}
		})
	})
	return c
}

func (a *app) statsCmd() *cobra.Command {
	c := &cobra.Command{Use: "stats", Short: "count records by kind and status; summarise run durations", Args: cobra.NoArgs}
	c.RunE = a.runE(func(cmd *cobra.Command, args []string) error {
		st, err := a.readStore(cmd.Context())
		if err != nil {
			return err
		}
		ks, err := st.Stats(cmd.Context())
		if err != nil {
			return err
		}
		total := 0
		for _, k := range ks {
			total += k.Total
		}
		return a.ok(map[string]any{"total": total, "kinds": ks}, func(w io.Writer) {
			for _, k := range ks {
				fmt.Fprintf(w, "%-10s %5d", k.Kind, k.Total)
				if k.Duration != nil {
					fmt.Fprintf(w, "  duration min %.2fs mean %.2fs max %.2fs", k.Duration.Min, k.Duration.Mean, k.Duration.Max)
				}
				fmt.Fprintln(w)
			}
		})
	})
	return c
}

// present reports whether something exists at path (a file that exists but
// cannot be read is present: loading it then says why).
func present(path string) bool {
	_, err := os.Lstat(path)
	return !errors.Is(err, fs.ErrNotExist)
}

// widePermissions lists the state home's private paths (the home, the
// store and its WAL and shared memory, the runs directory) that grant any
// permission to group or others, each with its mode.
func widePermissions(home string) []string {
	var out []string
	for _, p := range []string{home, filepath.Join(home, StoreFile), filepath.Join(home, StoreFile+"-wal"),
		filepath.Join(home, StoreFile+"-shm"), filepath.Join(home, run.RunsDir)} {
		if fi, err := os.Stat(p); err == nil && fi.Mode().Perm()&0o077 != 0 {
			out = append(out, fmt.Sprintf("%s (%#o)", p, fi.Mode().Perm()))
		}
	}
	return out
}
