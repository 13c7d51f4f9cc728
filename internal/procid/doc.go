// Package procid reads process identity from Linux /proc so that a pid
// recorded earlier is never confused with an unrelated process that later
// received the same number.
//
// A pid alone is not an identity: the kernel reuses pids. The pair
// (pid, start time in clock ticks since boot, field 22 of /proc/PID/stat) is
// unique for the life of the machine, so every "is it still that process?"
// question in this module is answered with an [Identity], never a bare pid.
//
// The package is internal: it is Linux-only plumbing shared by package kill
// and the reference CLI, not part of the library's surface.
package procid
