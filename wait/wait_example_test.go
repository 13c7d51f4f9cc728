package wait_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"slices"
	"sync"
	"time"

	"github.com/verbsurface/verbsurface/wait"
)

// store is a toy lifecycle authority: each id has a list of observations,
// one per Observe call, the last repeating. A real Observer runs the CLI's
// `job observe --json` once per call.
type store struct {
	mu    sync.Mutex
	calls int
	runs  map[string][]wait.Observation
}

func (s *store) Observe(ctx context.Context, ids []string) ([]wait.Observation, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.calls++
	out := make([]wait.Observation, len(ids))
	for i, id := range ids {
		seq, ok := s.runs[id]
		if !ok {
			out[i] = wait.Observation{ID: id, Error: &wait.IDError{Code: wait.CodeUnknownID, Message: "no run " + id}}
			continue
		}
		out[i] = seq[min(s.calls, len(seq))-1]
		out[i].ID = id
	}
	return out, nil
}

var hourAgo = time.Now().Add(-time.Hour)

func runningRun() wait.Observation {
	return wait.Observation{Kind: "invocation", Label: "build", Status: "running",
		Phase: wait.PhaseStarted, PhaseEnteredAt: hourAgo, Process: wait.EvidenceAlive}
}

func endedRun(status, reason string) wait.Observation {
	return wait.Observation{Kind: "invocation", Label: "build", Status: status, Terminal: true, ReasonCode: reason,
		Phase: wait.PhaseStarted, PhaseEnteredAt: hourAgo, Process: wait.EvidenceGone, EndRecorded: true}
}

// Example_callerLoop is an agent's loop over job.wait: wait, act on each of
// the four lists, and wait again only while something is pending.
func Example_callerLoop() {
	lifecycle := &store{runs: map[string][]wait.Observation{
		"build": {runningRun(), runningRun(), endedRun("completed", "run.completed.exit_0")},
		"lint":  {endedRun("failed", "run.failed.exit_nonzero")},
		"deploy": {{Kind: "invocation", Label: "deploy", Status: "running",
			Phase: wait.PhaseStarted, PhaseEnteredAt: hourAgo, Process: wait.EvidenceGone}},
		"agent": {{Kind: "session", Label: "agent", Status: "preparing",
			Phase: wait.PhasePreparing, PhaseEnteredAt: hourAgo, Process: wait.EvidenceUnknown}},
	}}
	ids := []string{"build", "lint", "deploy", "agent", "typo"}
	opts := wait.Options{MaxWait: wait.Seconds(0.5), PollInterval: wait.Seconds(0.05)}

	disposition := map[string]string{}
	for len(ids) > 0 {
		res, err := wait.Wait(context.Background(), lifecycle, ids, &opts)
		if err != nil {
			fmt.Println("cannot observe:", err) // the authority could not be read; try later
			return
		}
		for _, e := range res.Entries {
			switch {
			case e.Error != nil:
				disposition[e.ID] = "cannot be observed: " + e.Error.Code
			case e.Terminal: // the terminal list: act on the outcome, never on the status name
				disposition[e.ID] = fmt.Sprintf("finished: %s (%s)", e.Outcome, e.ReasonCode)
			}
		}
		for _, id := range res.StoppedWithoutEnd {
			disposition[id] = "stopped without an end: inspect it, or kill it"
		}
		for _, id := range res.UnresolvedSpawn {
			disposition[id] = "never got a process: resubmit"
		}
		// Only pending ids can still change by waiting; the floor keeps
		// this loop from spinning even if it waited on everything again.
		ids = res.Pending
	}

	names := make([]string, 0, len(disposition))
	for id := range disposition {
		names = append(names, id)
	}
	slices.Sort(names)
	for _, id := range names {
		fmt.Printf("%s: %s\n", id, disposition[id])
	}
	// Output:
	// agent: never got a process: resubmit
	// build: finished: succeeded (run.completed.exit_0)
	// deploy: stopped without an end: inspect it, or kill it
	// lint: finished: failed (run.failed.exit_nonzero)
	// typo: cannot be observed: unknown_id
}

// ExampleWait waits with the default options (25 s window, 1 s poll); the
// runs are already finished, so it returns after one observation.
func ExampleWait() {
	lifecycle := &store{runs: map[string][]wait.Observation{
		"r1": {endedRun("completed", "run.completed.exit_0")},
		"r2": {endedRun("cancelled", "run.cancelled.manual_kill")},
	}}
	res, err := wait.Wait(context.Background(), lifecycle, []string{"r1", "r2"}, &wait.Options{})
	if err != nil {
		fmt.Println(err)
		return
	}
	enc := json.NewEncoder(os.Stdout)
	enc.SetIndent("", "  ")
	enc.Encode(map[string]any{
		"all_terminal":          res.AllTerminal,
		"outcomes":              []wait.Outcome{res.Entries[0].Outcome, res.Entries[1].Outcome},
		"max_wait_seconds":      res.MaxWaitSeconds,
		"poll_interval_seconds": res.PollIntervalSeconds,
		"observations":          lifecycle.calls,
	})
	// Output:
	// {
	//   "all_terminal": true,
	//   "max_wait_seconds": 25,
	//   "observations": 1,
	//   "outcomes": [
	//     "succeeded",
	//     "cancelled"
	//   ],
	//   "poll_interval_seconds": 1
	// }
}

// ExampleWait_snapshot takes a snapshot: one observation, no waiting, even
// though a run is still going.
func ExampleWait_snapshot() {
	lifecycle := &store{runs: map[string][]wait.Observation{"r1": {runningRun()}}}
	res, _ := wait.Wait(context.Background(), lifecycle, []string{"r1"}, &wait.Options{MaxWait: wait.Seconds(0)})
	fmt.Println("pending:", res.Pending, "timed_out:", res.TimedOut, "observations:", lifecycle.calls)
	// Output:
	// pending: [r1] timed_out: true observations: 1
}

// ExampleClassify shows one observation per class.
func ExampleClassify() {
	now := time.Date(2025, 3, 1, 12, 0, 0, 0, time.UTC)
	threshold := wait.DefaultPreparingThreshold
	for _, o := range []wait.Observation{
		{Status: "completed", Terminal: true},
		{Status: "running", Phase: wait.PhaseStarted, Process: wait.EvidenceAlive},
		{Status: "running", Phase: wait.PhaseStarted, Process: wait.EvidenceGone},
		{Status: "running", Phase: wait.PhaseStarted, Process: wait.EvidenceUnknown},
		{Status: "preparing", Phase: wait.PhasePreparing, PhaseEnteredAt: now.Add(-5 * time.Second)},
		{Status: "preparing", Phase: wait.PhasePreparing, PhaseEnteredAt: now.Add(-5 * time.Minute)},
	} {
		fmt.Printf("%-9s %-9s %-7s -> %s\n", o.Status, o.Phase, o.Process, wait.Classify(o, now, threshold))
	}
	// Output:
	// completed                   -> terminal
	// running   started   alive   -> pending
	// running   started   gone    -> stopped_without_end
	// running   started   unknown -> stopped_without_end
	// preparing preparing         -> pending
	// preparing preparing         -> unresolved_spawn
}

// ExamplePartition splits observations into the four sets; the id that
// could not be observed is in none of them.
func ExamplePartition() {
	now := time.Now()
	s := wait.Partition([]wait.Observation{
		{ID: "a", Terminal: true, Status: "completed"},
		{ID: "b", Phase: wait.PhaseStarted, Process: wait.EvidenceAlive},
		{ID: "c", Phase: wait.PhasePreparing, PhaseEnteredAt: now.Add(-time.Hour)},
		{ID: "d", Error: &wait.IDError{Code: wait.CodeAmbiguousID}},
	}, now, wait.DefaultPreparingThreshold)
	for _, c := range wait.Classes() {
		fmt.Println(c, s.Of(c))
	}
	fmt.Println("errored", s.Errored)
	// Output:
	// terminal [a]
	// pending [b]
	// stopped_without_end []
	// unresolved_spawn [c]
	// errored [d]
}

// ExampleOutcomeTable_Outcome: an unrecognised terminal status reads
// unknown, never succeeded.
func ExampleOutcomeTable_Outcome() {
	table := wait.DefaultOutcomes()
	for _, status := range []string{"completed", "timed_out", "vanished"} {
		fmt.Println(status, "->", table.Outcome(wait.Observation{Status: status, Terminal: true}))
	}
	fmt.Println("running ->", table.Outcome(wait.Observation{Status: "running"}))
	// Output:
	// completed -> succeeded
	// timed_out -> failed
	// vanished -> unknown
	// running -> none
}
