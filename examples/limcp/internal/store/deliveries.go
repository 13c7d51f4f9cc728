package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"
)

const deliveryColumns = `record_id, channel, transition_seq, record_version, state, attempts, max_attempts, last_error,
	claimant, created_at, attempted_at, next_at, lease_until, finished_at`

func scanDelivery(row scanner) (Delivery, error) {
	var (
		d                                         Delivery
		state                                     string
		created, attempted, next, lease, finished int64
	)
	err := row.Scan(&d.RecordID, &d.Channel, &d.TransitionSeq, &d.RecordVersion, &state, &d.Attempts, &d.MaxAttempts,
		&d.LastError, &d.Claimant, &created, &attempted, &next, &lease, &finished)
	if err != nil {
		return Delivery{}, err
	}
	d.State = DeliveryState(state)
	d.CreatedAt, d.AttemptedAt, d.NextAt = fromNanos(created), fromNanos(attempted), fromNanos(next)
	d.LeaseUntil, d.FinishedAt = fromNanos(lease), fromNanos(finished)
	return d, nil
}

// insertDeliveries records the pending deliveries of r's end, inside the
// transaction of the terminal transition (audit row seq).
func insertDeliveries(ctx context.Context, tx *sql.Tx, r Record, seq, now int64) error {
	max := r.Notify.MaxAttempts
	if max < 1 {
		max = 1
	}
	for _, ch := range r.Notify.Channels() {
		_, err := tx.ExecContext(ctx, `INSERT INTO deliveries (record_id, channel, transition_seq, record_version, state,
			max_attempts, created_at) VALUES (?,?,?,?,?,?,?)`, r.ID, ch, seq, r.Version, string(DeliveryPending), max, now)
		if err != nil {
			return fmt.Errorf("recording the pending %s notification of %s: %w", ch, r.ID, err)
		}
	}
	return nil
}

// Deliveries returns the deliveries of record id (none before it ends),
// by channel.
func (s *Store) Deliveries(ctx context.Context, id string) ([]Delivery, error) {
	return collect(ctx, s, scanDelivery, "SELECT "+deliveryColumns+" FROM deliveries WHERE record_id = ? ORDER BY channel", id)
}

func (s *Store) delivery(ctx context.Context, q querier, id, channel string) (Delivery, error) {
	d, err := scanDelivery(q.QueryRowContext(ctx, "SELECT "+deliveryColumns+" FROM deliveries WHERE record_id = ? AND channel = ?", id, channel))
	if errors.Is(err, sql.ErrNoRows) {
		return Delivery{}, fmt.Errorf("no %s delivery for record %s: %w", channel, id, ErrNotFound)
	}
	if err != nil {
		return Delivery{}, s.wrap(err)
	}
	return d, nil
}

// ClaimDelivery takes the next attempt of record id's delivery on channel
// for claimant, holding it for lease. It reports false, with the delivery
// as it is, when there is nothing to claim now, in this order:
//
//  1. the delivery is final (delivered or failed);
//  2. another claimant holds an attempt whose lease has not lapsed;
//  3. it is retrying and its retry time has not come.
//
// Otherwise the delivery is pending, retrying and due, or attempting under
// a lapsed lease (its claimant vanished mid-attempt: that attempt counts,
// and its loss is recorded as the last error). If no attempt remains it
// becomes failed and false is returned; else it moves to attempting with
// attempts + 1, and true is returned. The read and the write are one
// IMMEDIATE transaction and the write is conditional on the state read, so
// of any number of concurrent claimants exactly one wins.
func (s *Store) ClaimDelivery(ctx context.Context, id, channel, claimant string, lease time.Duration) (Delivery, bool, error) {
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return Delivery{}, false, s.wrap(err)
	}
	defer tx.Rollback()
	d, err := s.delivery(ctx, tx, id, channel)
	if err != nil {
		return Delivery{}, false, err
	}
	now := s.now()
	switch {
	case d.State.Final():
		return d, false, nil
	case d.State == DeliveryAttempting && now.Before(d.LeaseUntil):
		return d, false, nil
	case d.State == DeliveryRetrying && now.Before(d.NextAt):
		return d, false, nil
	}
	lastError := d.LastError
	if d.State == DeliveryAttempting {
		lastError = fmt.Sprintf("attempt %d lost: its delivery process (%s) stopped before recording an outcome", d.Attempts, d.Claimant)
	}
	n := nanos(now)
	if d.Attempts >= d.MaxAttempts {
		res, err := tx.ExecContext(ctx, `UPDATE deliveries SET state = ?, last_error = ?, lease_until = 0, next_at = 0, finished_at = ?
			WHERE record_id = ? AND channel = ? AND state = ? AND attempts = ?`,
			string(DeliveryFailed), lastError, n, id, channel, string(d.State), d.Attempts)
		if err != nil {
			return Delivery{}, false, s.wrap(err)
		}
		if k, _ := res.RowsAffected(); k == 1 {
			if err := tx.Commit(); err != nil {
				return Delivery{}, false, s.wrap(err)
			}
		}
		d, err = s.delivery(ctx, s.db, id, channel)
		return d, false, err
	}
	res, err := tx.ExecContext(ctx, `UPDATE deliveries SET state = ?, attempts = attempts + 1, claimant = ?, attempted_at = ?,
		lease_until = ?, next_at = 0, last_error = ?
		WHERE record_id = ? AND channel = ? AND state = ? AND attempts = ?`,
		string(DeliveryAttempting), claimant, n, nanos(now.Add(lease)), lastError, id, channel, string(d.State), d.Attempts)
	if err != nil {
		return Delivery{}, false, s.wrap(err)
	}
	if k, _ := res.RowsAffected(); k != 1 {
		// Unreachable while the IMMEDIATE transaction holds the write lock;
		// kept so a change to the locking cannot produce two claimants.
		return d, false, nil
	}
	claimed, err := s.delivery(ctx, tx, id, channel)
	if err != nil {
		return Delivery{}, false, err
	}
	if err := tx.Commit(); err != nil {
		return Delivery{}, false, s.wrap(err)
	}
	return claimed, true, nil
}

// Attempt is the outcome of one delivery attempt.
type Attempt struct {
	Delivered bool
	// Error says why the attempt failed (when not Delivered).
	Error string
	// RetryAfter is how long to wait before the next attempt, if one
	// remains.
	RetryAfter time.Duration
}

// RecordAttempt records the outcome of the attempt claimed (as returned by
// ClaimDelivery): delivered; or retrying after a.RetryAfter while attempts
// remain; or failed. It is conditional on the claim still being held (the
// same state, attempt number and claimant): a claimant whose lease lapsed
// and was taken over gets ErrClaimLost and its outcome is discarded.
func (s *Store) RecordAttempt(ctx context.Context, claimed Delivery, a Attempt) (Delivery, error) {
	now := s.now()
	state, lastError, next, finished := DeliveryDelivered, claimed.LastError, int64(0), nanos(now)
	if !a.Delivered {
		lastError = a.Error
		if lastError == "" {
			lastError = "failed (no reason given)"
		}
		if claimed.Attempts < claimed.MaxAttempts {
			state, next, finished = DeliveryRetrying, nanos(now.Add(a.RetryAfter)), 0
		} else {
			state = DeliveryFailed
		}
	}
	res, err := s.db.ExecContext(ctx, `UPDATE deliveries SET state = ?, last_error = ?, next_at = ?, lease_until = 0, finished_at = ?
		WHERE record_id = ? AND channel = ? AND state = ? AND attempts = ? AND claimant = ?`,
		string(state), lastError, next, finished, claimed.RecordID, claimed.Channel, string(DeliveryAttempting), claimed.Attempts, claimed.Claimant)
	if err != nil {
		return Delivery{}, s.wrap(err)
	}
	if k, _ := res.RowsAffected(); k != 1 {
		return Delivery{}, fmt.Errorf("record %s, %s delivery, attempt %d by %s: %w", claimed.RecordID, claimed.Channel, claimed.Attempts, claimed.Claimant, ErrClaimLost)
	}
	return s.delivery(ctx, s.db, claimed.RecordID, claimed.Channel)
}

// StaleDeliveries returns the ids of records (at most limit) with a
// delivery nobody is working on: pending for longer than grace (the
// process that committed the end did not start its delivery), retrying
// more than grace past its retry time (its delivery process died while
// waiting), or attempting under a lapsed lease (it died mid-attempt).
func (s *Store) StaleDeliveries(ctx context.Context, grace time.Duration, limit int) ([]string, error) {
	now := s.now()
	old := nanos(now.Add(-grace))
	return collect(ctx, s, scanString, `SELECT DISTINCT record_id FROM deliveries
		WHERE (state = 'pending' AND created_at < ?) OR (state = 'retrying' AND next_at < ?) OR (state = 'attempting' AND lease_until < ?)
		ORDER BY record_id LIMIT ?`, old, old, nanos(now), limit)
}
