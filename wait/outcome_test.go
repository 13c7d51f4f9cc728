package wait

import (
	"strings"
	"testing"
)

// TestDefaultOutcomes pins contract C8 row by row, and the rules around it.
func TestDefaultOutcomes(t *testing.T) {
	table := DefaultOutcomes()
	tests := []struct {
		name string
		obs  Observation
		want Outcome
	}{
		{"completed reads succeeded", Observation{Status: "completed", Terminal: true}, OutcomeSucceeded},
		{"failed reads failed", Observation{Status: "failed", Terminal: true}, OutcomeFailed},
		{"timed_out reads failed", Observation{Status: "timed_out", Terminal: true}, OutcomeFailed},
		{"aborted reads failed", Observation{Status: "aborted", Terminal: true}, OutcomeFailed},
		{"cancelled reads cancelled", Observation{Status: "cancelled", Terminal: true}, OutcomeCancelled},
		{"running reads none", Observation{Status: "running"}, OutcomeNone},
		{"preparing reads none", Observation{Status: "preparing"}, OutcomeNone},
		{"a terminal status the table does not know reads unknown", Observation{Status: "exploded", Terminal: true}, OutcomeUnknown},
		{"an empty terminal status reads unknown", Observation{Status: "", Terminal: true}, OutcomeUnknown},
		{"a non-terminal status marked terminal reads unknown", Observation{Status: "running", Terminal: true}, OutcomeUnknown},
		{"a status near a known one reads unknown", Observation{Status: "Completed", Terminal: true}, OutcomeUnknown},
		{"completed but not terminal reads none", Observation{Status: "completed"}, OutcomeNone},
		{"an errored id reads none", Observation{Status: "completed", Terminal: true, Error: &IDError{Code: CodeUnknownID}}, OutcomeNone},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := table.Outcome(tt.obs); got != tt.want {
				t.Errorf("Outcome(status %q, terminal %v) = %q, want %q", tt.obs.Status, tt.obs.Terminal, got, tt.want)
			}
		})
	}
}

// TestOutcomeNeverSucceedsUnlessTableSaysSo: over many statuses, only the
// one the table maps to succeeded reads succeeded.
func TestOutcomeNeverSucceedsUnlessTableSaysSo(t *testing.T) {
	table := DefaultOutcomes()
	for _, status := range []string{"", "ok", "success", "succeeded", "done", "COMPLETED", "completed ", "running", "preparing", "exit_0"} {
		if got := table.Outcome(Observation{Status: status, Terminal: true}); got == OutcomeSucceeded {
			t.Errorf("terminal status %q reads succeeded", status)
		}
	}
}

// TestOutcomeTableIsConfigurable: another CLI's table is honoured, and a
// value outside the terminal three never leaks out as an outcome.
func TestOutcomeTableIsConfigurable(t *testing.T) {
	table := OutcomeTable{"SUCCESS": OutcomeSucceeded, "ERROR": OutcomeFailed, "weird": OutcomeNone}
	if got := table.Outcome(Observation{Status: "SUCCESS", Terminal: true}); got != OutcomeSucceeded {
		t.Errorf("custom SUCCESS = %q, want succeeded", got)
	}
	if got := table.Outcome(Observation{Status: "completed", Terminal: true}); got != OutcomeUnknown {
		t.Errorf("limcp status under a custom table = %q, want unknown", got)
	}
	if got := table.Outcome(Observation{Status: "weird", Terminal: true}); got != OutcomeUnknown {
		t.Errorf("status mapped to none = %q, want unknown", got)
	}
}

func TestOutcomeTableValidate(t *testing.T) {
	if err := DefaultOutcomes().Validate(); err != nil {
		t.Errorf("limcp table: %v", err)
	}
	if err := (OutcomeTable{}).Validate(); err != nil {
		t.Errorf("empty table: %v", err)
	}
	for _, bad := range []Outcome{OutcomeNone, OutcomeUnknown, "success", ""} {
		err := OutcomeTable{"completed": OutcomeSucceeded, "zzz": bad}.Validate()
		if err == nil {
			t.Errorf("table mapping zzz to %q validated", bad)
			continue
		}
		if !strings.Contains(err.Error(), `status "zzz"`) || !strings.Contains(err.Error(), string(`"`+bad+`"`)) {
			t.Errorf("error %q does not name the status and its value", err)
		}
	}
}

func TestDefaultOutcomesIsAFreshCopy(t *testing.T) {
	a := DefaultOutcomes()
	a["completed"] = OutcomeFailed
	if DefaultOutcomes()["completed"] != OutcomeSucceeded {
		t.Error("changing one DefaultOutcomes() table changed another")
	}
}
