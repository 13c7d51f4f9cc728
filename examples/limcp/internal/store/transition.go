package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
)

// Errors of Transition, each wrapped in a *TransitionError carrying the
// record as it is.
var (
	ErrTerminal          = errors.New("terminal floor: the record is terminal and never changes")
	ErrConflict          = errors.New("version conflict: the record changed since it was read")
	ErrInvalidTransition = errors.New("transition not allowed")
)

// TransitionError is a refused transition.
type TransitionError struct {
	ID      string
	To      Status
	Err     error  // ErrTerminal, ErrConflict or ErrInvalidTransition
	Current Record // the record as it is now
}

func (e *TransitionError) Error() string {
	return fmt.Sprintf("store: record %s: %s → %s refused (version %d): %v", e.ID, e.Current.Status, e.To, e.Current.Version, e.Err)
}
func (e *TransitionError) Unwrap() error { return e.Err }

// Process is the identity a worker records when its run starts.
type Process struct {
	PID       int
	PGID      int
	StartTime uint64
}

// Change is one requested transition.
type Change struct {
	ID      string
	Version int64  // the version the caller read: the compare-and-set
	To      Status // the new status
	Reason  string // domain.status.cause, e.g. run.completed.exit_0
	Actor   string // who wrote it: worker, observer, kill, coordinator, ...

	// Process is recorded when moving to running (the phase becomes started).
	Process *Process
	// ExitCode is recorded with a terminal status when the run exited.
	ExitCode *int
	// Guard, when set, runs inside the transaction after the checks above
	// and before the write; an error from it aborts the change and is
	// returned as is. It lets a caller make the change conditional on other
	// rows atomically (a show completes only if none of its plays is open).
	Guard func(ctx context.Context, tx *sql.Tx) error
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

// TerminalHook is called after a terminal transition is durably committed,
// once per such transition, in the process that made it. It must not block
// for long; its failure never alters the transition.
type TerminalHook func(ctx context.Context, r Record)

// OnTerminal registers h to run after every terminal transition this Store
// commits. This is the one post-commit point for terminal notification.
func (s *Store) OnTerminal(h TerminalHook) {
	s.mu.Lock()
	s.hooks = append(s.hooks, h)
	s.mu.Unlock()
}

// Transition applies c: the one function through which every status change
// passes. See the package documentation for the rules and their order. On
// success it returns the record as written.
func (s *Store) Transition(ctx context.Context, c Change) (Record, error) {
	if c.Actor == "" {
		c.Actor = "cli"
	}
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return Record{}, s.wrap(err)
	}
	defer tx.Rollback()
	cur, err := s.get(ctx, tx, c.ID)
	if err != nil {
		return Record{}, err
	}
	switch {
	case cur.Status.Terminal():
		return Record{}, &TransitionError{ID: c.ID, To: c.To, Err: ErrTerminal, Current: cur}
	case cur.Version != c.Version:
		return Record{}, &TransitionError{ID: c.ID, To: c.To, Err: ErrConflict, Current: cur}
	case !legal(cur.Status, c.To):
		return Record{}, &TransitionError{ID: c.ID, To: c.To, Err: ErrInvalidTransition, Current: cur}
	}
	if c.Guard != nil {
		if err := c.Guard(ctx, tx); err != nil {
			return Record{}, err
		}
	}
	now := nanos(s.now())
	next := cur
	next.Status, next.Outcome, next.ReasonCode, next.Version = c.To, OutcomeOf(c.To), c.Reason, cur.Version+1
	next.UpdatedAt = fromNanos(now)
	if c.To == StatusRunning {
		next.Phase, next.PhaseEnteredAt, next.StartedAt = PhaseStarted, fromNanos(now), fromNanos(now)
		if c.Process != nil {
			next.PID, next.PGID, next.StartTime = c.Process.PID, c.Process.PGID, c.Process.StartTime
		}
	}
	if c.To.Terminal() {
		next.EndedAt = fromNanos(now)
		next.ExitCode = c.ExitCode
	}
	var exit any
	if next.ExitCode != nil {
		exit = *next.ExitCode
	}
	res, err := tx.ExecContext(ctx, `UPDATE records SET status = ?, outcome = ?, reason_code = ?, version = ?, updated_at = ?,
		phase = ?, phase_entered_at = ?, started_at = ?, pid = ?, pgid = ?, start_time = ?, ended_at = ?, exit_code = ?
		WHERE id = ? AND version = ? AND status IN ('preparing','running')`,
		string(next.Status), next.Outcome, next.ReasonCode, next.Version, now,
		next.Phase, nanos(next.PhaseEnteredAt), nanos(next.StartedAt), next.PID, next.PGID, int64(next.StartTime), nanos(next.EndedAt), exit,
		c.ID, cur.Version)
	if err != nil {
		return Record{}, s.wrap(err)
	}
	if n, _ := res.RowsAffected(); n != 1 {
		// Unreachable while the IMMEDIATE transaction holds the write lock;
		// kept so that a change to the locking can never turn into a silent
		// lost update.
		return Record{}, &TransitionError{ID: c.ID, To: c.To, Err: ErrConflict, Current: cur}
	}
	res, err = tx.ExecContext(ctx, `INSERT INTO transitions (record_id, from_status, to_status, from_version, to_version,
		reason_code, actor, at) VALUES (?,?,?,?,?,?,?,?)`,
		c.ID, string(cur.Status), string(c.To), cur.Version, next.Version, c.Reason, c.Actor, now)
	if err != nil {
		return Record{}, s.wrap(err)
	}
	if c.To.Terminal() && !cur.Notify.Empty() {
		// The pending notification is part of the transition: it commits
		// with it or not at all, so a recorded end is never left
		// unannounced by a crash between commit and delivery, and an end
		// that did not commit is never announced.
		seq, err := res.LastInsertId()
		if err != nil {
			return Record{}, s.wrap(err)
		}
		if err := insertDeliveries(ctx, tx, next, seq, now); err != nil {
			return Record{}, s.wrap(err)
		}
	}
	if err := tx.Commit(); err != nil {
		return Record{}, s.wrap(err)
	}
	// Post-commit point: the transition is durable from here on.
	if next.Status.Terminal() {
		s.afterTerminal(ctx, next)
	}
	return next, nil
}

func (s *Store) afterTerminal(ctx context.Context, r Record) {
	s.mu.Lock()
	hooks := append([]TerminalHook(nil), s.hooks...)
	s.mu.Unlock()
	ctx = context.WithoutCancel(ctx)
	for _, h := range hooks {
		func() {
			// A hook's panic must not turn a recorded transition into a
			// reported failure.
			defer func() { _ = recover() }()
			h(ctx, r)
		}()
	}
}

// ErrSkip is returned by a Guard to abort a change that is not wanted
// (rather than refused); Transition returns it unchanged.
var ErrSkip = errors.New("transition skipped by its guard")

// SettleShow completes the show id if none of its plays is still open. It
// is called after each play ends; the check and the write are one
// transaction, so of two plays ending together exactly one settles the show.
func (s *Store) SettleShow(ctx context.Context, id, actor string) (Record, bool, error) {
	show, err := s.Get(ctx, id)
	if err != nil || show.Kind != KindShow || show.Terminal() {
		return show, false, err
	}
	r, err := s.Transition(ctx, Change{
		ID: id, Version: show.Version, To: StatusCompleted, Reason: "show.completed.plays_ended", Actor: actor,
		Guard: func(ctx context.Context, tx *sql.Tx) error {
			var open int
			if err := tx.QueryRowContext(ctx, `SELECT count(*) FROM records WHERE parent = ? AND status IN ('preparing','running')`, id).Scan(&open); err != nil {
				return err
			}
			if open > 0 {
				return ErrSkip
			}
			return nil
		},
	})
	if errors.Is(err, ErrSkip) || errors.Is(err, ErrTerminal) || errors.Is(err, ErrConflict) {
		return show, false, nil
	}
	if err != nil {
		return show, false, err
	}
	return r, true, nil
}
