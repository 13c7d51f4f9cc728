//go:build unix

package server

import (
	"context"

	"github.com/verbsurface/verbsurface/verbsurface"
)

// observeCommand is job.wait's lifecycle authority: one `limcp job observe
// --json -- IDS...` per poll, for every id at once, through the runner
// (wait.CLIObserver). The CLI reads the store (and performs the fenced
// reap); the server only reads the machine result.
var observeCommand = []string{"job", "observe", "--json"}

// jobWait is the job.wait handler: verbsurface.WaitHandler (package wait
// over the CLI's observation, the generic piece `verbsurface serve`'s
// wait: key uses too) plus limcp's Go-only extra, the wake: the store
// signal and terminal notifications of the runs this server submitted
// wake the wait early. Its args are those of the projected `job wait`
// schema (ids, max_wait_seconds, poll_interval_seconds).
//
// Progress: when the client sent a progress token, the first poll and every
// poll that finds more ids terminal send a notification whose progress is
// the number of terminal ids and whose total is the number of distinct ids.
//
// The wait never writes and never touches a run: a client that disconnects
// or cancels ends the observation (the observe subprocess is stopped), and
// the run goes on.
func (s *Server) jobWait() verbsurface.Handler {
	o := &verbsurface.WaitHandlerOptions{Observe: observeCommand, Runner: s.scrub.runner(s.runner), MaxRequestWait: s.opts.Limits.MaxRequestWait}
	if !s.opts.NoStoreSignal || s.notify != nil {
		o.Wake = func(ctx context.Context) <-chan struct{} { return s.hub.subscribe(ctx, WakeGap) }
	}
	return verbsurface.WaitHandler(o)
}
