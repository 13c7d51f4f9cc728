package runs

import (
	"context"
	"errors"
	"fmt"
)

// Errors of a [Store]. A refused transition wraps one of the first three
// in a [*TransitionError].
var (
	ErrTerminal          = errors.New("terminal floor: the run has ended and its record never changes")
	ErrConflict          = errors.New("version conflict: the record changed since it was read")
	ErrInvalidTransition = errors.New("transition not allowed")
	ErrNotFound          = errors.New("no such run")
)

// TransitionError is a refused transition, with the record as it is now.
type TransitionError struct {
	ID      string
	To      Status
	Err     error // ErrTerminal, ErrConflict or ErrInvalidTransition
	Current Record
}

func (e *TransitionError) Error() string {
	return fmt.Sprintf("runs: run %s: %s → %s refused (version %d): %v", e.ID, e.Current.Status, e.To, e.Current.Version, e.Err)
}

func (e *TransitionError) Unwrap() error { return e.Err }

// Change is one requested transition.
type Change struct {
	ID      string
	Version int64  // the version the caller read: the compare-and-set
	To      Status // the new status
	Reason  string // run.completed.exit_0, run.aborted.process_gone, ...
	Actor   string // who wrote it: supervisor, observer, server

	// Process and Supervisor are recorded when moving to running.
	Process    *Identity
	Supervisor *Identity
	// ExitCode and Signal are recorded with a terminal status.
	ExitCode *int
	Signal   string
}

// New is what [Store.Create] records: a run in phase preparing.
type New struct {
	Verb string
	Spec []byte // what to run, JSON
	// Subject is the verified subject of the caller that started the
	// run; empty when the caller has none (stdio, a static token).
	Subject string
}

// ListOptions bound [Store.List].
type ListOptions struct {
	// Live lists only runs that have not ended.
	Live bool
	// Limit caps the runs listed, newest first (0: no cap).
	Limit int
	// Subject lists only the runs of that subject (empty: every run).
	Subject string
}

// Store is a lifecycle store of runs. Implementations are safe for
// concurrent use, by goroutines and by processes sharing the store.
type Store interface {
	// Create records a new run in phase preparing and returns it.
	Create(ctx context.Context, n New) (Record, error)
	// Get returns the run id; an error wrapping ErrNotFound when none.
	Get(ctx context.Context, id string) (Record, error)
	// List returns runs, newest first.
	List(ctx context.Context, o ListOptions) ([]Record, error)
	// CountLive counts the runs that have not ended: all of them when
	// subject is empty, else those of subject.
	CountLive(ctx context.Context, subject string) (int, error)
	// Transition applies c (see the package documentation for the rules
	// and their order) and returns the record as written.
	Transition(ctx context.Context, c Change) (Record, error)
	// RequestKill marks a run that has not ended as being killed and
	// returns it; a run that has ended is returned unchanged.
	RequestKill(ctx context.Context, id string) (Record, error)
	// RecordSupervisor records sup as the supervisor of run id, which
	// its starter has just started, while the run is still preparing: a
	// compare-and-set on the version the caller read, refused (as
	// [Store.Transition] refuses) with ErrTerminal once the run has
	// ended, ErrConflict when the version differs, and
	// ErrInvalidTransition once the run is running (its supervisor
	// recorded itself). An accepted write bumps the version, so an
	// observer that read the run before it (and judged it unsupervised)
	// cannot reap it.
	RecordSupervisor(ctx context.Context, id string, version int64, sup Identity) (Record, error)
	// Close releases the store.
	Close() error
}

// legal reports whether from → to is an edge of the lifecycle.
func legal(from, to Status) bool {
	if !to.Known() {
		return false
	}
	switch from {
	case StatusPreparing:
		return to != StatusPreparing
	case StatusRunning:
		return to.Terminal()
	}
	return false
}
