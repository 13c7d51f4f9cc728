// Package schedule runs limcp's stored cron entries: standard 5-field cron
// expressions (github.com/robfig/cron/v3's standard parser, which also
// accepts descriptors such as @hourly), each with a stored limcp spawn
// command.
//
// [Tick] starts what is due: every schedule whose next run time is at or
// before now is claimed by compare-and-set on its version (so two
// concurrent ticks never start the same occurrence), advanced to its next
// run time after now, and started through the caller's start function —
// in the CLI, the limcp binary re-executed as a subprocess with the stored
// command. Occurrences missed while nobody ticked are coalesced into one
// run: a tick never replays a backlog.
package schedule
