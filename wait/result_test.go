package wait

import (
	"bytes"
	"encoding/json"
	"slices"
	"testing"
	"time"

	"github.com/verbsurface/verbsurface/internal/golden"
)

// resultCases are the Results whose JSON is pinned in testdata/.
var resultCases = []struct {
	name string
	per  map[string][]Observation
	ids  []string
	opts Options
}{
	{
		name: "mixed",
		per: map[string][]Observation{
			"done":  {completed},
			"broke": {failed},
			"odd":   {terminal("exploded", "run.exploded.unknown")},
			"run":   {running()},
			"gone":  {goneNoEnd()},
			"spawn": {oldPrep},
		},
		ids:  []string{"done", "broke", "odd", "run", "gone", "spawn", "ghost", "done"},
		opts: Options{MaxWait: dur(3 * time.Second), PollInterval: dur(1500 * time.Millisecond)},
	},
	{
		name: "all_terminal",
		per: map[string][]Observation{
			"a": {running(), completed},
			"b": {terminal("cancelled", "run.cancelled.manual_kill")},
		},
		ids: []string{"a", "b"},
	},
	{
		name: "snapshot",
		per:  map[string][]Observation{"a": {running()}},
		ids:  []string{"a"},
		opts: Options{MaxWait: dur(0), PreparingThreshold: 10 * time.Second},
	},
}

// TestResultGolden pins the JSON shape of the Result.
func TestResultGolden(t *testing.T) {
	for _, tc := range resultCases {
		t.Run(tc.name, func(t *testing.T) {
			res, _, _ := runAuto(t, tc.per, tc.ids, tc.opts)
			golden.JSON(t, "result_"+tc.name, res)
		})
	}
}

// TestResultKeys checks the shape rules independent of the golden text:
// every entry has exactly the nine keys, error is null unless the id could
// not be observed, and every list is an array (never null).
func TestResultKeys(t *testing.T) {
	wantEntry := []string{"error", "id", "kind", "label", "outcome", "possibly_orphaned", "reason_code", "status", "terminal"}
	wantTop := []string{"all_terminal", "entries", "max_wait_seconds", "pending", "poll_interval_seconds",
		"stopped_without_end", "timed_out", "unresolved_spawn", "unresolved_spawn_age_seconds"}
	for _, tc := range resultCases {
		t.Run(tc.name, func(t *testing.T) {
			res, _, _ := runAuto(t, tc.per, tc.ids, tc.opts)
			raw, err := json.Marshal(res)
			if err != nil {
				t.Fatal(err)
			}
			var top map[string]json.RawMessage
			if err := json.Unmarshal(raw, &top); err != nil {
				t.Fatal(err)
			}
			if got := keys(top); !slices.Equal(got, wantTop) {
				t.Errorf("top-level keys %q, want %q", got, wantTop)
			}
			for _, list := range []string{"pending", "stopped_without_end", "unresolved_spawn", "entries"} {
				if !bytes.HasPrefix(top[list], []byte("[")) {
					t.Errorf("%s = %s, want an array", list, top[list])
				}
			}
			var entries []map[string]json.RawMessage
			if err := json.Unmarshal(top["entries"], &entries); err != nil {
				t.Fatal(err)
			}
			if len(entries) != len(tc.ids) {
				t.Errorf("%d entries for %d requested ids", len(entries), len(tc.ids))
			}
			for i, e := range entries {
				if got := keys(e); !slices.Equal(got, wantEntry) {
					t.Errorf("entry %d keys %q, want %q", i, got, wantEntry)
				}
				isNull := string(e["error"]) == "null"
				if errored := res.Entries[i].Error != nil; isNull == errored {
					t.Errorf("entry %d (%s): error = %s; want null exactly when the id was observed", i, e["id"], e["error"])
				}
			}
		})
	}
}

func keys[V any](m map[string]V) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}
