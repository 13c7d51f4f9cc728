//go:build unix

// Package run is limcp's execution side: submitting runs, the detached
// worker that executes them, observing them (with the fenced reap) and
// killing them transitively.
//
// # Submitting
//
// A submit writes the run's record(s) in status preparing — before any
// process exists — snapshots the prompt into the run directory
// (<home>/runs/ID/prompt.txt), then starts the worker: the limcp binary
// itself, re-executed as `limcp --home HOME __worker ID` with Setsid, so the
// worker leads its own session and process group and outlives the command
// that submitted it. If the worker cannot be started the record moves to
// failed (run.failed.spawn_error). Every record of a run carries the run's
// notify setting (Common.Notify): a play and its session at submit, each
// step's invocation when the coordinator creates it.
//
// # The worker
//
// The worker records its identity (pid, pgid, and start time from the process table)
// while moving the record preparing → running (phase started) in one
// compare-and-set; if the record is already terminal (killed while
// preparing) it exits without running anything. Then, by kind:
//
//   - invocation: runs the provider with the prompt on stdin (the echo
//     provider in-process), stdout and stderr captured in the run
//     directory, and records the end: exit 0 → completed
//     (run.completed.exit_0), non-zero → failed (run.failed.exit_nonzero),
//     the --timeout deadline → timed_out (run.timed_out.deadline), a
//     provider that could not be started → failed (run.failed.launch_error).
//     A provider whose output is an agent program's JSON (a preset) writes
//     it to AgentOutputFile; when it ends, the answer extracted from it
//     becomes stdout and the error it reports (if any) ErrorFile and the
//     last line of stderr; exit 0 with a reported error → failed
//     (run.failed.agent_error).
//   - session: coordinates its steps (a fanout, a flow): each ready step
//     becomes a child invocation record and its own detached worker; a step
//     whose dependency did not complete is aborted
//     (run.aborted.dependency_failed). The session completes when every step
//     completed (run.completed.all_steps) and fails otherwise
//     (run.failed.step_failed).
//   - play: moves its session to running with the same identity, runs it as
//     above, and ends with the session's status.
//
// A provider killed by SIGTERM or SIGKILL that the worker did not send is
// left unrecorded: a kill is in progress and the killer records it (or, if
// nobody does, the next observer reaps the run as process_gone).
//
// # Observing and the fenced reap
//
// [Observer] implements wait.Observer over the store. Process evidence is
// the recorded identity checked against the process table: alive; gone when the leader
// is gone and its process group is empty; unknown otherwise (never treated
// as gone; a gone leader with live group members is also possibly
// orphaned). A started record whose process is conclusively gone with no
// end recorded is moved to failed (run.failed.process_gone) by
// compare-and-set: of many concurrent observers exactly one writes; a write
// that fails sets PublishFailed.
//
// # Killing
//
// [Kill] stops an entity and everything under it: play → session →
// invocations. Each entity's own process group is stopped first (so a
// coordinator cannot start new children), through kill.SignalGroup, which
// checks the leader's identity before any signal; then its children; then
// transitions are written bottom-up: run.cancelled.manual_kill, or
// run.cancelled.force_kill when SIGKILL was needed. A record still
// preparing is cancelled by compare-and-set before its worker can start it.
// An entity that cannot be stopped, and every ancestor of it, is reported in
// not_reaped and left as it is; a show is refused.
package run
