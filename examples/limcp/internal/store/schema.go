package store

// CurrentVersion is the schema version this binary writes (PRAGMA
// user_version). A store at a lower version is refused until migrated.
const CurrentVersion = 3

// migrations[i] takes a store from version i to version i+1. They only ever
// grow: a released migration is never edited, so a store migrated by one
// binary is the same store a newer binary would have created.
var migrations = []string{
	// 0 → 1: records, the audit, schedules, team boards.
	`
CREATE TABLE records (
	id               TEXT PRIMARY KEY,
	kind             TEXT NOT NULL,
	parent           TEXT NOT NULL DEFAULT '',
	label            TEXT NOT NULL DEFAULT '',
	team             TEXT NOT NULL DEFAULT '',
	status           TEXT NOT NULL,
	phase            TEXT NOT NULL DEFAULT '',
	phase_entered_at INTEGER NOT NULL DEFAULT 0,
	reason_code      TEXT NOT NULL DEFAULT '',
	outcome          TEXT NOT NULL,
	exit_code        INTEGER,
	pid              INTEGER NOT NULL DEFAULT 0,
	pgid             INTEGER NOT NULL DEFAULT 0,
	start_time       INTEGER NOT NULL DEFAULT 0,
	created_at       INTEGER NOT NULL,
	updated_at       INTEGER NOT NULL,
	started_at       INTEGER NOT NULL DEFAULT 0,
	ended_at         INTEGER NOT NULL DEFAULT 0,
	version          INTEGER NOT NULL,
	spec             TEXT NOT NULL DEFAULT '{}'
);
CREATE INDEX records_created ON records(created_at, id);
CREATE INDEX records_parent ON records(parent, created_at);
CREATE INDEX records_status ON records(status, created_at);

CREATE TABLE transitions (
	seq          INTEGER PRIMARY KEY AUTOINCREMENT,
	record_id    TEXT NOT NULL,
	from_status  TEXT NOT NULL,
	to_status    TEXT NOT NULL,
	from_version INTEGER NOT NULL,
	to_version   INTEGER NOT NULL,
	reason_code  TEXT NOT NULL,
	actor        TEXT NOT NULL,
	at           INTEGER NOT NULL
);
CREATE INDEX transitions_record ON transitions(record_id, seq);

-- Defence in depth: the transition function already enforces these; the
-- triggers make a write that bypassed it fail too.
CREATE TRIGGER transitions_append_only_update BEFORE UPDATE ON transitions
BEGIN SELECT RAISE(ABORT, 'transitions are append-only'); END;
CREATE TRIGGER transitions_append_only_delete BEFORE DELETE ON transitions
BEGIN SELECT RAISE(ABORT, 'transitions are append-only'); END;
CREATE TRIGGER records_terminal_floor BEFORE UPDATE ON records
WHEN OLD.status NOT IN ('preparing', 'running')
BEGIN SELECT RAISE(ABORT, 'terminal floor: a terminal record never changes'); END;

CREATE TABLE schedules (
	name           TEXT PRIMARY KEY,
	cron           TEXT NOT NULL,
	command        TEXT NOT NULL,
	created_at     INTEGER NOT NULL,
	next_run_at    INTEGER NOT NULL,
	last_run_at    INTEGER NOT NULL DEFAULT 0,
	last_record_id TEXT NOT NULL DEFAULT '',
	last_error     TEXT NOT NULL DEFAULT '',
	version        INTEGER NOT NULL DEFAULT 1
);

CREATE TABLE teams (
	name       TEXT PRIMARY KEY,
	created_at INTEGER NOT NULL
);
CREATE TABLE messages (
	seq       INTEGER PRIMARY KEY AUTOINCREMENT,
	team      TEXT NOT NULL,
	author    TEXT NOT NULL,
	body      TEXT NOT NULL,
	record_id TEXT NOT NULL DEFAULT '',
	at        INTEGER NOT NULL
);
CREATE INDEX messages_team ON messages(team, seq);
`,
	// 1 → 2: trust entries for plugins and hooks files.
	`
CREATE TABLE trust (
	kind       TEXT NOT NULL,
	subject    TEXT NOT NULL,
	digest     TEXT NOT NULL DEFAULT '',
	trusted_at INTEGER NOT NULL,
	PRIMARY KEY (kind, subject)
);
`,
	// 2 → 3: terminal notify. Each record carries its notify setting (JSON,
	// '' for none), fixed at submit; a terminal transition of a record with
	// a setting inserts one delivery row per channel in the same
	// transaction, so a committed end always has its pending notification
	// and an uncommitted one never does.
	`
ALTER TABLE records ADD COLUMN notify TEXT NOT NULL DEFAULT '';

CREATE TABLE deliveries (
	record_id      TEXT NOT NULL,
	channel        TEXT NOT NULL,
	transition_seq INTEGER NOT NULL,
	record_version INTEGER NOT NULL,
	state          TEXT NOT NULL,
	attempts       INTEGER NOT NULL DEFAULT 0,
	max_attempts   INTEGER NOT NULL,
	last_error     TEXT NOT NULL DEFAULT '',
	claimant       TEXT NOT NULL DEFAULT '',
	created_at     INTEGER NOT NULL,
	attempted_at   INTEGER NOT NULL DEFAULT 0,
	next_at        INTEGER NOT NULL DEFAULT 0,
	lease_until    INTEGER NOT NULL DEFAULT 0,
	finished_at    INTEGER NOT NULL DEFAULT 0,
	PRIMARY KEY (record_id, channel)
);
CREATE INDEX deliveries_open ON deliveries(state, created_at);

-- A finished delivery never changes and no delivery is ever deleted: the
-- row is the durable answer to "was this end announced?".
CREATE TRIGGER deliveries_final BEFORE UPDATE ON deliveries
WHEN OLD.state IN ('delivered', 'failed')
BEGIN SELECT RAISE(ABORT, 'a finished delivery never changes'); END;
CREATE TRIGGER deliveries_no_delete BEFORE DELETE ON deliveries
BEGIN SELECT RAISE(ABORT, 'deliveries are never deleted'); END;
`,
}
