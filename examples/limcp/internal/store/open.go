package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	sqlite "modernc.org/sqlite"
)

// Errors of opening a store. Each is wrapped in a *SchemaError or a
// *PathError naming the file.
var (
	ErrSchemaOutdated    = errors.New("store schema is older than this binary; run `limcp state migrate`")
	ErrSchemaUnsupported = errors.New("store schema is newer than this binary")
	ErrCorrupt           = errors.New("not a limcp store (not a SQLite database, or damaged)")
	ErrBusy              = errors.New("store is locked by another writer past the busy timeout")
)

// SchemaError says which store has which version.
type SchemaError struct {
	Path    string
	Version int
	Current int
	Err     error // ErrSchemaOutdated or ErrSchemaUnsupported
}

func (e *SchemaError) Error() string {
	return fmt.Sprintf("store %s: schema version %d, this binary uses %d: %v", e.Path, e.Version, e.Current, e.Err)
}
func (e *SchemaError) Unwrap() error { return e.Err }

// PathError is a failure tied to the store file.
type PathError struct {
	Path string
	Err  error
}

func (e *PathError) Error() string { return fmt.Sprintf("store %s: %v", e.Path, e.Err) }
func (e *PathError) Unwrap() error { return e.Err }

// BusyTimeout is how long a connection waits for a lock before giving up.
const BusyTimeout = 10 * time.Second

// Store is an open lifecycle store. It is safe for concurrent use.
type Store struct {
	db   *sql.DB
	path string

	mu    sync.Mutex
	hooks []TerminalHook

	now func() time.Time

	empty bool // Open's NoCreate stand-in, in memory
}

// Options tune Open. The zero value is right for the CLI.
type Options struct {
	// AllowOutdated opens a store whose schema is older than CurrentVersion
	// (for `state migrate` only; every other command refuses it).
	AllowOutdated bool
	// Now replaces the clock (tests).
	Now func() time.Time
	// BusyTimeout replaces the default BusyTimeout (tests that need a
	// write to fail fast on a held lock).
	BusyTimeout time.Duration
	// NoCreate: when no store file exists, open an empty store in memory
	// (at CurrentVersion) instead of creating one, so a command that only
	// reads writes nothing to disk: on an empty home, lists are empty and
	// ids unknown, and the home stays as it was (`limcp mcp --read-only`).
	NoCreate bool
}

// Open opens the store at path, creating the file (and its directory) at
// the current schema version when it does not exist or is empty. It does
// not migrate: an older store is an error wrapping [ErrSchemaOutdated].
func Open(ctx context.Context, path string, opts Options) (*Store, error) {
	if opts.NoCreate {
		if _, err := os.Lstat(path); errors.Is(err, os.ErrNotExist) {
			return openEmpty(ctx, path, opts)
		}
	}
	s, err := openDB(path, opts)
	if err != nil {
		return nil, err
	}
	v, err := s.versionOrInitialize(ctx, opts)
	if err != nil {
		s.Close()
		return nil, err
	}
	switch {
	case v > CurrentVersion:
		s.Close()
		return nil, &SchemaError{Path: path, Version: v, Current: CurrentVersion, Err: ErrSchemaUnsupported}
	case v < CurrentVersion && !opts.AllowOutdated:
		s.Close()
		return nil, &SchemaError{Path: path, Version: v, Current: CurrentVersion, Err: ErrSchemaOutdated}
	}
	return s, nil
}

// versionOrInitialize reads the schema version, creating the store at
// CurrentVersion when it is new. Concurrent first opens contend for locks
// SQLite will not wait on: two connections switching a new file to WAL, or
// a reader meeting that switch, get SQLITE_BUSY at once instead of through
// the busy handler (waiting could deadlock). So a busy answer here is
// retried, briefly, until the busy timeout; once the store exists, opens
// never take this path's write locks again.
func (s *Store) versionOrInitialize(ctx context.Context, opts Options) (int, error) {
	busy := BusyTimeout
	if opts.BusyTimeout > 0 {
		busy = opts.BusyTimeout
	}
	deadline := time.Now().Add(busy)
	for pause := time.Millisecond; ; pause = min(2*pause, 50*time.Millisecond) {
		v, err := s.version(ctx)
		if err == nil && v == 0 {
			v, err = s.initialize(ctx, CurrentVersion)
		}
		if !errors.Is(err, ErrBusy) || time.Now().Add(pause).After(deadline) {
			return v, err
		}
		select {
		case <-ctx.Done():
			return 0, s.wrap(ctx.Err())
		case <-time.After(pause):
		}
	}
}

// CreateAt creates a new store at path at schema version (1..CurrentVersion)
// and closes it. It exists for migration tests and tooling: an older store
// is built by the same migrations a real one went through.
func CreateAt(ctx context.Context, path string, version int) error {
	if version < 1 || version > CurrentVersion {
		return fmt.Errorf("store: cannot create at version %d (have 1..%d)", version, CurrentVersion)
	}
	s, err := openDB(path, Options{})
	if err != nil {
		return err
	}
	defer s.Close()
	v, err := s.version(ctx)
	if err != nil {
		return err
	}
	if v != 0 {
		return &PathError{Path: path, Err: fmt.Errorf("already exists at version %d", v)}
	}
	_, err = s.initialize(ctx, version)
	return err
}

// openEmpty is Open's NoCreate answer to a missing file: a fresh store in
// memory, on one connection (each connection to ":memory:" is a database of
// its own). Path still reports path, where the store would be.
func openEmpty(ctx context.Context, path string, opts Options) (*Store, error) {
	db, err := sql.Open("sqlite", ":memory:")
	if err != nil {
		return nil, &PathError{Path: path, Err: err}
	}
	db.SetMaxOpenConns(1)
	now := opts.Now
	if now == nil {
		now = time.Now
	}
	s := &Store{db: db, path: path, now: now, empty: true}
	if _, err := s.initialize(ctx, CurrentVersion); err != nil {
		db.Close()
		return nil, err
	}
	return s, nil
}

// Empty reports whether the store is Open's NoCreate stand-in for a store
// that does not exist yet.
func (s *Store) Empty() bool { return s.empty }

func openDB(path string, opts Options) (*Store, error) {
	if strings.ContainsRune(path, '?') {
		return nil, &PathError{Path: path, Err: errors.New("the store path may not contain '?'")}
	}
	if err := privateFiles(path); err != nil {
		return nil, &PathError{Path: path, Err: err}
	}
	busy := BusyTimeout
	if opts.BusyTimeout > 0 {
		busy = opts.BusyTimeout
	}
	dsn := fmt.Sprintf("%s?_busy_timeout=%d&_txlock=immediate&_synchronous=NORMAL", path, busy.Milliseconds())
	db, err := sql.Open("sqlite", dsn)
	if err != nil {
		return nil, &PathError{Path: path, Err: err}
	}
	now := opts.Now
	if now == nil {
		now = time.Now
	}
	return &Store{db: db, path: path, now: now}, nil
}

// Path returns the store file's path.
func (s *Store) Path() string { return s.path }

// DB exposes the database handle for read-only diagnostics (state doctor,
// tests). Writes must go through this package's functions.
func (s *Store) DB() *sql.DB { return s.db }

// Close closes the database.
func (s *Store) Close() error { return s.db.Close() }

// Version returns the store's schema version.
func (s *Store) Version(ctx context.Context) (int, error) { return s.version(ctx) }

func (s *Store) version(ctx context.Context) (int, error) {
	// One statement, so both are read from one snapshot: read separately, a
	// concurrent first open could commit the schema between them, and this
	// opener would see version 0 and then the new tables, and call a
	// healthy store somebody else's database.
	var v, n int
	if err := s.db.QueryRowContext(ctx,
		"SELECT (SELECT user_version FROM pragma_user_version), (SELECT count(*) FROM sqlite_master)").Scan(&v, &n); err != nil {
		return 0, s.wrap(err)
	}
	if v == 0 && n > 0 {
		// A version-0 file is new only if it holds nothing; a SQLite file
		// with tables of its own is somebody else's database.
		return 0, &PathError{Path: s.path, Err: fmt.Errorf("%w: it is a SQLite database holding %d schema objects but no limcp schema version", ErrCorrupt, n)}
	}
	return v, nil
}

// initialize brings a new (version 0) store to version target. Concurrent
// first opens race here; the IMMEDIATE transaction serialises them and the
// re-check inside it makes the losers no-ops.
func (s *Store) initialize(ctx context.Context, target int) (int, error) {
	// journal_mode is persistent in the file and cannot change inside a
	// transaction, so it is set first; a racing opener doing the same is
	// harmless.
	var mode string
	if err := s.db.QueryRowContext(ctx, "PRAGMA journal_mode=WAL").Scan(&mode); err != nil {
		return 0, s.wrap(err)
	}
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return 0, s.wrap(err)
	}
	defer tx.Rollback()
	var v int
	if err := tx.QueryRowContext(ctx, "PRAGMA user_version").Scan(&v); err != nil {
		return 0, s.wrap(err)
	}
	if v != 0 {
		return v, nil
	}
	for i := 0; i < target; i++ {
		if _, err := tx.ExecContext(ctx, migrations[i]); err != nil {
			return 0, s.wrap(fmt.Errorf("creating schema version %d: %w", i+1, err))
		}
	}
	if _, err := tx.ExecContext(ctx, fmt.Sprintf("PRAGMA user_version = %d", target)); err != nil {
		return 0, s.wrap(err)
	}
	if err := tx.Commit(); err != nil {
		return 0, s.wrap(err)
	}
	return target, nil
}

// Migrate brings the store to CurrentVersion, returning the version it
// had. It is idempotent; a store already current is left alone.
func (s *Store) Migrate(ctx context.Context) (from, to int, err error) {
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return 0, 0, s.wrap(err)
	}
	defer tx.Rollback()
	if err := tx.QueryRowContext(ctx, "PRAGMA user_version").Scan(&from); err != nil {
		return 0, 0, s.wrap(err)
	}
	if from > CurrentVersion {
		return from, from, &SchemaError{Path: s.path, Version: from, Current: CurrentVersion, Err: ErrSchemaUnsupported}
	}
	for i := from; i < CurrentVersion; i++ {
		if _, err := tx.ExecContext(ctx, migrations[i]); err != nil {
			return from, from, s.wrap(fmt.Errorf("migrating to version %d: %w", i+1, err))
		}
	}
	if _, err := tx.ExecContext(ctx, fmt.Sprintf("PRAGMA user_version = %d", CurrentVersion)); err != nil {
		return from, from, s.wrap(err)
	}
	if err := tx.Commit(); err != nil {
		return from, from, s.wrap(err)
	}
	return from, CurrentVersion, nil
}

// SQLite primary result codes this package classifies.
const (
	sqliteBusy    = 5
	sqliteLocked  = 6
	sqliteCorrupt = 11
	sqliteNotADB  = 26
)

// wrap classifies a driver error: not-a-database and corruption become
// ErrCorrupt, lock timeouts ErrBusy; everything is tied to the path.
func (s *Store) wrap(err error) error {
	if err == nil {
		return nil
	}
	var pe *PathError
	if errors.As(err, &pe) {
		return err
	}
	var se *sqlite.Error
	if errors.As(err, &se) {
		switch se.Code() & 0xff {
		case sqliteNotADB, sqliteCorrupt:
			return &PathError{Path: s.path, Err: fmt.Errorf("%w: %v", ErrCorrupt, err)}
		case sqliteBusy, sqliteLocked:
			return &PathError{Path: s.path, Err: fmt.Errorf("%w: %v", ErrBusy, err)}
		}
	}
	return &PathError{Path: s.path, Err: err}
}

// Modes of the state home and of the store's files. They are set
// explicitly, never left to the umask: the store and the runs hold prompts,
// outputs and notify targets that are the user's alone.
const (
	DirMode  os.FileMode = 0o700
	FileMode os.FileMode = 0o600
)

// privateFiles makes the store's directory (the state home) 0700 and the
// store file 0600 before SQLite opens it, creating both when missing, and
// tightens an existing home, store, WAL and shared-memory file that are
// wider. SQLite gives the WAL and -shm files it creates the store file's
// mode, so a private store file keeps them private too.
func privateFiles(path string) error {
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, DirMode); err != nil {
		return err
	}
	// The home itself, through a symlink if the operator made one.
	if real, err := filepath.EvalSymlinks(dir); err == nil {
		if err := tighten(real, DirMode); err != nil {
			return err
		}
	}
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, FileMode)
	if err != nil {
		return err
	}
	f.Close()
	for _, p := range []string{path, path + "-wal", path + "-shm"} {
		if err := tighten(p, FileMode); err != nil && !errors.Is(err, os.ErrNotExist) {
			return err
		}
	}
	return nil
}

// tighten removes every permission bit of path beyond mode (it never adds
// one) without following a symlink's target into someone else's file.
func tighten(path string, mode os.FileMode) error {
	fi, err := os.Lstat(path)
	if err != nil {
		return err
	}
	if fi.Mode()&os.ModeSymlink != 0 {
		return nil
	}
	if perm := fi.Mode().Perm(); perm&^mode != 0 {
		return os.Chmod(path, perm&mode)
	}
	return nil
}
