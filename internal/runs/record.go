package runs

import (
	"encoding/json"
	"time"
)

// Status is a run's lifecycle status.
type Status string

const (
	StatusPreparing Status = "preparing" // record written, no process yet
	StatusRunning   Status = "running"   // the process runs with its identity recorded
	StatusCompleted Status = "completed" // exited with one of the verb's ok exits
	StatusFailed    Status = "failed"    // another exit, a signal, output past its cap, or could not start
	StatusCancelled Status = "cancelled" // stopped by job.kill
	StatusAborted   Status = "aborted"   // the process is gone and no end was recorded (the fenced reap)
)

// Statuses lists every status, non-terminal first.
var Statuses = []Status{StatusPreparing, StatusRunning, StatusCompleted, StatusFailed, StatusCancelled, StatusAborted}

// Terminal reports whether s is terminal. An unknown status is terminal:
// nothing may move a record out of a status this binary does not know.
func (s Status) Terminal() bool { return s != StatusPreparing && s != StatusRunning }

// Known reports whether s is one of [Statuses].
func (s Status) Known() bool {
	for _, k := range Statuses {
		if s == k {
			return true
		}
	}
	return false
}

// Outcome values, as package wait names them.
const (
	OutcomeSucceeded = "succeeded"
	OutcomeFailed    = "failed"
	OutcomeCancelled = "cancelled"
	OutcomeNone      = "none"
	OutcomeUnknown   = "unknown"
)

// OutcomeOf maps a status to its outcome: completed → succeeded; failed and
// aborted → failed; cancelled → cancelled; preparing and running → none;
// anything else → unknown, so an unknown status never reads as success.
func OutcomeOf(s Status) string {
	switch s {
	case StatusCompleted:
		return OutcomeSucceeded
	case StatusFailed, StatusAborted:
		return OutcomeFailed
	case StatusCancelled:
		return OutcomeCancelled
	case StatusPreparing, StatusRunning:
		return OutcomeNone
	}
	return OutcomeUnknown
}

// Phases of a run's start (package wait's Phase values).
const (
	PhasePreparing = "preparing"
	PhaseStarted   = "started"
)

// Identity is one process for its whole life: pid and start time (in the
// platform's unit, compared for equality only). Zero values mean not
// recorded.
type Identity struct {
	PID       int    `json:"pid"`
	StartTime uint64 `json:"start_time"`
}

// Record is one run.
type Record struct {
	ID             string
	Verb           string
	Status         Status
	Phase          string
	PhaseEnteredAt time.Time
	ReasonCode     string
	Outcome        string
	ExitCode       *int   // recorded with the end when the process exited
	Signal         string // recorded with the end when it died of a signal ("terminated")
	// Process is the run's process, the leader of its own group (so its
	// pid is the group id); Supervisor the process that records the end.
	Process    Identity
	Supervisor Identity
	// KillRequested is set by a kill before it signals, so that the end
	// the kill causes is recorded as cancelled.
	KillRequested bool
	CreatedAt     time.Time
	UpdatedAt     time.Time
	StartedAt     time.Time
	EndedAt       time.Time
	Version       int64
	// Spec is what to run, in the front's own shape.
	Spec json.RawMessage
	// Subject is the verified subject of the caller that started the
	// run ("" when none: stdio, a static token).
	Subject string
}

// Terminal reports whether the record's status is terminal: its end is
// recorded.
func (r *Record) Terminal() bool { return r.Status.Terminal() }
