//go:build unix

package dispatch

import (
	"errors"
	"time"

	"github.com/verbsurface/verbsurface/internal/procid"
)

// exitWaiter blocks until the runner's own child pid has exited, WITHOUT
// reaping it. An exited but unreaped leader keeps its pid, and so the
// process-group id, from being reused: while the runner has not called
// Wait, signalling -pgid can only reach the command's own group. Each
// platform supplies the cheapest exact way to wait (platformExitWaiter,
// one file per platform); pollExit works on every Unix and is both the
// fallback and the second implementation the tests run on Linux.
type exitWaiter func(pid int) error

// pollExit waits by reading the child's state from the process table until
// it is a zombie. It costs a few reads per millisecond at first, backing
// off to one every 10 ms, so a long command is cheap to wait for and a
// short one is seen to end within a millisecond or so.
func pollExit(pid int) error {
	pause := 200 * time.Microsecond
	for {
		st, err := procid.ReadStat(pid)
		switch {
		case errors.Is(err, procid.ErrGone):
			// Cannot happen for an unreaped child; if it did, treating it
			// as exited lets Wait report what happened.
			return nil
		case err != nil:
			return err
		case st.State == 'Z' || st.State == 'X':
			return nil
		}
		time.Sleep(pause)
		pause = min(2*pause, 10*time.Millisecond)
	}
}
