//go:build unix

// Package kill implements job.kill: stopping a run the server submitted,
// without ever stopping processes behind the back of the CLI's lifecycle
// store, and without ever signalling a process that merely inherited a pid.
//
// The package knows nothing of MCP or of a particular CLI. It reaches the
// CLI through a [Runner] (package dispatch implements it) and
// reads process identity from the kernel's process table (/proc on Linux,
// sysctl kern.proc on macOS and FreeBSD; there is no Windows build).
//
// # Policy
//
// [Decide] is a pure function from a [Record] to a [Decision]: exactly one
// of delegate, signal_group or refuse. Its rules, in the order they are
// checked:
//
//  1. show_level: a show-level record is refused (show_kill_unsupported).
//  2. entity: a play, session or invocation with an id is delegated to the
//     CLI's kill of that entity.
//  3. undelegable_entity: any other entity identity (unknown kind, kind
//     without id, id without kind) is refused (no_kill_target).
//  4. no_group: no entity and no recorded group: refused (no_kill_target).
//  5. foreign_group: a group the server did not create: refused
//     (no_kill_target).
//  6. malformed_group: a server group without pid and start time of its
//     leader: refused (no_kill_target).
//  7. server_group: otherwise the group is signalled.
//
// # Delegation, and why there is no fallback
//
// A run with a durable entity identity is killed by the CLI's own kill
// ([ReferenceArgv]: kill --json [--grace=D] -- ID), so transitive
// reaping (play, session, invocations), lifecycle transitions, reason codes
// and terminal notification are the CLI's, not re-implemented here. Its
// outcome comes back unchanged in [Result].Delegated: the data of an ok
// result byte for byte, or the runner's error code and details.
//
// A delegated kill that fails, times out or reaps partially returns that
// outcome, and nothing else happens. There is no raw-signal fallback, even
// when the record also carries a process group: signals would stop
// processes while the lifecycle rows claim they are running (or were
// stopped for another reason), and everything that reads those rows (wait,
// status, schedules, the next kill) would then act on a lie. An honest
// failure leaves the caller able to retry or escalate; a silent half-kill
// does not.
//
// # Any CLI that kills its own runs
//
// [CLI] is the delegated kill for any CLI: an optional status command
// gives the record's identity ([LookupRecord]: data {"records": [{"id",
// "kind"}]}, exactly one), [Decide] chooses, and the CLI's kill command
// runs as `KILL... [--grace=D] -- ID` ([PathArgv]). Without a status
// command the id is delegated as given ([RuleIDOnly]). It never signals:
// a record learned from the CLI carries no group the server created.
// [ParseGrace] reads the "grace" argument. verbsurface.KillHandler is its
// MCP glue; limcp's server and `verbsurface serve`'s kill: key both use it.
//
// # Signalling a group
//
// Only a run with no entity identity, whose process group the server itself
// created, is signalled directly, by [SignalGroup]: SIGTERM to the group,
// SIGKILL after a grace, a report of what was signalled and what survived.
// Before any signal the group's leader is proven to be the process the
// server started: same pid and same start time, so a reused pid is never
// signalled. Where the kernel allows (Linux 6.9), the group is then
// addressed through a pidfd of the proven leader, which can only ever reach
// that very group, even after the leader exits. Elsewhere (older Linux,
// macOS, FreeBSD) it is addressed by number, kill(-pgid), and re-proven by
// a witness immediately before each signal; the window that leaves is
// documented on the type that does it, and both ways pass the same live
// process-group tests on Linux.
//
// If the leader has exited and been reaped before the kill, the group is not
// signalled even if members remain: a group id is its leader's pid, reusable
// once the group empties, and with the leader gone nothing recorded ties
// the remaining members to the group the server created. They are reported
// as survivors (status leader_gone). A leader that has exited but is not yet
// reaped still holds its pid and still proves the group; a server that
// wants to be able to kill a group its leader left behind can keep the
// leader unreaped until then.
//
// [LeaderGroup] records a group right after the server starts its leader.
//
// # The job.kill result
//
// [Killer.Kill] returns a [Result]: the [Decision] taken and its outcome
// ([Delegated], a [GroupOutcome], or the decision's [Refusal]), and, when
// the target was not stopped, an [*Error] with ErrorCode and ErrorDetails
// like a runner error. job.kill is exempt from the fingerprint requirement
// of spawn verbs; applying that exemption is the surface's business.
//
// # What the reference CLI's kill is expected to print
//
// The package passes the CLI's outcome through without reading it, but its
// tests pin a shape the reference CLI should follow: on success, data
// {"target": {kind, id}, "grace", "reaped": [{kind, id, status,
// reason_code}], "not_reaped": []}; a partial reap is an error, never ok,
// with code "kill_partial" and details of the same shape whose "not_reaped"
// entries carry {kind, id, status, reason}.
package kill
