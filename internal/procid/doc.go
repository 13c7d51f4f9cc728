// Package procid reads process identity from Linux /proc so that a pid
// recorded earlier is never confused with an unrelated process that later
// received the same number.
//
// A pid alone is not an identity: the kernel reuses pids. The pair
// (pid, start time in clock ticks since boot, field 22 of /proc/PID/stat) is
// unique for the life of the machine, so every "is it still that process?"
// question in this module is answered with an [Identity], never a bare pid:
// [Of] records one, [Check] answers alive, gone or unknown.
//
// Process groups are asked about the same way: [GroupMembers] lists a
// group's live members (zombies are not members: they hold nothing a signal
// could free), [GroupSizes] counts the members of every group in one pass.
//
// The package is internal: it is Linux-only plumbing shared by packages
// dispatch and kill and by the reference CLI, not part of the library's
// surface. It only reads; sending signals, and proving that a signal can
// reach only the intended processes, stays with each caller, because each
// proves it differently (see dispatch's runner and kill.SignalGroup).
package procid
