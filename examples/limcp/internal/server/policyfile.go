//go:build unix

package server

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"
	"time"

	"github.com/spf13/cobra"
	"github.com/verbsurface/verbsurface/examples/limcp/internal/guard"
	"github.com/verbsurface/verbsurface/examples/limcp/internal/playbook"
	"github.com/verbsurface/verbsurface/policy"
	"github.com/verbsurface/verbsurface/verbsurface"
)

// livePolicy enforces a policy file's live_runs limit: a spawn op is
// refused while that many runs are live, counted through the CLI (limcp
// monitor, the store's active records) when the op arrives, plus the
// spawn ops past the check whose command has not yet returned (they are
// not in the store yet). The count and the admission happen under one
// lock, so concurrent sessions cannot all pass one free slot.
type livePolicy struct {
	max     int
	count   func(ctx context.Context) (int, error)
	mu      sync.Mutex
	pending int
}

// admit is the check; release ends an admitted op's pending state.
func (l *livePolicy) admit(ctx context.Context, op verbsurface.PolicyOp) error {
	if op.Class != verbsurface.ClassSpawn {
		return nil
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	// A spawn in flight is counted twice once its record exists: by the
	// CLI and as pending. So when the limit looks reached while others
	// are in flight, wait for them to finish (briefly: a stalled one ends
	// in a refusal, the safe side) and count again.
	deadline := time.Now().Add(liveSettle)
	for {
		live, err := l.count(ctx)
		if err != nil {
			return fmt.Errorf("the policy limits live runs to %d and they could not be counted (%v); nothing was started", l.max, err)
		}
		if live+l.pending < l.max {
			l.pending++
			return nil
		}
		if l.pending == 0 || time.Now().After(deadline) || ctx.Err() != nil {
			return fmt.Errorf("the policy allows %d live runs at once and %d are live; nothing was started: wait for one to end (job.wait) and resend", l.max, live+l.pending)
		}
		l.mu.Unlock()
		time.Sleep(10 * time.Millisecond)
		l.mu.Lock()
	}
}

// liveSettle bounds how long a spawn waits for the spawns in flight before
// it is judged against the live_runs limit.
const liveSettle = 5 * time.Second

func (l *livePolicy) release() { l.releaseN(1) }

// reserve admits up to n runs at once (a tick's): as many as fit under the
// limit now, counted through the CLI plus the admitted ops still in
// flight. Those admitted are pending until releaseN. It never waits: a
// run counted twice (pending and already in the store) only makes it
// admit fewer, the safe side.
func (l *livePolicy) reserve(ctx context.Context, n int) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	live, err := l.count(ctx)
	if err != nil {
		return 0, fmt.Errorf("the policy limits live runs to %d and they could not be counted (%v); nothing was started", l.max, err)
	}
	got := max(0, min(n, l.max-live-l.pending))
	l.pending += got
	return got, nil
}

// headroom is how many more runs the limit admits now.
func (l *livePolicy) headroom(ctx context.Context) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	live, err := l.count(ctx)
	if err != nil {
		return 0, fmt.Errorf("the policy limits live runs to %d and they could not be counted (%v); nothing was started", l.max, err)
	}
	return max(0, l.max-live-l.pending), nil
}

func (l *livePolicy) releaseN(n int) {
	l.mu.Lock()
	l.pending -= n
	l.mu.Unlock()
}

// countLive counts the active records through the CLI, as any reader of
// the store would: `limcp monitor --json`.
func (s *Server) countLive(ctx context.Context) (int, error) {
	data, err := s.scrub.runner(s.runner).Run(ctx, []string{"monitor", "--json"})
	if err != nil {
		return 0, err
	}
	var out struct {
		Running []json.RawMessage `json:"running"`
	}
	if err := json.Unmarshal(data, &out); err != nil {
		return 0, fmt.Errorf("reading limcp monitor: %w", err)
	}
	return len(out.Running), nil
}

// onOp follows every op once it finished: it ends an admitted spawn's
// pending state and writes the audit line.
func (s *Server) onOp(ctx context.Context, rec *verbsurface.OpRecord) {
	// A spawn op reached the Decider only when the live check admitted it
	// (Options.Policy runs first and the Decider is set with every policy
	// file), so a decision marks the ops to release.
	if s.live != nil && rec.Class == verbsurface.ClassSpawn && rec.Decision != "" {
		s.live.release()
	}
	if s.opts.Audit == nil {
		return
	}
	ci := verbsurface.RequestClient(ctx)
	line := &policy.AuditRecord{
		Time: time.Now().UTC(), Session: ci.Session, Client: ci.Name, ClientVersion: ci.Version, Subject: ci.Subject, ClientID: ci.ClientID,
		Index: rec.Index, Verb: rec.Verb, ArgsSHA256: rec.ArgsDigest,
		Decision: rec.Decision, Rule: rec.Rule, Confirmed: rec.Confirmed,
		Result: rec.Code, DurationMS: float64(rec.Duration.Microseconds()) / 1000, DryRun: rec.DryRun,
	}
	if s.opts.Audit.Args() && rec.Args != nil {
		line.Args = policy.RedactArgs(rec.Args, s.storedPrompts(rec)...)
	}
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
