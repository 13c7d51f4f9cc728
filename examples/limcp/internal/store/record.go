package store

import (
	"encoding/json"
	"time"
)

// Kind is what a record is.
type Kind string

const (
	KindInvocation Kind = "invocation" // one agent run by a provider
	KindSession    Kind = "session"    // a fanout or a flow: coordinates invocations
	KindPlay       Kind = "play"       // a playbook run: owns one session
	KindShow       Kind = "show"       // a named group of plays; never killed as a whole
)

// Kinds lists every kind, in documentation order.
var Kinds = []Kind{KindInvocation, KindSession, KindPlay, KindShow}

// Status is a record's lifecycle status (contract C8).
type Status string

const (
	StatusPreparing Status = "preparing" // record written, no process yet
	StatusRunning   Status = "running"   // the process runs with its identity recorded
	StatusCompleted Status = "completed"
	StatusFailed    Status = "failed"
	StatusTimedOut  Status = "timed_out"
	StatusCancelled Status = "cancelled"
	StatusAborted   Status = "aborted"
)

// Statuses lists every status, non-terminal first.
var Statuses = []Status{StatusPreparing, StatusRunning, StatusCompleted, StatusFailed, StatusTimedOut, StatusCancelled, StatusAborted}

// Terminal reports whether s is a terminal status (a status in the C8 table
// other than preparing and running). An unknown status is treated as
// terminal: nothing may move a record out of a status this binary does not
// understand.
func (s Status) Terminal() bool {
	return s != StatusPreparing && s != StatusRunning
}

// Known reports whether s is in the C8 table.
func (s Status) Known() bool {
	for _, k := range Statuses {
		if s == k {
			return true
		}
	}
	return false
}

// Outcome values (contract C8).
const (
	OutcomeSucceeded = "succeeded"
	OutcomeFailed    = "failed"
	OutcomeCancelled = "cancelled"
	OutcomeNone      = "none"
	OutcomeUnknown   = "unknown"
)

// OutcomeOf maps a status to its outcome: completed → succeeded; failed,
// timed_out, aborted → failed; cancelled → cancelled; preparing and running
// → none; any other (terminal) status → unknown, so an unrecognised status
// never reads as success.
func OutcomeOf(s Status) string {
	switch s {
	case StatusCompleted:
		return OutcomeSucceeded
	case StatusFailed, StatusTimedOut, StatusAborted:
		return OutcomeFailed
	case StatusCancelled:
		return OutcomeCancelled
	case StatusPreparing, StatusRunning:
		return OutcomeNone
	}
	return OutcomeUnknown
}

// Phases of a run's start (the wait package's Phase values).
const (
	PhasePreparing  = "preparing" // record written, no process yet
	PhaseStarted    = "started"   // the worker runs with its identity recorded
	PhaseUnrecorded = ""          // shows: no process ever
)

// Record is one row of the records table.
type Record struct {
	ID             string
	Kind           Kind
	Parent         string // "" for a top-level record
	Label          string
	Team           string
	Status         Status
	Phase          string
	PhaseEnteredAt time.Time
	ReasonCode     string
	Outcome        string
	ExitCode       *int
	PID            int // the worker: a session and process-group leader, so PGID == PID
	PGID           int
	StartTime      uint64 // the process start time (procid.Identity: platform units), with PID the process identity
	CreatedAt      time.Time
	UpdatedAt      time.Time
	StartedAt      time.Time
	EndedAt        time.Time
	Version        int64
	Spec           json.RawMessage // what to run; its shape is the run package's
	// Notify is the terminal-notify setting fixed at submit (empty: none).
	// A terminal transition of a record with a setting records its pending
	// deliveries in the same transaction (see [Delivery]).
	Notify Notify
}

// Terminal reports whether the record's status is terminal.
func (r *Record) Terminal() bool { return r.Status.Terminal() }

// EndRecorded reports whether the record's end is recorded (it is terminal).
func (r *Record) EndRecorded() bool { return r.Status.Terminal() }

// RecordJSON is the machine-result shape of a record. Every key is always
// present; an absent value is null.
type RecordJSON struct {
	ID             string          `json:"id"`
	Kind           Kind            `json:"kind"`
	Parent         *string         `json:"parent"`
	Label          string          `json:"label"`
	Team           *string         `json:"team"`
	Status         Status          `json:"status"`
	Terminal       bool            `json:"terminal"`
	Phase          string          `json:"phase"`
	PhaseEnteredAt *time.Time      `json:"phase_entered_at"`
	ReasonCode     string          `json:"reason_code"`
	Outcome        string          `json:"outcome"`
	ExitCode       *int            `json:"exit_code"`
	PID            *int            `json:"pid"`
	PGID           *int            `json:"pgid"`
	StartTime      *uint64         `json:"start_time"`
	CreatedAt      time.Time       `json:"created_at"`
	UpdatedAt      time.Time       `json:"updated_at"`
	StartedAt      *time.Time      `json:"started_at"`
	EndedAt        *time.Time      `json:"ended_at"`
	Version        int64           `json:"version"`
	Spec           json.RawMessage `json:"spec"`
}

// JSON returns the machine-result view of r.
func (r *Record) JSON() RecordJSON {
	j := RecordJSON{
		ID: r.ID, Kind: r.Kind, Label: r.Label, Status: r.Status, Terminal: r.Terminal(),
		Phase: r.Phase, ReasonCode: r.ReasonCode, Outcome: OutcomeOf(r.Status), ExitCode: r.ExitCode,
		CreatedAt: r.CreatedAt.UTC(), UpdatedAt: r.UpdatedAt.UTC(), Version: r.Version, Spec: r.Spec,
	}
	if len(j.Spec) == 0 {
		j.Spec = json.RawMessage("{}")
	}
	if r.Parent != "" {
		p := r.Parent
		j.Parent = &p
	}
	if r.Team != "" {
		t := r.Team
		j.Team = &t
	}
	j.PhaseEnteredAt = timePtr(r.PhaseEnteredAt)
	j.StartedAt = timePtr(r.StartedAt)
	j.EndedAt = timePtr(r.EndedAt)
	if r.PID > 0 {
		p, g, s := r.PID, r.PGID, r.StartTime
		j.PID, j.PGID, j.StartTime = &p, &g, &s
	}
	return j
}

func timePtr(t time.Time) *time.Time {
	if t.IsZero() {
		return nil
	}
	u := t.UTC()
	return &u
}
