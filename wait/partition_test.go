package wait

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// randomObservation draws an observation for id from every value each field
// can take, including values this package does not know and phase times
// around, at, before and after the threshold.
func randomObservation(r *rand.Rand, id string, now time.Time, threshold time.Duration) Observation {
	pick := func(n int) int { return r.IntN(n) }
	phases := []Phase{PhasePreparing, PhaseStarted, PhaseUnrecorded, "finishing"}
	evidence := []Evidence{EvidenceAlive, EvidenceGone, EvidenceUnknown, ""}
	statuses := []string{"preparing", "running", "completed", "failed", "timed_out", "cancelled", "aborted", "exploded", ""}
	var entered time.Time
	switch pick(5) {
	case 0: // zero: not recorded
	case 1:
		entered = now.Add(-threshold) // exactly at the threshold
	case 2:
		entered = now.Add(time.Duration(r.Int64N(int64(time.Minute)))) // in the future
	default:
		entered = now.Add(-time.Duration(r.Int64N(int64(3 * threshold))))
	}
	o := Observation{
		ID:               id,
		Kind:             []string{"invocation", "session", "play"}[pick(3)],
		Label:            fmt.Sprintf("label-%d", pick(10)),
		Status:           statuses[pick(len(statuses))],
		Terminal:         pick(3) == 0,
		ReasonCode:       "run.x.y",
		Phase:            phases[pick(len(phases))],
		PhaseEnteredAt:   entered,
		Process:          evidence[pick(len(evidence))],
		EndRecorded:      pick(2) == 0,
		PublishFailed:    pick(6) == 0,
		PossiblyOrphaned: pick(4) == 0,
	}
	if pick(8) == 0 {
		codes := []string{CodeUnknownID, CodeAmbiguousID}
		o = Observation{ID: id, Error: &IDError{Code: codes[pick(2)], Message: "cannot observe " + id}}
	}
	return o
}

// TestPartitionProperties draws thousands of observation lists, with
// per-id errors and duplicate ids, and checks the partition laws: the four
// sets are disjoint, together they hold exactly the ids observed without
// error, no errored id is in any of them, each id sits in the set Classify
// gives its first observation, and each list is distinct ids in order of
// first appearance.
func TestPartitionProperties(t *testing.T) {
	const cases = 5000
	const threshold = 30 * time.Second
	seed := uint64(time.Now().UnixNano())
	t.Logf("seed %d", seed)
	r := rand.New(rand.NewPCG(seed, 7))
	now := epoch
	for c := range cases {
		pool := 1 + r.IntN(12) // a small pool forces duplicates
		n := r.IntN(40)
		obs := make([]Observation, n)
		for i := range obs {
			obs[i] = randomObservation(r, fmt.Sprintf("id%d", r.IntN(pool)), now, threshold)
		}
		s := Partition(obs, now, threshold)
		if err := checkPartition(obs, s, now, threshold); err != nil {
			t.Fatalf("case %d (seed %d): %v\nobservations: %+v\nsets: %+v", c, seed, err, obs, s)
		}
	}
}

func checkPartition(obs []Observation, s Sets, now time.Time, threshold time.Duration) error {
	errored := map[string]bool{}
	var order []string
	first := map[string]Observation{}
	for _, o := range obs {
		if _, ok := first[o.ID]; !ok {
			first[o.ID] = o
			order = append(order, o.ID)
		}
		if o.Error != nil {
			errored[o.ID] = true
		}
	}
	where := map[string]Class{}
	for _, c := range Classes() {
		list := s.Of(c)
		if list == nil {
			return fmt.Errorf("Sets.Of(%q) is nil", c)
		}
		for _, id := range list {
			if prev, dup := where[id]; dup {
				return fmt.Errorf("id %q is in both %q and %q", id, prev, c)
			}
			where[id] = c
			if errored[id] {
				return fmt.Errorf("errored id %q is in %q", id, c)
			}
		}
	}
	var wantErrored []string
	for _, id := range order {
		if errored[id] {
			wantErrored = append(wantErrored, id)
			continue
		}
		got, ok := where[id]
		if !ok {
			return fmt.Errorf("id %q observed without error is in no set", id)
		}
		if want := Classify(first[id], now, threshold); got != want {
			return fmt.Errorf("id %q is in %q, Classify of its first observation says %q", id, got, want)
		}
	}
	if len(where) != len(order)-len(wantErrored) {
		return fmt.Errorf("sets hold %d ids, %d were observed without error", len(where), len(order)-len(wantErrored))
	}
	if !slices.Equal(s.Errored, wantErrored) && !(len(s.Errored) == 0 && len(wantErrored) == 0) {
		return fmt.Errorf("Errored = %q, want %q", s.Errored, wantErrored)
	}
	for _, c := range Classes() {
		var want []string
		for _, id := range order {
			if !errored[id] && where[id] == c {
				want = append(want, id)
			}
		}
		if got := s.Of(c); !slices.Equal(got, want) && !(len(got) == 0 && len(want) == 0) {
			return fmt.Errorf("%q = %q, want first-appearance order %q", c, got, want)
		}
	}
	return nil
}

// TestPartitionDuplicates pins the two duplicate rules with named cases.
func TestPartitionDuplicates(t *testing.T) {
	tests := []struct {
		name string
		obs  []Observation
		want Sets
	}{
		{
			name: "an id observed twice is listed once",
			obs:  []Observation{withID("a", running()), withID("a", running())},
			want: Sets{Pending: []string{"a"}},
		},
		{
			name: "an error in any observation of an id makes it errored",
			obs:  []Observation{withID("a", terminal("completed", "")), idErr("a", CodeAmbiguousID)},
			want: Sets{Errored: []string{"a"}},
		},
		{
			name: "the first observation of an id decides its class",
			obs:  []Observation{withID("a", goneNoEnd()), withID("a", running())},
			want: Sets{StoppedWithoutEnd: []string{"a"}},
		},
		{
			name: "lists keep order of first appearance",
			obs:  []Observation{withID("b", running()), withID("a", running()), withID("b", running())},
			want: Sets{Pending: []string{"b", "a"}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Partition(tt.obs, epoch, time.Minute)
			norm := func(s Sets) Sets {
				for _, p := range []*[]string{&s.Terminal, &s.Pending, &s.StoppedWithoutEnd, &s.UnresolvedSpawn, &s.Errored} {
					if *p == nil {
						*p = []string{}
					}
				}
				return s
			}
			if diff := cmp.Diff(norm(tt.want), got); diff != "" {
				t.Errorf("Partition (-want +got):\n%s", diff)
			}
		})
	}
}

// TestPartitionListsAreNeverNil: empty lists marshal as [], not null.
func TestPartitionListsAreNeverNil(t *testing.T) {
	s := Partition(nil, epoch, time.Minute)
	for name, l := range map[string][]string{"terminal": s.Terminal, "pending": s.Pending,
		"stopped_without_end": s.StoppedWithoutEnd, "unresolved_spawn": s.UnresolvedSpawn, "errored": s.Errored} {
		if l == nil {
			t.Errorf("%s list is nil", name)
		}
	}
}

func TestSetsOfUnknownClassIsNil(t *testing.T) {
	s := Partition([]Observation{withID("a", running())}, epoch, time.Minute)
	if got := s.Of("bogus"); got != nil {
		t.Errorf(`Of("bogus") = %q, want nil`, got)
	}
}

func withID(id string, o Observation) Observation { o.ID = id; return o }
