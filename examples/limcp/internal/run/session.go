//go:build unix

package run

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/verbsurface/verbsurface/examples/limcp/internal/flow"
	"github.com/verbsurface/verbsurface/examples/limcp/internal/store"
	"github.com/verbsurface/verbsurface/internal/procid"
)

// MaxStepInput bounds how much of a step's output is passed to the steps
// that depend on it (the tail is kept).
const MaxStepInput = 256 << 10

// stepDone is how one step ended.
type stepDone struct {
	step   string
	id     string
	status store.Status
	output string
}

// runPlay runs a play: its session gets the play's identity (the play's
// worker is the session's coordinator), runs, and the play ends as its
// session did.
func (rt *Runtime) runPlay(ctx context.Context, play store.Record) error {
	kids, err := rt.Store.Children(ctx, play.ID)
	if err != nil {
		return err
	}
	var sess *store.Record
	for i := range kids {
		if kids[i].Kind == store.KindSession {
			sess = &kids[i]
			break
		}
	}
	if sess == nil {
		_, err := rt.end(ctx, play, store.StatusFailed, ReasonWorkerError, nil, ActorCoordinator)
		return errors.Join(fmt.Errorf("worker: play %s has no session", play.ID), err)
	}
	s, started, err := rt.start(ctx, *sess)
	if err != nil {
		_, _ = rt.end(ctx, play, store.StatusFailed, ReasonWorkerError, nil, ActorCoordinator)
		return err
	}
	if !started {
		// The session was ended (killed) before it could start: the play
		// ends the same way.
		cur, _ := rt.Store.Get(ctx, sess.ID)
		_, err := rt.end(ctx, play, cur.Status, cur.ReasonCode, nil, ActorCoordinator)
		return err
	}
	st, reason := rt.runSession(ctx, s)
	if _, err := rt.end(ctx, s, st, reason, nil, ActorCoordinator); err != nil {
		return err
	}
	_, err = rt.end(ctx, play, st, reason, nil, ActorCoordinator)
	return err
}

// runSession coordinates a session's steps and returns the status and
// reason the session should end with. Steps whose dependencies all
// completed start at once, concurrently, each as a child invocation with
// its own detached worker; a step with a dependency that did not complete
// is aborted.
func (rt *Runtime) runSession(ctx context.Context, sess store.Record) (store.Status, string) {
	var spec SessionSpec
	if err := json.Unmarshal(sess.Spec, &spec); err != nil {
		return store.StatusFailed, ReasonWorkerError
	}
	dir := Dir(rt.Home, sess.ID)
	finished := map[string]stepDone{}
	started := map[string]bool{}
	done := make(chan stepDone)
	running := 0
	for len(finished) < len(spec.Steps) {
		for _, st := range spec.Steps {
			if started[st.ID] {
				continue
			}
			ready, blocked := true, false
			var inputs []flow.Input
			for _, d := range st.DependsOn {
				f, ok := finished[d]
				if !ok {
					ready = false
					break
				}
				if f.status != store.StatusCompleted {
					blocked = true
				}
				inputs = append(inputs, flow.Input{Step: d, Output: f.output})
			}
			if !ready {
				continue
			}
			started[st.ID] = true
			if blocked {
				finished[st.ID] = rt.abortStep(ctx, sess, spec, st)
				continue
			}
			cmd, child, err := rt.startStep(ctx, sess, spec, st, dir, inputs)
			if err != nil {
				finished[st.ID] = stepDone{step: st.ID, id: child, status: store.StatusFailed}
				continue
			}
			running++
			go func(st StepSpec) { done <- rt.awaitStep(ctx, cmd, st.ID, child) }(st)
		}
		if len(finished) == len(spec.Steps) {
			break
		}
		if running == 0 {
			// Unreachable for a validated (acyclic) spec; never hang.
			return store.StatusFailed, ReasonWorkerError
		}
		f := <-done
		running--
		finished[f.step] = f
	}
	rt.writeSessionOutput(dir, spec, finished)
	for _, st := range spec.Steps {
		if finished[st.ID].status != store.StatusCompleted {
			return store.StatusFailed, ReasonStepFailed
		}
	}
	return store.StatusCompleted, ReasonAllSteps
}

func (rt *Runtime) childRecord(sess store.Record, spec SessionSpec, st StepSpec) store.NewRecord {
	info := spec.Prompt
	info.Source = "step"
	cs := InvocationSpec{Provider: st.Provider, Cwd: spec.Cwd, Timeout: spec.Timeout, Step: st.ID, Prompt: info}
	// A step is part of the run: it carries the session's notify setting.
	return store.NewRecord{ID: store.NewID(), Kind: store.KindInvocation, Parent: sess.ID, Label: st.ID, Spec: mustJSON(cs),
		Reason: "run.preparing.step_ready", Notify: sess.Notify}
}

func (rt *Runtime) abortStep(ctx context.Context, sess store.Record, spec SessionSpec, st StepSpec) stepDone {
	nr := rt.childRecord(sess, spec, st)
	recs, err := rt.Store.Create(ctx, store.CreateOptions{Actor: ActorCoordinator}, nr)
	if err != nil {
		return stepDone{step: st.ID, status: store.StatusAborted}
	}
	r, _ := rt.end(ctx, recs[0], store.StatusAborted, ReasonDependencyFailed, nil, ActorCoordinator)
	return stepDone{step: st.ID, id: r.ID, status: store.StatusAborted}
}

// startStep writes the child's record (preparing) and prompt, then starts
// its worker.
func (rt *Runtime) startStep(ctx context.Context, sess store.Record, spec SessionSpec, st StepSpec, dir string, inputs []flow.Input) (*exec.Cmd, string, error) {
	base, err := os.ReadFile(filepath.Join(dir, st.PromptFile))
	if err != nil {
		return nil, "", err
	}
	prompt := flow.WithInputs(string(base), inputs)
	nr := rt.childRecord(sess, spec, st)
	info := infoOf(prompt, "step")
	cs := InvocationSpec{Provider: st.Provider, Cwd: spec.Cwd, Timeout: spec.Timeout, Step: st.ID, Prompt: info}
	nr.Spec = mustJSON(cs)
	if err := writeFile(filepath.Join(Dir(rt.Home, nr.ID), PromptFile), []byte(prompt)); err != nil {
		return nil, "", err
	}
	recs, err := rt.Store.Create(ctx, store.CreateOptions{Actor: ActorCoordinator}, nr)
	if err != nil {
		return nil, "", err
	}
	// The step's worker gets its own provider's variables, no one else's.
	cmd, err := startWorker(rt.Exe, rt.Home, nr.ID, secretsFor(rt.secrets(), st.Provider.Env))
	if err != nil {
		_, _ = rt.end(ctx, recs[0], store.StatusFailed, ReasonSpawnError, nil, ActorCoordinator)
		return nil, nr.ID, err
	}
	return cmd, nr.ID, nil
}

// awaitStep waits for a child's worker to exit, then for its record to be
// terminal. A worker that exited without recording an end is reaped here
// (run.failed.process_gone), but only once its process group has been
// empty for a settle period: a kill in progress records its own
// transition as soon as the group empties, and should win.
func (rt *Runtime) awaitStep(ctx context.Context, cmd *exec.Cmd, step, id string) stepDone {
	_ = cmd.Wait()
	const settle = time.Second
	var emptySince time.Time
	for {
		rec, err := rt.Store.Get(ctx, id)
		if err == nil && rec.Terminal() {
			return stepDone{step: step, id: id, status: rec.Status, output: readTail(filepath.Join(Dir(rt.Home, id), StdoutFile), MaxStepInput)}
		}
		if err == nil && rec.PGID > 0 {
			if members, _ := procid.GroupMembers(rec.PGID); len(members) == 0 {
				if emptySince.IsZero() {
					emptySince = time.Now()
				} else if time.Since(emptySince) >= settle {
					_, _ = rt.end(ctx, rec, store.StatusFailed, ReasonProcessGone, nil, ActorCoordinator)
					continue
				}
			} else {
				emptySince = time.Time{}
			}
		} else if err == nil && rec.Status == store.StatusPreparing {
			// The worker exited without ever starting the run (it failed
			// before recording its identity): nothing will start it now.
			if emptySince.IsZero() {
				emptySince = time.Now()
			} else if time.Since(emptySince) >= settle {
				_, _ = rt.end(ctx, rec, store.StatusFailed, ReasonSpawnError, nil, ActorCoordinator)
				continue
			}
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func (rt *Runtime) writeSessionOutput(dir string, spec SessionSpec, finished map[string]stepDone) {
	var b strings.Builder
	for _, st := range spec.Steps {
		f := finished[st.ID]
		fmt.Fprintf(&b, "=== step %s (%s) %s ===\n%s", st.ID, f.id, f.status, f.output)
		if f.output != "" && !strings.HasSuffix(f.output, "\n") {
			b.WriteByte('\n')
		}
	}
	_ = writeFile(filepath.Join(dir, StdoutFile), []byte(b.String()))
}

// readTail returns the last max bytes of a file ("" if unreadable).
func readTail(path string, max int64) string {
	f, err := os.Open(path)
	if err != nil {
		return ""
	}
	defer f.Close()
	if fi, err := f.Stat(); err == nil && fi.Size() > max {
		_, _ = f.Seek(fi.Size()-max, io.SeekStart)
	}
	b, _ := io.ReadAll(io.LimitReader(f, max))
	return string(b)
}
