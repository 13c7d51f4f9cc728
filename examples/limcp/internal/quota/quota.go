package quota

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/verbsurface/verbsurface/examples/limcp/internal/machine"
)

// Defaults of [Limits], each taken when config.yaml does not set it.
const (
	DefaultSchedules  = 32
	DefaultRunBytes   = 16 << 20
	DefaultHomeBytes  = 1 << 30
	DefaultBoardBytes = 16 << 20
)

// Config is the limits section of config.yaml, as written. Sizes are a
// number of bytes or a number with a KiB, MiB or GiB suffix; -1 turns a
// bound off; absent (zero) is the default.
type Config struct {
	Schedules  int    `yaml:"schedules"`
	RunBytes   string `yaml:"run_bytes"`
	HomeBytes  string `yaml:"home_bytes"`
	BoardBytes string `yaml:"board_bytes"`
}

// Limits are the bounds in force; a negative value is no bound.
type Limits struct {
	Schedules  int
	RunBytes   int64
	HomeBytes  int64
	BoardBytes int64 // the messages of every team board together
}

// Defaults are the bounds when config.yaml sets none.
var Defaults = Limits{Schedules: DefaultSchedules, RunBytes: DefaultRunBytes, HomeBytes: DefaultHomeBytes, BoardBytes: DefaultBoardBytes}

// FieldError is a limits value that is not acceptable: Field names it
// ("limits.run_bytes").
type FieldError struct {
	Field string
	Msg   string
}

func (e *FieldError) Error() string { return e.Field + ": " + e.Msg }

// Resolve returns the bounds c sets, the defaults for what it leaves out.
func Resolve(c Config) (Limits, error) {
	l := Defaults
	switch {
	case c.Schedules < -1:
		return l, &FieldError{"limits.schedules", fmt.Sprintf("%d is neither a count nor -1 (no cap)", c.Schedules)}
	case c.Schedules != 0:
		l.Schedules = c.Schedules
	}
	for _, f := range []struct {
		field string
		text  string
		into  *int64
	}{{"limits.run_bytes", c.RunBytes, &l.RunBytes}, {"limits.home_bytes", c.HomeBytes, &l.HomeBytes},
		{"limits.board_bytes", c.BoardBytes, &l.BoardBytes}} {
		if f.text == "" {
			continue
		}
		n, err := ParseBytes(f.text)
		if err != nil {
			return l, &FieldError{f.field, err.Error()}
		}
		*f.into = n
	}
	return l, nil
}

// ParseBytes reads a size: a whole number of bytes, optionally with a
// KiB, MiB or GiB suffix, or -1 (no bound).
func ParseBytes(s string) (int64, error) {
	t := strings.TrimSpace(s)
	if t == "-1" {
		return -1, nil
	}
	mult := int64(1)
	for _, u := range []struct {
		suffix string
		mult   int64
	}{{"KiB", 1 << 10}, {"MiB", 1 << 20}, {"GiB", 1 << 30}} {
		if rest, ok := strings.CutSuffix(t, u.suffix); ok {
			t, mult = strings.TrimSpace(rest), u.mult
			break
		}
	}
	n, err := strconv.ParseInt(t, 10, 64)
	if err != nil || n <= 0 || n > (1<<62)/mult {
		return 0, fmt.Errorf("%q is not a size (a positive number of bytes, optionally with KiB, MiB or GiB; -1 for no bound)", s)
	}
	return n * mult, nil
}

// Reached is the limit_reached refusal of bound (its config.yaml key)
// at max with used already taken.
func Reached(bound string, max, used int64, what string) error {
	return machine.Errorf(machine.LimitReached, map[string]any{"limit": bound, "max": max, "used": used},
		"%s: the state home's limit %s is %d and %d is used; nothing was written (the operator raises it in config.yaml, limits.%s)",
		what, bound, max, used, bound)
}

// CheckSchedules refuses one more schedule when the home already keeps n.
func (l Limits) CheckSchedules(n int) error {
	if l.Schedules >= 0 && n >= l.Schedules {
		return Reached("schedules", int64(l.Schedules), int64(n), "no schedule added")
	}
	return nil
}

// CheckRun refuses a run whose rendered prompts take n bytes.
func (l Limits) CheckRun(n int64) error {
	if l.RunBytes >= 0 && n > l.RunBytes {
		return Reached("run_bytes", l.RunBytes, n, "the run was not started: its prompts, rendered, are too large")
	}
	return nil
}

// CheckHome refuses a run that would write adding bytes of run data into
// the runs directory runsDir when the data already there and adding
// together pass the bound. Measuring walks runsDir, whose cost grows with
// the files it holds, so a measurement is kept for UsageTTL in
// runsDir/UsageFile and each admitted run's bytes are added to it; past
// the TTL the next check walks again. Between two walks the measure
// misses what running runs wrote since (their output): the bound can be
// passed by at most that much.
func (l Limits) CheckHome(runsDir string, adding int64) error {
	if l.HomeBytes < 0 {
		return nil
	}
	used, err := usage(runsDir)
	if err != nil {
		return machine.Errorf(machine.StoreError, nil, "measuring the run data of the state home: %v", err)
	}
	if used+adding > l.HomeBytes {
		return Reached("home_bytes", l.HomeBytes, used, "the run was not started: the state home's run data is full")
	}
	writeUsage(runsDir, used+adding, false)
	return nil
}

// UsageFile, in the runs directory, keeps the last measure of its size:
// {"bytes": N, "measured_at": TIME}.
const UsageFile = ".usage"

// UsageTTL is how long a measure of the runs directory is trusted.
const UsageTTL = 30 * time.Second

type measure struct {
	Bytes      int64     `json:"bytes"`
	MeasuredAt time.Time `json:"measured_at"`
}

// usage is the runs directory's size: the kept measure while it is
// fresh, else a walk (kept for the next check).
func usage(runsDir string) (int64, error) {
	if b, err := os.ReadFile(filepath.Join(runsDir, UsageFile)); err == nil {
		var m measure
		if json.Unmarshal(b, &m) == nil && time.Since(m.MeasuredAt) >= 0 && time.Since(m.MeasuredAt) < UsageTTL {
			return m.Bytes, nil
		}
	}
	n, err := DirBytes(runsDir)
	if err != nil {
		return 0, err
	}
	writeUsage(runsDir, n, true)
	return n, nil
}

// writeUsage keeps bytes as the runs directory's measure: with a new
// time when it was walked, else with the time of the kept measure (adding
// a run does not make a measure fresher). It replaces the file in one
// rename; a failure only costs the next check a walk.
func writeUsage(runsDir string, bytes int64, walked bool) {
	m := measure{Bytes: bytes, MeasuredAt: time.Now().UTC()}
	if !walked {
		b, err := os.ReadFile(filepath.Join(runsDir, UsageFile))
		var old measure
		if err != nil || json.Unmarshal(b, &old) != nil {
			return
		}
		m.MeasuredAt = old.MeasuredAt
	}
	if err := os.MkdirAll(runsDir, 0o700); err != nil {
		return
	}
	b, _ := json.Marshal(m)
	tmp, err := os.CreateTemp(runsDir, UsageFile+".*")
	if err != nil {
		return
	}
	_, werr := tmp.Write(b)
	cerr := tmp.Close()
	if werr != nil || cerr != nil || os.Rename(tmp.Name(), filepath.Join(runsDir, UsageFile)) != nil {
		os.Remove(tmp.Name())
	}
}

// DirBytes is the size of the regular files under dir (0 when dir does
// not exist). Files that vanish while it walks are skipped.
func DirBytes(dir string) (int64, error) {
	var total int64
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				return nil
			}
			return err
		}
		if d.Type().IsRegular() {
			if fi, err := d.Info(); err == nil {
				total += fi.Size()
			}
		}
		return nil
	})
	return total, err
}
