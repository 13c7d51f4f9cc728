//go:build unix

// Package procid reads process identity from the kernel's process table so
// that a pid recorded earlier is never confused with an unrelated process
// that later received the same number.
//
// A pid alone is not an identity: the kernel reuses pids. The pair
// (pid, start time) is unique for the life of the machine, so every
// "is it still that process?" question in this module is answered with an
// [Identity], never a bare pid: [Of] records one, [Check] answers alive,
// gone or unknown.
//
// Process groups are asked about the same way: [GroupMembers] lists a
// group's live members (zombies are not members: they hold nothing a signal
// could free), [GroupSizes] counts the members of every group in one pass.
//
// # Platforms
//
// One file per platform implements the process table behind one small
// interface; the identity rule and group membership above it are shared:
//
//   - Linux: /proc/PID/stat; the start time is field 22, clock ticks since
//     boot.
//   - macOS: sysctl kern.proc.pid.PID and kern.proc.all, struct kinfo_proc
//     as golang.org/x/sys/unix declares it; the start time is p_starttime in
//     microseconds since the epoch.
//   - FreeBSD (64-bit): sysctl kern.proc.pid.PID and kern.proc.proc, the
//     struct decoded from its bytes after its size is checked; the start
//     time is ki_start in microseconds since the epoch.
//   - Any other Unix: every read is an error, so [Check] says [Unknown] and
//     nothing is ever treated as gone on a guess.
//
// Start times are therefore comparable only on the machine (and platform)
// that recorded them, which is the only place a pid means anything anyway.
// The decoders are pure functions, tested on every platform with
// hand-built kernel answers; the tables themselves are exercised by the
// live tests on the platform that runs them.
//
// The package is internal: it is Unix plumbing shared by packages dispatch
// and kill and by the reference CLI, not part of the library's surface. It
// only reads; sending signals, and proving that a signal can reach only the
// intended processes, stays with each caller, because each proves it
// differently (see dispatch's runner and kill.SignalGroup).
package procid
