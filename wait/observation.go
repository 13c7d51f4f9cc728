package wait

import (
	"context"
	"time"
)

// Phase is how far a run's start has got, as the lifecycle store records it.
type Phase string

const (
	PhasePreparing  Phase = "preparing" // record written, no process yet
	PhaseStarted    Phase = "started"   // process running with its identity recorded
	PhaseUnrecorded Phase = ""          // the store has no phase for this record
)

// Evidence is what the process table says about a run's process.
type Evidence string

const (
	EvidenceAlive   Evidence = "alive"   // shown running (identity checked)
	EvidenceGone    Evidence = "gone"    // conclusively not running
	EvidenceUnknown Evidence = "unknown" // cannot tell; never treated as gone
)

// Observation is the lifecycle authority's view of one record at one moment.
// It is also the JSON shape of one entry of the "observations" that
// [CLIObserver] reads.
type Observation struct {
	ID               string    `json:"id"`                  // the id as the caller gave it
	RecordID         string    `json:"record_id,omitempty"` // the record's full id when ID is a prefix of it; empty when ID is already full
	Error            *IDError  `json:"error,omitempty"`     // set when the id could not be observed; every other field is then zero
	Kind             string    `json:"kind"`                // invocation, session, play, ...
	Label            string    `json:"label"`
	Status           string    `json:"status"`
	Terminal         bool      `json:"terminal"`
	ReasonCode       string    `json:"reason_code"`
	Phase            Phase     `json:"phase"`
	PhaseEnteredAt   time.Time `json:"phase_entered_at"`
	Process          Evidence  `json:"process"`
	EndRecorded      bool      `json:"end_recorded"`
	PublishFailed    bool      `json:"publish_failed"` // a conclusive finding (process gone) could not be written
	PossiblyOrphaned bool      `json:"possibly_orphaned"`
}

// IDError is a per-id observation failure.
type IDError struct {
	Code    string `json:"code"` // unknown_id, ambiguous_id
	Message string `json:"message"`
}

// Per-id error codes.
const (
	CodeUnknownID   = "unknown_id"
	CodeAmbiguousID = "ambiguous_id"
)

// Observer reports the lifecycle authority's observation of every id in one
// call: the result has one entry per requested id, in the same order. An id
// that cannot be observed gets an entry with Error set; an error return means
// the whole observation failed (nothing was learned this poll).
type Observer interface {
	Observe(ctx context.Context, ids []string) ([]Observation, error)
}
