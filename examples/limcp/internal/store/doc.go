// Package store is limcp's durable lifecycle state: one SQLite file
// (modernc.org/sqlite, no cgo) in WAL mode with a busy timeout, holding the
// run records, the append-only transitions table (the audit), schedules,
// team boards and trust entries.
//
// # Records
//
// A [Record] is one entity: an invocation (one agent run), a session (a
// fanout or flow coordinating invocations), a play (a playbook run owning a
// session) or a show (a named group of plays). Its status moves
//
//	preparing → running → completed | failed | timed_out | cancelled | aborted
//
// and preparing may also go straight to a terminal status. The outcome of a
// status is fixed by the table in [OutcomeOf] (contract C8).
//
// # Transitions
//
// Every status change goes through [Store.Transition], the one transition
// function. It is a compare-and-set on the record's version, inside one
// IMMEDIATE transaction that also appends the audit row. Its rules, in the
// order they are checked:
//
//  1. the record exists ([ErrNotFound]);
//  2. the terminal floor: a terminal record never changes ([ErrTerminal]);
//  3. the caller's version is the record's version ([ErrConflict]);
//  4. the edge is legal: preparing → running, preparing or running → any
//     terminal status ([ErrInvalidTransition]);
//  5. the caller's guard, if any, admits the change inside the transaction.
//
// A terminal transition of a record with a notify setting ([Notify]) also
// inserts, in the same transaction, one pending [Delivery] per channel: an
// end that commits is never left unannounced by a crash, and an end that
// does not commit is never announced. A delivery is claimed and finished
// by compare-and-set ([Store.ClaimDelivery], [Store.RecordAttempt]); see
// [DeliveryState] for its states. [Store.Status] is a record as `job
// status` prints it, its deliveries included.
//
// After the transaction commits, and only then, every terminal hook
// registered with [Store.OnTerminal] is called with the terminal record: this
// is the one post-commit point terminal notification attaches to (it
// starts the delivery process). A hook's
// failure never alters the transition. Triggers in the schema repeat the
// floor and make the transitions table append-only (and a finished delivery
// final), so a write that bypassed this package would still be refused.
//
// # Versions of the schema
//
// A new store is created at [CurrentVersion] (PRAGMA user_version). An older
// store is refused with [ErrSchemaOutdated] until [Store.Migrate] runs (the
// `limcp state migrate` command); a newer one with [ErrSchemaUnsupported].
// A file that is not a SQLite database is [ErrCorrupt].
package store
