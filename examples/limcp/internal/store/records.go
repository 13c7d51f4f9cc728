package store

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"
)

// ErrNotFound: no record has the id.
var ErrNotFound = errors.New("record not found")

// recordColumns is the column list every record query selects, in scanRecord's order.
const recordColumns = `id, kind, parent, label, team, status, phase, phase_entered_at, reason_code, outcome,
	exit_code, pid, pgid, start_time, created_at, updated_at, started_at, ended_at, version, spec, notify`

type scanner interface{ Scan(dest ...any) error }

// collect runs a query and scans each row with scan. Every failure, of the
// query, a row or the iteration, is classified by s.wrap.
func collect[T any](ctx context.Context, s *Store, scan func(scanner) (T, error), query string, args ...any) ([]T, error) {
	rows, err := s.db.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, s.wrap(err)
	}
	defer rows.Close()
	var out []T
	for rows.Next() {
		v, err := scan(rows)
		if err != nil {
			return nil, s.wrap(err)
		}
		out = append(out, v)
	}
	if err := rows.Err(); err != nil {
		return nil, s.wrap(err)
	}
	return out, nil
}

// scanString scans a one-column row of text.
func scanString(row scanner) (string, error) {
	var v string
	err := row.Scan(&v)
	return v, err
}

func scanRecord(row scanner) (Record, error) {
	var (
		r                                       Record
		kind, status, spec, notify              string
		phaseAt, created, updated, started, end int64
		exit                                    sql.NullInt64
		start                                   int64
	)
	err := row.Scan(&r.ID, &kind, &r.Parent, &r.Label, &r.Team, &status, &r.Phase, &phaseAt, &r.ReasonCode, &r.Outcome,
		&exit, &r.PID, &r.PGID, &start, &created, &updated, &started, &end, &r.Version, &spec, &notify)
	if err != nil {
		return Record{}, err
	}
	if r.Notify, err = parseNotify(notify); err != nil {
		return Record{}, fmt.Errorf("record %s: notify setting: %w", r.ID, err)
	}
	r.Kind, r.Status, r.Spec = Kind(kind), Status(status), json.RawMessage(spec)
	r.StartTime = uint64(start)
	if exit.Valid {
		e := int(exit.Int64)
		r.ExitCode = &e
	}
	r.PhaseEnteredAt, r.CreatedAt, r.UpdatedAt = fromNanos(phaseAt), fromNanos(created), fromNanos(updated)
	r.StartedAt, r.EndedAt = fromNanos(started), fromNanos(end)
	return r, nil
}

func fromNanos(n int64) time.Time {
	if n == 0 {
		return time.Time{}
	}
	return time.Unix(0, n).UTC()
}

func nanos(t time.Time) int64 {
	if t.IsZero() {
		return 0
	}
	return t.UnixNano()
}

// NewID returns a fresh record id: 16 lowercase hex digits (64 random bits).
func NewID() string {
	var b [8]byte
	if _, err := rand.Read(b[:]); err != nil {
		panic("store: crypto/rand failed: " + err.Error())
	}
	return hex.EncodeToString(b[:])
}

// NewRecord is a record to create.
type NewRecord struct {
	ID     string // "" → NewID()
	Kind   Kind
	Parent string
	Label  string
	Team   string
	Spec   json.RawMessage
	Reason string // reason code of the creation row; "" → "run.preparing.submitted"
	// Notify is the record's terminal-notify setting (the zero value: none).
	// Records created for a run's parts (a play's session, a session's
	// invocations) are given their parent's setting by the run package.
	Notify Notify
}

// CreateOptions tune Create.
type CreateOptions struct {
	// Actor is recorded in the creation audit rows ("" → "cli").
	Actor string
	// Show, when set, makes the first record (a play) a child of the
	// open show with this label, creating the show if none is open. The
	// lookup and the inserts are one transaction, so a play never joins a
	// show that has just ended.
	Show string
}

// Create inserts recs in status preparing (each with its creation row in
// the audit) in one transaction and returns them as stored.
func (s *Store) Create(ctx context.Context, opts CreateOptions, recs ...NewRecord) ([]Record, error) {
	if opts.Actor == "" {
		opts.Actor = "cli"
	}
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return nil, s.wrap(err)
	}
	defer tx.Rollback()
	now := s.now()
	if opts.Show != "" && len(recs) > 0 {
		showID, err := s.openShow(ctx, tx, opts.Show, opts.Actor, now)
		if err != nil {
			return nil, err
		}
		recs[0].Parent = showID
	}
	ids := make([]string, len(recs))
	for i, nr := range recs {
		if nr.ID == "" {
			nr.ID = NewID()
		}
		ids[i] = nr.ID
		reason := nr.Reason
		if reason == "" {
			reason = "run.preparing.submitted"
		}
		if err := insertRecord(ctx, tx, nr, StatusPreparing, PhasePreparing, reason, opts.Actor, now); err != nil {
			return nil, s.wrap(err)
		}
	}
	if err := tx.Commit(); err != nil {
		return nil, s.wrap(err)
	}
	out := make([]Record, 0, len(ids))
	for _, id := range ids {
		r, err := s.Get(ctx, id)
		if err != nil {
			return nil, err
		}
		out = append(out, r)
	}
	return out, nil
}

// openShow returns the id of the non-terminal show labelled name, creating
// it (status running, no phase: a show never has a process) if none is open.
func (s *Store) openShow(ctx context.Context, tx *sql.Tx, name, actor string, now time.Time) (string, error) {
	var id string
	err := tx.QueryRowContext(ctx, `SELECT id FROM records WHERE kind = 'show' AND label = ? AND status IN ('preparing','running')
		ORDER BY created_at DESC LIMIT 1`, name).Scan(&id)
	if err == nil {
		return id, nil
	}
	if !errors.Is(err, sql.ErrNoRows) {
		return "", s.wrap(err)
	}
	nr := NewRecord{ID: NewID(), Kind: KindShow, Label: name, Spec: json.RawMessage(`{}`)}
	if err := insertRecord(ctx, tx, nr, StatusRunning, PhaseUnrecorded, "show.running.opened", actor, now); err != nil {
		return "", s.wrap(err)
	}
	return nr.ID, nil
}

func insertRecord(ctx context.Context, tx *sql.Tx, nr NewRecord, status Status, phase, reason, actor string, now time.Time) error {
	spec := string(nr.Spec)
	if spec == "" {
		spec = "{}"
	}
	n := nanos(now)
	phaseAt := n
	if phase == PhaseUnrecorded {
		phaseAt = 0
	}
	notify, err := nr.Notify.encode()
	if err != nil {
		return fmt.Errorf("record %s: %w", nr.ID, err)
	}
	_, err = tx.ExecContext(ctx, `INSERT INTO records (id, kind, parent, label, team, status, phase, phase_entered_at,
		reason_code, outcome, created_at, updated_at, version, spec, notify) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,1,?,?)`,
		nr.ID, string(nr.Kind), nr.Parent, nr.Label, nr.Team, string(status), phase, phaseAt, reason, OutcomeOf(status), n, n, spec, notify)
	if err != nil {
		return fmt.Errorf("inserting record %s: %w", nr.ID, err)
	}
	_, err = tx.ExecContext(ctx, `INSERT INTO transitions (record_id, from_status, to_status, from_version, to_version,
		reason_code, actor, at) VALUES (?, '', ?, 0, 1, ?, ?, ?)`, nr.ID, string(status), reason, actor, n)
	if err != nil {
		return fmt.Errorf("recording creation of %s: %w", nr.ID, err)
	}
	return nil
}

// Get returns the record with exactly this id, or an error wrapping ErrNotFound.
func (s *Store) Get(ctx context.Context, id string) (Record, error) {
	return s.get(ctx, s.db, id)
}

// querier is a *sql.DB or, inside a transaction, a *sql.Tx.
type querier interface {
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
}

func (s *Store) get(ctx context.Context, q querier, id string) (Record, error) {
	r, err := scanRecord(q.QueryRowContext(ctx, "SELECT "+recordColumns+" FROM records WHERE id = ?", id))
	if errors.Is(err, sql.ErrNoRows) {
		return Record{}, fmt.Errorf("record %s: %w", id, ErrNotFound)
	}
	if err != nil {
		return Record{}, s.wrap(err)
	}
	return r, nil
}

// MinPrefix is the shortest id prefix Resolve accepts.
const MinPrefix = 8

// IDError is an id that names no record or more than one.
type IDError struct {
	ID         string
	Ambiguous  bool
	Candidates []string // for an ambiguous prefix: up to MaxCandidates matching ids
	More       bool     // the prefix matches more ids than Candidates lists
	Reason     string
}

// MaxCandidates bounds the candidates an ambiguous prefix lists.
const MaxCandidates = 10

func (e *IDError) Error() string {
	if e.Ambiguous {
		more := ""
		if e.More {
			more = " and more"
		}
		return fmt.Sprintf("id prefix %q is ambiguous: it matches %s%s", e.ID, strings.Join(e.Candidates, ", "), more)
	}
	return fmt.Sprintf("no record has id %q%s", e.ID, e.Reason)
}

// Resolve finds the record named by a full id or a unique prefix of at
// least MinPrefix characters. It never picks among several matches: an
// ambiguous prefix is an *IDError listing the candidates.
func (s *Store) Resolve(ctx context.Context, id string) (Record, error) {
	key := strings.ToLower(strings.TrimSpace(id))
	if r, err := s.get(ctx, s.db, key); err == nil {
		return r, nil
	} else if !errors.Is(err, ErrNotFound) {
		return Record{}, err
	}
	if len(key) < MinPrefix {
		return Record{}, &IDError{ID: id, Reason: fmt.Sprintf(" (a prefix must have at least %d characters)", MinPrefix)}
	}
	for _, c := range key {
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f') {
			return Record{}, &IDError{ID: id, Reason: " (ids are lowercase hexadecimal)"}
		}
	}
	ids, err := collect(ctx, s, scanString, "SELECT id FROM records WHERE id >= ? AND id < ? ORDER BY id LIMIT ?",
		key, key+"~", MaxCandidates+1)
	if err != nil {
		return Record{}, err
	}
	switch len(ids) {
	case 0:
		return Record{}, &IDError{ID: id}
	case 1:
		return s.Get(ctx, ids[0])
	}
	more := len(ids) > MaxCandidates
	if more {
		ids = ids[:MaxCandidates]
	}
	return Record{}, &IDError{ID: id, Ambiguous: true, Candidates: ids, More: more}
}

// Children returns the records whose parent is id, oldest first.
func (s *Store) Children(ctx context.Context, id string) ([]Record, error) {
	return s.queryRecords(ctx, "SELECT "+recordColumns+" FROM records WHERE parent = ? ORDER BY created_at, id", id)
}

// Active returns every non-terminal record, oldest first.
func (s *Store) Active(ctx context.Context) ([]Record, error) {
	return s.queryRecords(ctx, "SELECT "+recordColumns+" FROM records WHERE status IN ('preparing','running') ORDER BY created_at, id")
}

func (s *Store) queryRecords(ctx context.Context, q string, args ...any) ([]Record, error) {
	return collect(ctx, s, scanRecord, q, args...)
}

// ListQuery selects a page of records, newest first.
type ListQuery struct {
	Kind   Kind   // "" for any
	Status Status // "" for any
	Limit  int    // 1..MaxListLimit; 0 → DefaultListLimit
	Cursor string // "" for the first page; else Page.NextCursor of the previous page
}

// List bounds.
const (
	DefaultListLimit = 50
	MaxListLimit     = 1000
)

// Page is one page of a listing.
type Page struct {
	Records    []Record
	NextCursor string // "" on the last page
}

// ErrBadCursor: the cursor was not produced by List.
var ErrBadCursor = errors.New("invalid cursor")

// List returns one page of records, newest first. The cursor is opaque: it
// encodes the position after the last record of the previous page, so
// records created meanwhile never shift a page.
func (s *Store) List(ctx context.Context, q ListQuery) (Page, error) {
	if q.Limit == 0 {
		q.Limit = DefaultListLimit
	}
	if q.Limit < 1 || q.Limit > MaxListLimit {
		return Page{}, fmt.Errorf("limit %d is out of range 1..%d", q.Limit, MaxListLimit)
	}
	var where []string
	var args []any
	if q.Kind != "" {
		where = append(where, "kind = ?")
		args = append(args, string(q.Kind))
	}
	if q.Status != "" {
		where = append(where, "status = ?")
		args = append(args, string(q.Status))
	}
	if q.Cursor != "" {
		at, id, err := decodeCursor(q.Cursor)
		if err != nil {
			return Page{}, err
		}
		where = append(where, "(created_at, id) < (?, ?)")
		args = append(args, at, id)
	}
	query := "SELECT " + recordColumns + " FROM records"
	if len(where) > 0 {
		query += " WHERE " + strings.Join(where, " AND ")
	}
	query += " ORDER BY created_at DESC, id DESC LIMIT ?"
	args = append(args, q.Limit+1)
	recs, err := s.queryRecords(ctx, query, args...)
	if err != nil {
		return Page{}, err
	}
	p := Page{Records: recs}
	if len(recs) > q.Limit {
		p.Records = recs[:q.Limit]
		last := p.Records[q.Limit-1]
		p.NextCursor = encodeCursor(nanos(last.CreatedAt), last.ID)
	}
	return p, nil
}

func encodeCursor(at int64, id string) string {
	return base64.RawURLEncoding.EncodeToString([]byte("c1:" + strconv.FormatInt(at, 10) + ":" + id))
}

func decodeCursor(c string) (int64, string, error) {
	b, err := base64.RawURLEncoding.DecodeString(c)
	if err != nil {
		return 0, "", fmt.Errorf("%w %q: not produced by job list", ErrBadCursor, c)
	}
	parts := strings.SplitN(string(b), ":", 3)
	if len(parts) != 3 || parts[0] != "c1" {
		return 0, "", fmt.Errorf("%w %q: not produced by job list", ErrBadCursor, c)
	}
	at, err := strconv.ParseInt(parts[1], 10, 64)
	if err != nil {
		return 0, "", fmt.Errorf("%w %q: not produced by job list", ErrBadCursor, c)
	}
	return at, parts[2], nil
}

// AuditRow is one row of the transitions table.
type AuditRow struct {
	Seq         int64     `json:"seq"`
	RecordID    string    `json:"record_id"`
	FromStatus  Status    `json:"from_status"`
	ToStatus    Status    `json:"to_status"`
	FromVersion int64     `json:"from_version"`
	ToVersion   int64     `json:"to_version"`
	ReasonCode  string    `json:"reason_code"`
	Actor       string    `json:"actor"`
	At          time.Time `json:"at"`
}

// Audit returns the transitions of one record ("" for all), in order.
func (s *Store) Audit(ctx context.Context, id string) ([]AuditRow, error) {
	q := "SELECT seq, record_id, from_status, to_status, from_version, to_version, reason_code, actor, at FROM transitions"
	var args []any
	if id != "" {
		q += " WHERE record_id = ?"
		args = append(args, id)
	}
	q += " ORDER BY seq"
	return collect(ctx, s, func(row scanner) (AuditRow, error) {
		var a AuditRow
		var from, to string
		var at int64
		err := row.Scan(&a.Seq, &a.RecordID, &from, &to, &a.FromVersion, &a.ToVersion, &a.ReasonCode, &a.Actor, &at)
		a.FromStatus, a.ToStatus, a.At = Status(from), Status(to), fromNanos(at)
		return a, err
	}, q, args...)
}
