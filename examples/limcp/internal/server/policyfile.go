//go:build unix

package server

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"sync"
	"time"

	"github.com/spf13/cobra"
	"github.com/verbsurface/verbsurface/examples/limcp/internal/guard"
	"github.com/verbsurface/verbsurface/examples/limcp/internal/playbook"
	"github.com/verbsurface/verbsurface/policy"
	"github.com/verbsurface/verbsurface/verbsurface"
)

// livePolicy enforces a policy file's live_runs limit, and its
// live_runs_per_subject: a spawn op is refused while that many runs are
// live, counted through the CLI (limcp monitor, the store's active
// records) when the op arrives, plus the spawn ops past the check whose
// command has not yet returned (they are not in the store yet). A
// subject's live runs are those of the live runs it started (the server
// remembers the ids it handed each verified subject), plus its pending
// ops. The count and the admission happen under one lock, so concurrent
// sessions cannot all pass one free slot.
type livePolicy struct {
	max        int // 0: no total limit
	perSubject int // 0: no limit per subject
	running    func(ctx context.Context) ([]string, error)
	mu         sync.Mutex
	pending    int
	pendingBy  map[string]int             // per subject
	startedBy  map[string]map[string]bool // subject -> ids of its runs, live when last counted
}

func newLivePolicy(max, perSubject int, running func(ctx context.Context) ([]string, error)) *livePolicy {
	return &livePolicy{max: max, perSubject: perSubject, running: running, pendingBy: map[string]int{}, startedBy: map[string]map[string]bool{}}
}

// subjectOf is the verified subject a limit per subject counts for ("" for
// none, or without such a limit).
func (l *livePolicy) subjectOf(ctx context.Context) string {
	if l.perSubject <= 0 {
		return ""
	}
	return verbsurface.RequestClient(ctx).Subject
}

// room is how many more runs the limits admit now for subject; l.mu is
// held. limit names the limit that leaves the least room.
func (l *livePolicy) room(ctx context.Context, subject string) (room int, limit string, err error) {
	ids, err := l.running(ctx)
	if err != nil {
		return 0, "", fmt.Errorf("the policy limits live runs and they could not be counted (%v); nothing was started", err)
	}
	room, limit = math.MaxInt, ""
	if l.max > 0 {
		room, limit = l.max-len(ids)-l.pending, fmt.Sprintf("the policy allows %d live runs at once and %d are live", l.max, len(ids)+l.pending)
	}
	if subject != "" {
		live := map[string]bool{}
		for _, id := range ids {
			live[id] = true
		}
		mine := 0
		for id := range l.startedBy[subject] {
			if live[id] {
				mine++
			} else {
				delete(l.startedBy[subject], id) // ended: a run never lives again
			}
		}
		if r := l.perSubject - mine - l.pendingBy[subject]; r <= room { // on a tie, the caller's own limit is the one to name
			room, limit = r, fmt.Sprintf("the policy allows each caller %d live runs at once and %d of %s's are live", l.perSubject, mine+l.pendingBy[subject], subject)
		}
	}
	return max(0, room), limit, nil
}

// admit is the check; release ends an admitted op's pending state.
func (l *livePolicy) admit(ctx context.Context, op verbsurface.PolicyOp) error {
	if op.Class != verbsurface.ClassSpawn {
		return nil
	}
	subject := l.subjectOf(ctx)
	l.mu.Lock()
	defer l.mu.Unlock()
	// A spawn in flight is counted twice once its record exists: by the
	// CLI and as pending. So when the limit looks reached while others
	// are in flight, wait for them to finish (briefly: a stalled one ends
	// in a refusal, the safe side) and count again.
	deadline := time.Now().Add(liveSettle)
	for {
		room, limit, err := l.room(ctx, subject)
		if err != nil {
			return err
		}
		if room > 0 {
			l.pending++
			l.pendingBy[subject]++
			return nil
		}
		if l.pending == 0 || time.Now().After(deadline) || ctx.Err() != nil {
			return fmt.Errorf("%s; nothing was started: wait for one to end (job.wait) and resend", limit)
		}
		l.mu.Unlock()
		time.Sleep(10 * time.Millisecond)
		l.mu.Lock()
	}
}

// liveSettle bounds how long a spawn waits for the spawns in flight before
// it is judged against the live_runs limit.
const liveSettle = 5 * time.Second

// reserve admits up to n runs at once (a tick's): as many as fit under the
// limits now, counted through the CLI plus the admitted ops still in
// flight. Those admitted are pending until releaseN. It never waits: a
// run counted twice (pending and already in the store) only makes it
// admit fewer, the safe side.
func (l *livePolicy) reserve(ctx context.Context, n int) (int, error) {
	subject := l.subjectOf(ctx)
	l.mu.Lock()
	defer l.mu.Unlock()
	room, _, err := l.room(ctx, subject)
	if err != nil {
		return 0, err
	}
	got := min(n, room)
	l.pending += got
	l.pendingBy[subject] += got
	return got, nil
}

// headroom is how many more runs the limits admit now for ctx's caller,
// and the limit that leaves the least room.
func (l *livePolicy) headroom(ctx context.Context) (int, string, error) {
	subject := l.subjectOf(ctx)
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.room(ctx, subject)
}

// releaseN ends the pending state of n runs admitted for ctx's caller,
// recording the ids of those that started as its own.
func (l *livePolicy) releaseN(ctx context.Context, n int, started ...string) {
	subject := l.subjectOf(ctx)
	l.mu.Lock()
	defer l.mu.Unlock()
	l.pending -= n
	if l.pendingBy[subject] -= n; l.pendingBy[subject] <= 0 {
		delete(l.pendingBy, subject)
	}
	if subject != "" && len(started) > 0 {
		if l.startedBy[subject] == nil {
			l.startedBy[subject] = map[string]bool{}
		}
		for _, id := range started {
			l.startedBy[subject][id] = true
		}
	}
}

// liveRuns lists the ids of the active records through the CLI, as any
// reader of the store would: `limcp monitor --json`.
func (s *Server) liveRuns(ctx context.Context) ([]string, error) {
	data, err := s.scrub.runner(s.runner).Run(ctx, []string{"monitor", "--json"})
	if err != nil {
		return nil, err
	}
	var out struct {
		Running []struct {
			ID string `json:"id"`
		} `json:"running"`
	}
	if err := json.Unmarshal(data, &out); err != nil {
		return nil, fmt.Errorf("reading limcp monitor: %w", err)
	}
	ids := make([]string, len(out.Running))
	for i, r := range out.Running {
		ids[i] = r.ID
	}
	return ids, nil
}

// onOp follows every op once it finished: it ends an admitted spawn's
// pending state and writes the audit line.
func (s *Server) onOp(ctx context.Context, rec *verbsurface.OpRecord) {
	// A spawn op reached the Decider only when the live check admitted it
	// (Options.Policy runs first and the Decider is set with every policy
	// file), so a decision marks the ops to release.
	if s.live != nil && rec.Class == verbsurface.ClassSpawn && rec.Decision != "" {
		var sub struct {
			ID string `json:"id"`
		}
		var started []string
		if rec.Code == "ok" && json.Unmarshal(rec.Result, &sub) == nil && sub.ID != "" {
			started = []string{sub.ID}
		}
		s.live.releaseN(ctx, 1, started...)
	}
	if s.opts.OnOp != nil {
		s.opts.OnOp(ctx, rec)
	}
	if s.opts.Audit == nil {
		return
	}
	line := verbsurface.AuditRecord(ctx, rec, s.opts.Audit.Args(), s.storedPrompts(rec)...)
	if rec.Class == verbsurface.ClassSpawn && rec.Code == "ok" {
		var sub struct {
			ID string `json:"id"`
		}
		if json.Unmarshal(rec.Result, &sub) == nil && sub.ID != "" {
			line.RunIDs = []string{sub.ID}
		}
	}
	if rec.Verb == "schedule.tick" && rec.Code == "ok" {
		// A tick starts runs too: the audit names them as a submit's.
		var tick struct {
			Started []struct {
				ID string `json:"id"`
			} `json:"started"`
		}
		if json.Unmarshal(rec.Result, &tick) == nil {
			for _, st := range tick.Started {
				if st.ID != "" {
					line.RunIDs = append(line.RunIDs, st.ID)
				}
			}
		}
	}
	// An audit that cannot be written must not fail the op, which already
	// ran; the server reports it on stderr, once per failure.
	if err := s.opts.Audit.Write(line); err != nil {
		s.auditErr(err)
	}
}

// loadPolicy loads Options.PolicyFile against the surface's live verbs.
func (s *Server) loadPolicy(sopts verbsurface.Options, reg *verbsurface.Registry) (*policy.Policy, error) {
	probe, err := verbsurface.New(reg, &sopts)
	if err != nil {
		return nil, err
	}
	return policy.Load(s.opts.PolicyFile, probe.PolicyVerbs(context.Background()))
}

func (s *Server) auditErr(err error) {
	if s.opts.AuditErrors != nil {
		s.opts.AuditErrors(err)
	}
}

// Policy returns the policy the server enforces (nil without a policy
// file).
func (s *Server) Policy() *policy.Policy { return s.pol }

// PolicyVerbs returns what a policy file is checked against: the server's
// verbs with their live parameters.
func (s *Server) PolicyVerbs(ctx context.Context) []policy.Verb { return s.surface.PolicyVerbs(ctx) }

// storedPrompts are the prompts inside a schedule.add's stored command,
// found by parsing it as the guard does (guard.Prompts), so the audit
// redacts them like any other prompt: a command is an argv, and its
// PROMPT is a word like any other.
func (s *Server) storedPrompts(rec *verbsurface.OpRecord) []string {
	if rec.Verb != "schedule.add" {
		return nil
	}
	words, _ := rec.Args["command"].([]any)
	argv := make([]string, 0, len(words))
	for _, w := range words {
		str, _ := w.(string)
		argv = append(argv, str)
	}
	return guard.Prompts(s.opts.NewRoot(), argv, func(root *cobra.Command, name string) error {
		_, err := playbook.Inject(root, s.opts.Home, name)
		return err
	})
}
