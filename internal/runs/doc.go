// Package runs is the lifecycle store of a front's background runs: the
// runs `verbsurface serve` starts for a verb marked background, which the
// fronted program (a linter, a build, a test runner) keeps no record of.
// The front keeps it instead, with limcp's rules.
//
// # Records
//
// A [Record] is one run: the verb, what was run ([Record].Spec, the
// front's own shape), its status, phase, reason code and outcome, the
// process identity of the run (pid and start time; the run leads its own
// process group, so its group id is its pid) and of the supervisor that
// records its end, timestamps, a version, and the verified subject of the
// caller that started it (empty for a caller with none).
//
// # Transitions
//
// Every status change goes through [Store.Transition], a compare-and-set on
// the version the caller read, checked in this order:
//
//  1. the record is terminal: refused with [ErrTerminal] (the terminal
//     floor: a terminal status never changes again);
//  2. the version differs: refused with [ErrConflict];
//  3. the edge is not in the lifecycle (preparing → running or any
//     terminal status; running → any terminal status): refused with
//     [ErrInvalidTransition].
//
// Moving to running enters the started phase and records the process
// identity; a terminal status records the end (exit code, signal). Each
// accepted change appends a row to an append-only audit of transitions.
// A kill request ([Store.RequestKill]) is not a transition: it marks the
// record so that the supervisor records the end it causes as cancelled.
// Nor is recording the supervisor ([Store.RecordSupervisor]): the server
// that starts a run's supervisor records its identity at once, with a
// compare-and-set while the run is preparing, so that a supervisor that
// dies before it records the start is seen to be gone.
//
// # Storage
//
// [Open] keeps the store in one SQLite file (WAL mode) in the front's
// state directory, created private: the directory 0700, the files 0600.
// The [Store] interface is small so that the replicas of one front can
// later share a store in a database server; nothing outside this package
// knows it is SQLite. A store an older server created is brought up to
// the schema when opened (a column added later is added with the value
// older rows mean).
//
// # Change signal
//
// A writer in another process (the supervisor) cannot reach an
// in-process channel, so an end is also announced on the file system:
// [Notify] touches a file in the signal directory, and a [Watcher] turns
// changes there into wake-ups for a bounded wait. Polling stays the
// correctness path; the signal only shortens latency.
package runs
