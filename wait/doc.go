// Package wait implements job.wait: a bounded observation of runs that
// always ends in an exhaustive four-way partition, so an agent looping on it
// is never stranded and never told a failure succeeded.
//
// The package knows nothing of subprocesses, MCP or the CLI. The lifecycle
// authority (in practice the CLI's observe command) comes in through
// the [Observer] interface, time through [Clock], early change signals
// through a wake channel.
//
// # Observations
//
// An [Observer] reports, in one call for all ids, one [Observation] per id:
// kind, label, status, whether terminal, reason code, phase, when the phase
// was entered, process evidence, whether an end is recorded, whether a
// conclusive finding failed to publish, and whether the process is possibly
// orphaned. An id that cannot be observed carries an [IDError]
// (unknown_id, ambiguous_id) instead.
//
// # Classification
//
// [Classify] puts one observation in exactly one [Class] by these rules,
// checked in this order (the first that matches decides):
//
//  1. terminal → terminal.
//  2. a conclusive finding that could not be published → stopped_without_end.
//  3. started and process shown alive → pending.
//  4. started and process not shown alive (gone with no end recorded, gone
//     with an end recorded but status not yet terminal, or evidence
//     unknown) → stopped_without_end.
//  5. preparing, entered less than the threshold ago → pending.
//  6. preparing otherwise (at or past the threshold, or entry time not
//     recorded) → unresolved_spawn.
//  7. no recorded phase (or an unknown one) and process shown alive → pending.
//  8. no recorded phase and process not shown alive → stopped_without_end.
//
// Pending means waiting can still change the answer, so it is only given on
// positive evidence of progress (a live process, a young spawn). Unknown
// evidence is not such evidence: [Classify] explains why it is
// stopped_without_end rather than pending. [Classes] lists every class; a
// new class is added there in the same change that adds it to Classify.
//
// [Partition] applies Classify to many observations: every distinct id
// observed without error lands in exactly one of the four sets; an id with
// an error lands in none (it is listed apart, as errored).
//
// # Outcomes
//
// A terminal record's status maps to an [Outcome] through an
// [OutcomeTable]; the default is [DefaultOutcomes]. A terminal status the
// table does not know reads unknown, never succeeded; a non-terminal record
// reads none.
//
// # The wait loop
//
// [Wait] observes until no id is pending or the window ends and returns a
// [Result]: one [Entry] per requested id in input order, all_terminal,
// timed_out, the three non-terminal lists and the effective bounds. The
// window (default 25 s, at most 300 s) and poll interval (default 1 s,
// between 250 ms and 30 s) are clamped, not refused, and echoed. A window of
// zero is a snapshot: one observation, no sleep.
//
// Timing rules: expiry is not an error; a call that would return at once
// while some id is stopped_without_end, unresolved_spawn or errored first
// waits until one poll interval has passed since it began and looks again
// (the one-poll floor; a wake does not cut it short), unless it is a
// snapshot or has already waited that long; cancellation returns promptly
// with an error wrapping the context's; an observation that fails as a
// whole is returned as an [*ObserveError] at once, not retried. An optional
// wake channel makes the loop observe at once on a change notification;
// polling stays the correctness path.
//
// # Over a CLI
//
// [CLIObserver] is the Observer of any CLI with an observe command: each
// poll runs `COMMAND... -- IDS...` through a [Runner] (the Run(ctx, argv)
// contract dispatch.Runner implements) and reads the data's
// "observations" member ([DecodeObservations]; a wrong shape is a
// [*DecodeError], invalid_result). [ParseArgs] reads a job.wait call's
// ids, max_wait_seconds and poll_interval_seconds as the CLI's wait
// command projects them, and [Increasing] turns OnPoll into progress
// notifications that only ever increase. The MCP glue is
// verbsurface.WaitHandler, so this package imports neither MCP nor the
// surface; limcp's server and `verbsurface serve`'s wait: key both use it.
//
// # What it does not do
//
// The loop never writes. A wait that expires, is cancelled, or whose caller
// disconnects changes nothing durable; cancelling a wait never cancels the
// work. The one write a wait can cause, the fenced reap of a run whose
// process (or, before it started, whose supervisor) is conclusively gone,
// belongs to the lifecycle authority
// behind the Observer, not to this package.
package wait
