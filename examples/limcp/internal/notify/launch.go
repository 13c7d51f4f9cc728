//go:build unix

package notify

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"time"

	"github.com/verbsurface/verbsurface/examples/limcp/internal/runenv"
	"github.com/verbsurface/verbsurface/examples/limcp/internal/store"
)

// DeliverCommand is the hidden command that delivers the notifications of
// the records named: `limcp --home HOME __notify ID...`.
const DeliverCommand = "__notify"

// LogFile, under the state home, receives the delivery processes' own
// output (normally nothing).
const LogFile = "notify.log"

// SweepGrace is how long a delivery may sit unclaimed (pending, or
// retrying past its time) before [Sweep] starts a delivery process for it.
// A delivery process normally claims within milliseconds of the end.
const SweepGrace = 10 * time.Second

// sweepBatch bounds the records one sweep hands to one delivery process.
const sweepBatch = 64

// Launch starts a delivery process for ids, detached: the limcp binary exe
// re-executed as `exe --home HOME __notify ID...` in a new session (so in
// its own process group: never a member of a run's group, which would
// make an ended run look alive, and never stopped by a kill of one), with
// no stdin and its output appended to <home>/notify.log. Launch does not
// wait: the command that made the transition goes on at once, whatever the
// notify target does.
func Launch(exe, home string, ids ...string) error {
	log, err := os.OpenFile(filepath.Join(home, LogFile), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		return err
	}
	defer log.Close()
	cmd := exec.Command(exe, append([]string{"--home", home, DeliverCommand}, ids...)...)
	cmd.Dir = home
	// A delivery needs no variable a provider is given: it gets the
	// environment rule alone, whoever launched it.
	cmd.Env = runenv.ForRun(os.Environ())
	cmd.Stdout, cmd.Stderr = log, log
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	if err := cmd.Start(); err != nil {
		return err
	}
	// The delivery process outlives this command; init reaps it.
	return cmd.Process.Release()
}

// Hook is the terminal hook that starts the delivery of a record's end: it
// runs after the terminal transition committed (with its pending
// deliveries), in the process that made it, and only launches. If the
// launch fails, or this process dies before it, the deliveries stay
// pending and the next [Sweep] starts them.
func Hook(exe, home string) store.TerminalHook {
	return func(_ context.Context, r store.Record) {
		if r.Notify.Empty() {
			return
		}
		_ = Launch(exe, home, r.ID)
	}
}

// Sweep starts one delivery process for deliveries nobody is working on
// (see [store.Store.StaleDeliveries] with SweepGrace) and returns the
// record ids handed to it. It costs one indexed query when there is
// nothing to do. `limcp job observe` calls it, so a server polling for
// ends also recovers notifications whose delivery never started or whose
// delivery process died. A second delivery process for the same record is
// harmless: claims are compare-and-set.
func Sweep(ctx context.Context, st *store.Store, launch func(ids ...string) error) ([]string, error) {
	ids, err := st.StaleDeliveries(ctx, SweepGrace, sweepBatch)
	if err != nil || len(ids) == 0 {
		return nil, err
	}
	return ids, launch(ids...)
}
