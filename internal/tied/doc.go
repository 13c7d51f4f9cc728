// Package tied starts the server's child processes so that none outlives
// the server: [Attr] gives a process group of its own and, where the
// platform has one, the parent-death signal (SIGKILL); [Start] starts a
// command so that the signal is tied to the process, not to whichever
// thread happened to fork it (Linux ties it to the thread).
//
// Every process the server starts goes through here: dispatched commands
// (package dispatch) and the help and completion calls that read a cobra
// binary (projector/fromcobrabin). The grandchildren of a child are not
// covered by the signal; the group, signalled by its owner, is what
// reaches them.
//
// On platforms without a parent-death signal (macOS, the other BSDs)
// [Attr] gives the process group only and [Start] is cmd.Start.
package tied
