package runs

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	_ "modernc.org/sqlite" // the database/sql driver "sqlite"
)

// File modes of the store: private to the server's user.
const (
	DirMode  os.FileMode = 0o700
	FileMode os.FileMode = 0o600
)

// StoreFile is the store's file name in its directory.
const StoreFile = "runs.db"

// BusyTimeout is how long a writer waits for another's lock.
const BusyTimeout = 10 * time.Second

const schema = `
CREATE TABLE IF NOT EXISTS runs (
	id               TEXT PRIMARY KEY,
	verb             TEXT NOT NULL,
	status           TEXT NOT NULL,
	phase            TEXT NOT NULL,
	phase_entered_at INTEGER NOT NULL,
	reason_code      TEXT NOT NULL DEFAULT '',
	outcome          TEXT NOT NULL,
	exit_code        INTEGER,
	signal           TEXT NOT NULL DEFAULT '',
	pid              INTEGER NOT NULL DEFAULT 0,
	start_time       INTEGER NOT NULL DEFAULT 0,
	sup_pid          INTEGER NOT NULL DEFAULT 0,
	sup_start_time   INTEGER NOT NULL DEFAULT 0,
	kill_requested   INTEGER NOT NULL DEFAULT 0,
	created_at       INTEGER NOT NULL,
	updated_at       INTEGER NOT NULL,
	started_at       INTEGER NOT NULL DEFAULT 0,
	ended_at         INTEGER NOT NULL DEFAULT 0,
	version          INTEGER NOT NULL,
	spec             TEXT NOT NULL,
	subject          TEXT NOT NULL DEFAULT ''
);
CREATE INDEX IF NOT EXISTS runs_created ON runs(created_at, id);
CREATE INDEX IF NOT EXISTS runs_status ON runs(status);
CREATE TABLE IF NOT EXISTS transitions (
	seq          INTEGER PRIMARY KEY AUTOINCREMENT,
	run_id       TEXT NOT NULL,
	from_status  TEXT NOT NULL,
	to_status    TEXT NOT NULL,
	from_version INTEGER NOT NULL,
	to_version   INTEGER NOT NULL,
	reason_code  TEXT NOT NULL,
	actor        TEXT NOT NULL,
	at           INTEGER NOT NULL
);
-- Defence in depth: Transition enforces these; the triggers make a write
-- that bypassed it fail too.
CREATE TRIGGER IF NOT EXISTS transitions_append_only_update BEFORE UPDATE ON transitions
BEGIN SELECT RAISE(ABORT, 'transitions are append-only'); END;
CREATE TRIGGER IF NOT EXISTS transitions_append_only_delete BEFORE DELETE ON transitions
BEGIN SELECT RAISE(ABORT, 'transitions are append-only'); END;
CREATE TRIGGER IF NOT EXISTS runs_terminal_floor BEFORE UPDATE ON runs
WHEN OLD.status NOT IN ('preparing', 'running')
BEGIN SELECT RAISE(ABORT, 'terminal floor: an ended run never changes'); END;
`

// SQLite is the [Store] in one SQLite file.
type SQLite struct {
	db   *sql.DB
	path string
	now  func() time.Time
}

var _ Store = (*SQLite)(nil)

// Open opens (creating when needed) the store in dir: dir is made 0700 and
// the store file 0600 before SQLite opens it, so its journal files are
// created 0600 too.
func Open(ctx context.Context, dir string) (*SQLite, error) {
	if err := PrivateDir(dir); err != nil {
		return nil, err
	}
	path := filepath.Join(dir, StoreFile)
	if strings.ContainsRune(path, '?') {
		return nil, fmt.Errorf("runs: store path %s may not contain '?'", path)
	}
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, FileMode)
	if err != nil {
		return nil, fmt.Errorf("runs: %w", err)
	}
	f.Close()
	for _, p := range []string{path, path + "-wal", path + "-shm"} {
		if err := os.Chmod(p, FileMode); err != nil && !errors.Is(err, os.ErrNotExist) {
			return nil, fmt.Errorf("runs: %w", err)
		}
	}
	dsn := fmt.Sprintf("%s?_busy_timeout=%d&_txlock=immediate&_synchronous=NORMAL", path, BusyTimeout.Milliseconds())
	db, err := sql.Open("sqlite", dsn)
	if err != nil {
		return nil, fmt.Errorf("runs: store %s: %w", path, err)
	}
	s := &SQLite{db: db, path: path, now: time.Now}
	if err := s.initialize(ctx); err != nil {
		db.Close()
		return nil, err
	}
	return s, nil
}

// initialize sets WAL mode and creates the schema. Concurrent first opens
// (a server and a supervisor) may meet a lock SQLite does not wait on, so
// a busy answer is retried until the busy timeout.
func (s *SQLite) initialize(ctx context.Context) error {
	deadline := time.Now().Add(BusyTimeout)
	for pause := time.Millisecond; ; pause = min(2*pause, 50*time.Millisecond) {
		_, err := s.db.ExecContext(ctx, "PRAGMA journal_mode=WAL")
		if err == nil {
			_, err = s.db.ExecContext(ctx, schema)
		}
		if err == nil {
			err = s.migrate(ctx)
		}
		if err == nil {
			return nil
		}
		if !busy(err) || time.Now().Add(pause).After(deadline) {
			return fmt.Errorf("runs: store %s: %w", s.path, err)
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(pause):
		}
	}
}

// migrate brings a store created by an older server up to the schema: a
// column added later is added, with the default every older row means
// (a run's subject: none recorded). It runs in one immediate
// transaction, so two processes opening the store at once cannot both
// add the column.
func (s *SQLite) migrate(ctx context.Context) error {
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	var n int
	if err := tx.QueryRowContext(ctx, "SELECT count(*) FROM pragma_table_info('runs') WHERE name = 'subject'").Scan(&n); err != nil {
		return err
	}
	if n == 0 {
		if _, err := tx.ExecContext(ctx, "ALTER TABLE runs ADD COLUMN subject TEXT NOT NULL DEFAULT ''"); err != nil {
			return err
		}
	}
	if _, err := tx.ExecContext(ctx, "CREATE INDEX IF NOT EXISTS runs_subject ON runs(subject, status)"); err != nil {
		return err
	}
	return tx.Commit()
}

func busy(err error) bool {
	m := err.Error()
	return strings.Contains(m, "SQLITE_BUSY") || strings.Contains(m, "database is locked")
}

// PrivateDir creates dir (0700) when missing and refuses one that is not
// a directory owned by this user with no permission for others.
func PrivateDir(dir string) error {
	if err := os.MkdirAll(dir, DirMode); err != nil {
		return fmt.Errorf("runs: %w", err)
	}
	fi, err := os.Stat(dir)
	if err != nil {
		return fmt.Errorf("runs: %w", err)
	}
	if !fi.IsDir() {
		return fmt.Errorf("runs: %s is not a directory", dir)
	}
	if perm := fi.Mode().Perm(); perm&0o077 != 0 {
		return fmt.Errorf("runs: directory %s has mode %04o; it must be private to you: chmod 700 %s", dir, perm, dir)
	}
	return nil
}

// Path is the store file.
func (s *SQLite) Path() string { return s.path }

// Close closes the database.
func (s *SQLite) Close() error { return s.db.Close() }

// newID is a run id: "r-" and 12 random hex digits.
func newID() (string, error) {
	var b [6]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", err
	}
	return "r-" + hex.EncodeToString(b[:]), nil
}

func nanos(t time.Time) int64 {
	if t.IsZero() {
		return 0
	}
	return t.UnixNano()
}

func fromNanos(n int64) time.Time {
	if n == 0 {
		return time.Time{}
	}
	return time.Unix(0, n).UTC()
}

// Create records a new run in phase preparing.
func (s *SQLite) Create(ctx context.Context, n New) (Record, error) {
	id, err := newID()
	if err != nil {
		return Record{}, fmt.Errorf("runs: new id: %w", err)
	}
	now := nanos(s.now())
	spec := n.Spec
	if len(spec) == 0 {
		spec = []byte("{}")
	}
	_, err = s.db.ExecContext(ctx, `INSERT INTO runs (id, verb, status, phase, phase_entered_at, outcome, created_at, updated_at, version, spec, subject)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, 1, ?, ?)`, id, n.Verb, StatusPreparing, PhasePreparing, now, OutcomeNone, now, now, string(spec), n.Subject)
	if err != nil {
		return Record{}, fmt.Errorf("runs: creating a run of %s: %w", n.Verb, err)
	}
	return s.Get(ctx, id)
}

const columns = `id, verb, status, phase, phase_entered_at, reason_code, outcome, exit_code, signal, pid, start_time,
	sup_pid, sup_start_time, kill_requested, created_at, updated_at, started_at, ended_at, version, spec, subject`

type scanner interface{ Scan(...any) error }

func scan(row scanner) (Record, error) {
	var r Record
	var entered, created, updated, started, ended int64
	var exit sql.NullInt64
	var start, supStart int64
	var spec string
	err := row.Scan(&r.ID, &r.Verb, &r.Status, &r.Phase, &entered, &r.ReasonCode, &r.Outcome, &exit, &r.Signal,
		&r.Process.PID, &start, &r.Supervisor.PID, &supStart, &r.KillRequested, &created, &updated, &started, &ended, &r.Version, &spec, &r.Subject)
	if err != nil {
		return Record{}, err
	}
	if exit.Valid {
		c := int(exit.Int64)
		r.ExitCode = &c
	}
	r.Process.StartTime, r.Supervisor.StartTime = uint64(start), uint64(supStart)
	r.PhaseEnteredAt, r.CreatedAt, r.UpdatedAt = fromNanos(entered), fromNanos(created), fromNanos(updated)
	r.StartedAt, r.EndedAt = fromNanos(started), fromNanos(ended)
	r.Spec = []byte(spec)
	return r, nil
}

type querier interface {
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
}

func get(ctx context.Context, q querier, id string) (Record, error) {
	r, err := scan(q.QueryRowContext(ctx, "SELECT "+columns+" FROM runs WHERE id = ?", id))
	if errors.Is(err, sql.ErrNoRows) {
		return Record{}, fmt.Errorf("runs: run %q: %w", id, ErrNotFound)
	}
	if err != nil {
		return Record{}, fmt.Errorf("runs: reading run %q: %w", id, err)
	}
	return r, nil
}

// Get returns the run id.
func (s *SQLite) Get(ctx context.Context, id string) (Record, error) { return get(ctx, s.db, id) }

// List returns runs, newest first.
func (s *SQLite) List(ctx context.Context, o ListOptions) ([]Record, error) {
	q := "SELECT " + columns + " FROM runs WHERE (? = '' OR subject = ?)"
	if o.Live {
		q += " AND status IN ('preparing', 'running')"
	}
	q += " ORDER BY created_at DESC, id DESC"
	if o.Limit > 0 {
		q += fmt.Sprintf(" LIMIT %d", o.Limit)
	}
	rows, err := s.db.QueryContext(ctx, q, o.Subject, o.Subject)
	if err != nil {
		return nil, fmt.Errorf("runs: listing: %w", err)
	}
	defer rows.Close()
	var out []Record
	for rows.Next() {
		r, err := scan(rows)
		if err != nil {
			return nil, fmt.Errorf("runs: listing: %w", err)
		}
		out = append(out, r)
	}
	return out, rows.Err()
}

// CountLive counts the runs that have not ended: all of them when subject
// is empty, else those of subject.
func (s *SQLite) CountLive(ctx context.Context, subject string) (int, error) {
	var n int
	if err := s.db.QueryRowContext(ctx, "SELECT count(*) FROM runs WHERE (? = '' OR subject = ?) AND status IN ('preparing', 'running')",
		subject, subject).Scan(&n); err != nil {
		return 0, fmt.Errorf("runs: counting live runs: %w", err)
	}
	return n, nil
}

// Transition applies c in one transaction: the checks of the package
// documentation, in order, then the write and its audit row.
func (s *SQLite) Transition(ctx context.Context, c Change) (Record, error) {
	if c.Actor == "" {
		c.Actor = "server"
	}
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return Record{}, fmt.Errorf("runs: %w", err)
	}
	defer tx.Rollback()
	cur, err := get(ctx, tx, c.ID)
	if err != nil {
		return Record{}, err
	}
	switch {
	case cur.Terminal():
		return Record{}, &TransitionError{ID: c.ID, To: c.To, Err: ErrTerminal, Current: cur}
	case cur.Version != c.Version:
		return Record{}, &TransitionError{ID: c.ID, To: c.To, Err: ErrConflict, Current: cur}
	case !legal(cur.Status, c.To):
		return Record{}, &TransitionError{ID: c.ID, To: c.To, Err: ErrInvalidTransition, Current: cur}
	}
	now := s.now()
	next := cur
	next.Status, next.Outcome, next.ReasonCode, next.Version, next.UpdatedAt = c.To, OutcomeOf(c.To), c.Reason, cur.Version+1, now
	if c.To == StatusRunning {
		next.Phase, next.PhaseEnteredAt, next.StartedAt = PhaseStarted, now, now
		if c.Process != nil {
			next.Process = *c.Process
		}
		if c.Supervisor != nil {
			next.Supervisor = *c.Supervisor
		}
	}
	if c.To.Terminal() {
		next.EndedAt, next.ExitCode, next.Signal = now, c.ExitCode, c.Signal
	}
	var exit any
	if next.ExitCode != nil {
		exit = *next.ExitCode
	}
	_, err = tx.ExecContext(ctx, `UPDATE runs SET status = ?, phase = ?, phase_entered_at = ?, reason_code = ?, outcome = ?,
		exit_code = ?, signal = ?, pid = ?, start_time = ?, sup_pid = ?, sup_start_time = ?, updated_at = ?, started_at = ?,
		ended_at = ?, version = ? WHERE id = ? AND version = ?`,
		next.Status, next.Phase, nanos(next.PhaseEnteredAt), next.ReasonCode, next.Outcome, exit, next.Signal,
		next.Process.PID, int64(next.Process.StartTime), next.Supervisor.PID, int64(next.Supervisor.StartTime),
		nanos(next.UpdatedAt), nanos(next.StartedAt), nanos(next.EndedAt), next.Version, c.ID, cur.Version)
	if err != nil {
		return Record{}, fmt.Errorf("runs: run %s: writing %s: %w", c.ID, c.To, err)
	}
	_, err = tx.ExecContext(ctx, `INSERT INTO transitions (run_id, from_status, to_status, from_version, to_version, reason_code, actor, at)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?)`, c.ID, cur.Status, c.To, cur.Version, next.Version, c.Reason, c.Actor, nanos(now))
	if err != nil {
		return Record{}, fmt.Errorf("runs: run %s: auditing %s: %w", c.ID, c.To, err)
	}
	if err := tx.Commit(); err != nil {
		return Record{}, fmt.Errorf("runs: run %s: committing %s: %w", c.ID, c.To, err)
	}
	return get(ctx, s.db, c.ID)
}

// RequestKill marks a live run as being killed. It bumps the version, so
// a writer holding an older read (the supervisor's end) re-reads and sees
// the mark.
func (s *SQLite) RequestKill(ctx context.Context, id string) (Record, error) {
	_, err := s.db.ExecContext(ctx, `UPDATE runs SET kill_requested = 1, version = version + 1, updated_at = ?
		WHERE id = ? AND status IN ('preparing', 'running')`, nanos(s.now()), id)
	if err != nil {
		return Record{}, fmt.Errorf("runs: run %s: recording the kill request: %w", id, err)
	}
	return s.Get(ctx, id)
}

// RecordSupervisor records the supervisor of a preparing run in one
// transaction: the checks of [Store.Transition] in its order (the terminal
// floor, the version, then the status, which must be preparing), then the
// write. It is not a transition, so the audit has no row for it.
func (s *SQLite) RecordSupervisor(ctx context.Context, id string, version int64, sup Identity) (Record, error) {
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return Record{}, fmt.Errorf("runs: %w", err)
	}
	defer tx.Rollback()
	cur, err := get(ctx, tx, id)
	if err != nil {
		return Record{}, err
	}
	switch {
	case cur.Terminal():
		return Record{}, &TransitionError{ID: id, To: StatusPreparing, Err: ErrTerminal, Current: cur}
	case cur.Version != version:
		return Record{}, &TransitionError{ID: id, To: StatusPreparing, Err: ErrConflict, Current: cur}
	case cur.Status != StatusPreparing:
		return Record{}, &TransitionError{ID: id, To: StatusPreparing, Err: ErrInvalidTransition, Current: cur}
	}
	_, err = tx.ExecContext(ctx, `UPDATE runs SET sup_pid = ?, sup_start_time = ?, version = version + 1, updated_at = ?
		WHERE id = ? AND version = ?`, sup.PID, int64(sup.StartTime), nanos(s.now()), id, version)
	if err != nil {
		return Record{}, fmt.Errorf("runs: run %s: recording its supervisor: %w", id, err)
	}
	if err := tx.Commit(); err != nil {
		return Record{}, fmt.Errorf("runs: run %s: recording its supervisor: %w", id, err)
	}
	return get(ctx, s.db, id)
}

// AuditEntry is one row of the transitions audit.
type AuditEntry struct {
	From, To    Status
	FromVersion int64
	ToVersion   int64
	Reason      string
	Actor       string
}

// Audit returns the transitions of run id, oldest first.
func (s *SQLite) Audit(ctx context.Context, id string) ([]AuditEntry, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT from_status, to_status, from_version, to_version, reason_code, actor
		FROM transitions WHERE run_id = ? ORDER BY seq`, id)
	if err != nil {
		return nil, fmt.Errorf("runs: audit of %s: %w", id, err)
	}
	defer rows.Close()
	var out []AuditEntry
	for rows.Next() {
		var a AuditEntry
		if err := rows.Scan(&a.From, &a.To, &a.FromVersion, &a.ToVersion, &a.Reason, &a.Actor); err != nil {
			return nil, err
		}
		out = append(out, a)
	}
	return out, rows.Err()
}
