// Package undumpable, imported for its side effect by limcp's main
// package, makes every limcp process undumpable as it starts (package
// nodump: prctl(PR_SET_DUMPABLE, 0) on Linux), before anything else of
// the program runs: the server, its CLI commands, the workers and
// coordinators of runs, each protects itself, since execve resets the
// flag. A run executes as the operator's user; without this it could read
// the server's bearer token and the variables providers are given from
// /proc/PID/environ of these processes, or their memory.
package undumpable

import "github.com/verbsurface/verbsurface/internal/nodump"

func init() { _ = nodump.Protect() } // nothing to do when a platform refuses: see nodump
