package wait

import (
	"fmt"
	"sort"
)

// Outcome is what a run came to, as a caller acts on it: a closed set.
type Outcome string

const (
	OutcomeSucceeded Outcome = "succeeded"
	OutcomeFailed    Outcome = "failed"
	OutcomeCancelled Outcome = "cancelled"
	OutcomeNone      Outcome = "none"    // not terminal (or not observed): no outcome yet
	OutcomeUnknown   Outcome = "unknown" // terminal, but the table does not know the status
)

// OutcomeTable maps each terminal status of the fronted CLI to its outcome.
// Only [OutcomeSucceeded], [OutcomeFailed] and [OutcomeCancelled] may appear
// as values; [OutcomeTable.Validate] says which entry breaks that.
type OutcomeTable map[string]Outcome

// DefaultOutcomes returns the outcome table of the reference CLI, limcp:
// completed → succeeded; failed, timed_out, aborted → failed;
// cancelled → cancelled. Its non-terminal statuses (preparing, running) are
// absent on purpose: a non-terminal record always reads none. The table is a
// fresh copy; the caller may change it.
func DefaultOutcomes() OutcomeTable {
	return OutcomeTable{
		"completed": OutcomeSucceeded,
		"failed":    OutcomeFailed,
		"timed_out": OutcomeFailed,
		"aborted":   OutcomeFailed,
		"cancelled": OutcomeCancelled,
	}
}

// Outcome returns the outcome of o by these rules, in order:
//
//   - An observation with an error, or one not terminal, reads
//     [OutcomeNone], whatever its status says.
//   - A terminal observation whose status the table maps to succeeded,
//     failed or cancelled reads that outcome.
//   - Any other terminal observation (status absent from the table, or
//     mapped to a value outside those three) reads [OutcomeUnknown].
//
// So an unrecognised status can never read as success.
func (t OutcomeTable) Outcome(o Observation) Outcome {
	if o.Error != nil || !o.Terminal {
		return OutcomeNone
	}
	if v, ok := t[o.Status]; ok && terminalOutcome(v) {
		return v
	}
	return OutcomeUnknown
}

// Validate reports an error naming the first (in sorted status order) entry
// whose value is not succeeded, failed or cancelled. [Wait] refuses a table
// that does not validate rather than silently read those statuses as
// unknown.
func (t OutcomeTable) Validate() error {
	statuses := make([]string, 0, len(t))
	for s := range t {
		statuses = append(statuses, s)
	}
	sort.Strings(statuses)
	for _, s := range statuses {
		if !terminalOutcome(t[s]) {
			return fmt.Errorf("wait: outcome table: status %q maps to %q; a terminal status maps to %q, %q or %q",
				s, t[s], OutcomeSucceeded, OutcomeFailed, OutcomeCancelled)
		}
	}
	return nil
}

func terminalOutcome(v Outcome) bool {
	return v == OutcomeSucceeded || v == OutcomeFailed || v == OutcomeCancelled
}
