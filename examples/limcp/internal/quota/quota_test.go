package quota

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/verbsurface/verbsurface/examples/limcp/internal/machine"
)

func TestResolve(t *testing.T) {
	for _, tt := range []struct {
		name  string
		in    Config
		want  Limits
		field string // the field at fault, "" when it resolves
	}{
		{name: "nothing set is the defaults", want: Defaults},
		{name: "a count and sizes with suffixes", in: Config{Schedules: 5, RunBytes: "2MiB", HomeBytes: "3 GiB"}, want: Limits{5, 2 << 20, 3 << 30, DefaultBoardBytes}},
		{name: "a plain number of bytes", in: Config{RunBytes: "1000"}, want: Limits{DefaultSchedules, 1000, DefaultHomeBytes, DefaultBoardBytes}},
		{name: "a board bound", in: Config{BoardBytes: "1MiB"}, want: Limits{DefaultSchedules, DefaultRunBytes, DefaultHomeBytes, 1 << 20}},
		{name: "-1 turns each bound off", in: Config{Schedules: -1, RunBytes: "-1", HomeBytes: "-1", BoardBytes: "-1"}, want: Limits{-1, -1, -1, -1}},
		{name: "a negative count other than -1 is refused", in: Config{Schedules: -2}, field: "limits.schedules"},
		{name: "a size that is not a number is refused", in: Config{RunBytes: "lots"}, field: "limits.run_bytes"},
		{name: "a zero size is refused", in: Config{HomeBytes: "0"}, field: "limits.home_bytes"},
		{name: "an unknown unit is refused", in: Config{HomeBytes: "1TB"}, field: "limits.home_bytes"},
		{name: "a board bound that is not a size is refused", in: Config{BoardBytes: "big"}, field: "limits.board_bytes"},
		{name: "an overflowing size is refused", in: Config{HomeBytes: "9999999999999GiB"}, field: "limits.home_bytes"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Resolve(tt.in)
			if tt.field != "" {
				fe, ok := err.(*FieldError)
				if !ok || fe.Field != tt.field {
					t.Fatalf("Resolve(%+v) = %v; want a FieldError on %s", tt.in, err, tt.field)
				}
				return
			}
			if err != nil || got != tt.want {
				t.Fatalf("Resolve(%+v) = %+v, %v; want %+v", tt.in, got, err, tt.want)
			}
		})
	}
}

func TestChecks(t *testing.T) {
	dir := t.TempDir()
	runs := filepath.Join(dir, "runs")
	if err := os.MkdirAll(filepath.Join(runs, "a"), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(runs, "a", "stdout"), make([]byte, 600), 0o600); err != nil {
		t.Fatal(err)
	}
	l := Limits{Schedules: 2, RunBytes: 100, HomeBytes: 1000}
	for _, tt := range []struct {
		name  string
		err   error
		limit string // "" when admitted
	}{
		{"a schedule under the cap is admitted", l.CheckSchedules(1), ""},
		{"a schedule at the cap is refused", l.CheckSchedules(2), "schedules"},
		{"a run of exactly the bound is admitted", l.CheckRun(100), ""},
		{"a run past the bound is refused", l.CheckRun(101), "run_bytes"},
		{"run data that fits is admitted", l.CheckHome(runs, 400), ""},
		{"run data past the home's bound is refused", l.CheckHome(runs, 401), "home_bytes"},
		{"a home without runs/ holds nothing", l.CheckHome(filepath.Join(dir, "none"), 1000), ""},
		{"no bound admits anything", Limits{-1, -1, -1, -1}.CheckHome(runs, 1<<40), ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if tt.limit == "" {
				if tt.err != nil {
					t.Fatalf("refused: %v", tt.err)
				}
				return
			}
			me, ok := machine.As(tt.err)
			if !ok || me.Code != machine.LimitReached || me.Details.(map[string]any)["limit"] != tt.limit {
				t.Fatalf("%v; want limit_reached on %s", tt.err, tt.limit)
			}
		})
	}
}

// TestHomeMeasureIsKept: a walk's measure is kept for UsageTTL with each
// admitted run added, so a submit does not walk every run again; past the
// TTL the next check walks and sees what runs wrote meanwhile.
func TestHomeMeasureIsKept(t *testing.T) {
	runs := filepath.Join(t.TempDir(), "runs")
	write := func(name string, n int) {
		if err := os.MkdirAll(filepath.Join(runs, name), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(runs, name, "stdout"), make([]byte, n), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	l := Limits{Schedules: -1, RunBytes: -1, HomeBytes: 1000}
	write("a", 300)
	if err := l.CheckHome(runs, 100); err != nil { // walks: 300, keeps 400
		t.Fatal(err)
	}
	write("b", 500)                                // a run's output, written after the measure
	if err := l.CheckHome(runs, 100); err != nil { // kept: 400 + 100
		t.Fatalf("within the TTL the kept measure is used: %v", err)
	}
	if err := l.CheckHome(runs, 501); err == nil { // kept 500 + 501 > 1000
		t.Fatal("the admitted runs were not added to the kept measure")
	}
	// Past the TTL the next check walks again and finds b's 500 bytes.
	stale, _ := json.Marshal(measure{Bytes: 0, MeasuredAt: time.Now().Add(-2 * UsageTTL)})
	if err := os.WriteFile(filepath.Join(runs, UsageFile), stale, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := l.CheckHome(runs, 150); err == nil {
		t.Fatal("a stale measure was trusted: the walk would find 800 bytes and refuse 150 more")
	}
}
