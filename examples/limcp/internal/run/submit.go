//go:build unix

package run

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/verbsurface/verbsurface/examples/limcp/internal/flow"
	"github.com/verbsurface/verbsurface/examples/limcp/internal/machine"
	"github.com/verbsurface/verbsurface/examples/limcp/internal/playbook"
	"github.com/verbsurface/verbsurface/examples/limcp/internal/provider"
	"github.com/verbsurface/verbsurface/examples/limcp/internal/quota"
	"github.com/verbsurface/verbsurface/examples/limcp/internal/store"
	"github.com/verbsurface/verbsurface/examples/limcp/internal/textfile"
)

// Common are the options every spawn command takes.
type Common struct {
	Cwd     string        // the provider's working directory; "" → the submitter's
	Timeout time.Duration // per invocation; 0 → none
	Label   string
	Team    string // a team board to post the end on; must exist
	// Notify is the run's terminal-notify setting (resolved and checked by
	// the notify package; the zero value: none). Every record of the run
	// carries it, so each entity's end is announced.
	Notify store.Notify
}

// Submitted is the machine result of a spawn command: the new record,
// returned at once (its phase is normally still preparing), with the
// worker's pid and pgid. They are named worker_pid and worker_pgid, not
// pid and pgid, because Record is the store's snapshot: its pid stays null
// until the worker records its own identity (pid and start time) on
// start, and then equals worker_pid. The same key never means two things.
type Submitted struct {
	ID                  string           `json:"id"`
	Kind                store.Kind       `json:"kind"`
	Label               string           `json:"label"`
	Status              store.Status     `json:"status"`
	Phase               string           `json:"phase"`
	PID                 int              `json:"worker_pid"`
	PGID                int              `json:"worker_pgid"`
	Parent              *string          `json:"parent"`
	Session             *string          `json:"session,omitempty"` // play: its session
	Show                *string          `json:"show,omitempty"`    // play with --show: the show's id
	Prompt              PromptInfo       `json:"prompt"`
	PlaybookFingerprint string           `json:"playbook_fingerprint,omitempty"`
	Record              store.RecordJSON `json:"record"`
	// Notify is the run's terminal-notify setting as resolved at submit
	// (null: none); every part of the run carries it.
	Notify *store.NotifyJSON `json:"notify"`
}

// MaxFanout bounds fanout -n.
const MaxFanout = 64

func (rt *Runtime) common(ctx context.Context, c *Common) error {
	if c.Timeout < 0 {
		return machine.Errorf(machine.InvalidArgument, map[string]any{"argument": "timeout"}, "--timeout %s is negative", c.Timeout)
	}
	if c.Cwd == "" {
		wd, err := os.Getwd()
		if err != nil {
			return machine.Errorf(machine.InvalidArgument, map[string]any{"argument": "cwd"}, "cannot determine the working directory: %v", err)
		}
		c.Cwd = wd
	}
	abs, err := filepath.Abs(c.Cwd)
	if err != nil {
		return machine.Errorf(machine.InvalidArgument, map[string]any{"argument": "cwd"}, "--cwd %q: %v", c.Cwd, err)
	}
	if fi, err := os.Stat(abs); err != nil || !fi.IsDir() {
		return machine.Errorf(machine.InvalidArgument, map[string]any{"argument": "cwd"}, "--cwd %q is not a directory", c.Cwd)
	}
	c.Cwd = abs
	if c.Team != "" {
		ok, err := rt.Store.TeamExists(ctx, c.Team)
		if err != nil {
			return err
		}
		if !ok {
			return machine.Errorf(machine.UnknownTeam, map[string]any{"team": c.Team}, "team %q does not exist (create it with `limcp team create %s`)", c.Team, c.Team)
		}
	}
	return nil
}

// SubmitAgent starts one invocation of model on prompt.
func (rt *Runtime) SubmitAgent(ctx context.Context, model string, p Prompt, c Common) (*Submitted, error) {
	if err := rt.common(ctx, &c); err != nil {
		return nil, err
	}
	prov, err := provider.Resolve(rt.Home, model)
	if err != nil {
		return nil, err
	}
	label := c.Label
	if label == "" {
		label = model
	}
	spec := InvocationSpec{Provider: prov, Cwd: c.Cwd, Timeout: Duration(c.Timeout), Prompt: p.Info}
	files := map[string]string{PromptFile: p.Text}
	if err := rt.checkQuota(files, nil); err != nil {
		return nil, err
	}
	id := store.NewID()
	return rt.submit(ctx, id, files, p.Info, "", prov.Env,
		store.NewRecord{ID: id, Kind: store.KindInvocation, Label: label, Team: c.Team, Spec: mustJSON(spec), Notify: c.Notify})
}

// SubmitFanout starts a session of n invocations of model on prompt, then,
// when synthesis is not empty, a synthesis invocation fed their outputs.
func (rt *Runtime) SubmitFanout(ctx context.Context, model string, n int, synthesis string, p Prompt, c Common) (*Submitted, error) {
	if n < 1 || n > MaxFanout {
		return nil, machine.Errorf(machine.InvalidArgument, map[string]any{"argument": "n"}, "-n %d is out of range 1..%d", n, MaxFanout)
	}
	if err := rt.common(ctx, &c); err != nil {
		return nil, err
	}
	prov, err := provider.Resolve(rt.Home, model)
	if err != nil {
		return nil, err
	}
	var steps []StepSpec
	var deps []string
	for i := 1; i <= n; i++ {
		id := fmt.Sprint(i)
		steps = append(steps, StepSpec{ID: id, Provider: prov, PromptFile: PromptFile})
		deps = append(deps, id)
	}
	if synthesis != "" {
		sp, err := provider.Resolve(rt.Home, synthesis)
		if err != nil {
			return nil, err
		}
		steps = append(steps, StepSpec{ID: "synthesis", Provider: sp, DependsOn: deps, PromptFile: PromptFile})
	}
	label := c.Label
	if label == "" {
		label = fmt.Sprintf("fanout %s x%d", model, n)
	}
	return rt.submitSession(ctx, ModeFanout, label, steps, map[string]string{PromptFile: p.Text}, p.Info, c)
}

// SubmitFlow starts a session running the flow spec in file.
func (rt *Runtime) SubmitFlow(ctx context.Context, file string, p Prompt, c Common) (*Submitted, error) {
	b, err := textfile.Read(file, flow.MaxSpecBytes)
	if err != nil {
		return nil, machine.Errorf(machine.InvalidFlowSpec, map[string]any{"file": file, "field": ""}, "cannot read flow spec: %v", err)
	}
	spec, err := flow.Parse(b)
	if err != nil {
		return nil, flowErr(file, err)
	}
	if err := rt.common(ctx, &c); err != nil {
		return nil, err
	}
	rendered, err := spec.RenderWithin(p.Text, nil, rt.limits().RunBytes)
	var te *flow.TotalError
	switch {
	case errors.As(err, &te):
		return nil, runBytesErr(te)
	case err != nil:
		return nil, flowErr(file, err)
	}
	steps, files, err := rt.resolveSteps(rendered, "flow spec", file, "")
	if err != nil {
		return nil, err
	}
	label := c.Label
	if label == "" {
		label = "flow " + filepath.Base(file)
	}
	files[PromptFile] = p.Text
	return rt.submitSession(ctx, ModeFlow, label, steps, files, p.Info, c)
}

// runBytesErr is the refusal of a flow whose step prompts, rendered,
// passed limits.run_bytes: limit_reached, nothing written.
func runBytesErr(te *flow.TotalError) error {
	return quota.Reached("run_bytes", te.Total, te.Rendered,
		fmt.Sprintf("the run was not started: its step prompts, rendered up to steps[%d], are too large", te.Step))
}

// flowErr is an invalid_flow_spec error naming file and, for a
// *flow.FieldError, the field.
func flowErr(file string, err error) error {
	var fe *flow.FieldError
	field, msg := "", err.Error()
	if errors.As(err, &fe) {
		field, msg = fe.Field, fe.Msg
	}
	where := file
	if field != "" {
		where += ": field " + field
	}
	return machine.Errorf(machine.InvalidFlowSpec, map[string]any{"file": file, "field": field}, "invalid flow spec %s: %s", where, msg)
}

// resolveSteps resolves every step's model and names the prompt file of
// each step. A model that cannot be resolved is reported against its
// field: what and file name the document the flow came from (a flow spec,
// a playbook), prefix where the flow sits in it ("" or "flow.").
func (rt *Runtime) resolveSteps(spec flow.Spec, what, file, prefix string) ([]StepSpec, map[string]string, error) {
	files := map[string]string{}
	var steps []StepSpec
	for i, st := range spec.Steps {
		prov, err := provider.Resolve(rt.Home, st.Model)
		if err != nil {
			field := fmt.Sprintf("%ssteps[%d].model", prefix, i)
			var me *machine.Error
			if errors.As(err, &me) {
				me.Message = fmt.Sprintf("%s %s: %s: %s", what, file, field, me.Message)
				if d, ok := me.Details.(map[string]any); ok {
					d["file"], d["field"] = file, field
				}
			}
			return nil, nil, err
		}
		name := "step-" + st.ID + ".txt"
		files[name] = st.Prompt
		steps = append(steps, StepSpec{ID: st.ID, Provider: prov, DependsOn: st.DependsOn, PromptFile: name})
	}
	return steps, files, nil
}

func (rt *Runtime) submitSession(ctx context.Context, mode, label string, steps []StepSpec, files map[string]string, info PromptInfo, c Common) (*Submitted, error) {
	if err := rt.checkQuota(files, steps); err != nil {
		return nil, err
	}
	spec := SessionSpec{Mode: mode, Steps: steps, Cwd: c.Cwd, Timeout: Duration(c.Timeout), Prompt: info}
	id := store.NewID()
	return rt.submit(ctx, id, files, info, "", providerEnvNames(steps),
		store.NewRecord{ID: id, Kind: store.KindSession, Label: label, Team: c.Team, Spec: mustJSON(spec), Notify: c.Notify})
}

// submit is the tail every spawn shares: it snapshots files (name → text)
// into the run directory of dirID, writes recs in status preparing in one
// transaction (the first joining the open show named show, if any), and
// starts the worker of the first. The run directory is removed if the
// records cannot be written; once they are, a worker that cannot start
// fails them (launch).
//
// envNames are the variables the run's providers pass through: their
// values go to the worker on its descriptor (startWorker).
func (rt *Runtime) submit(ctx context.Context, dirID string, files map[string]string, info PromptInfo, show string, envNames []string, recs ...store.NewRecord) (*Submitted, error) {
	dir := Dir(rt.Home, dirID)
	for name, text := range files {
		if err := writeFile(filepath.Join(dir, name), []byte(text)); err != nil {
			os.RemoveAll(dir)
			return nil, machine.Errorf(machine.StoreError, map[string]any{"path": dir}, "writing the prompt snapshot: %v", err)
		}
	}
	for i := range recs {
		recs[i].Reason = "run.preparing.submitted"
	}
	created, err := rt.Store.Create(ctx, store.CreateOptions{Actor: ActorCLI, Show: show}, recs...)
	if err != nil {
		os.RemoveAll(dir)
		return nil, err
	}
	sub, err := rt.launch(ctx, created[0], secretsFor(rt.secrets(), envNames))
	if err != nil {
		return nil, err
	}
	sub.Prompt = info
	return sub, nil
}

// SubmitPlay starts a play of the playbook pb (as injected, with its
// fingerprint and the parsed arg values): a play record owning a session
// that runs the playbook's flow. show, when set, groups the play under the
// open show of that name.
func (rt *Runtime) SubmitPlay(ctx context.Context, pb *playbook.Playbook, fingerprint string, args map[string]any, p Prompt, show string, c Common) (*Submitted, error) {
	if err := rt.common(ctx, &c); err != nil {
		return nil, err
	}
	rendered, err := pb.Flow.RenderWithin(p.Text, args, rt.limits().RunBytes)
	if err != nil {
		var te *flow.TotalError
		if errors.As(err, &te) {
			return nil, runBytesErr(te)
		}
		var fe *flow.FieldError
		field := "flow"
		if errors.As(err, &fe) {
			field = "flow." + fe.Field
		}
		return nil, machine.Errorf(machine.InvalidPlaybook, map[string]any{"file": pb.File, "field": field}, "invalid playbook %s: field %s: %v", pb.File, field, err)
	}
	steps, files, err := rt.resolveSteps(rendered, "playbook", pb.File, "flow.")
	if err != nil {
		return nil, err
	}
	files[PromptFile] = p.Text
	label := c.Label
	if label == "" {
		label = pb.Name
	}
	if err := rt.checkQuota(files, steps); err != nil {
		return nil, err
	}
	playID, sessID := store.NewID(), store.NewID()
	sspec := SessionSpec{Mode: ModePlay, Steps: steps, Cwd: c.Cwd, Timeout: Duration(c.Timeout), Prompt: p.Info}
	pspec := PlaySpec{Playbook: pb.Name, Fingerprint: fingerprint, Args: args, Session: sessID, Show: show}
	// The session's coordinator reads its step prompts from its own run
	// directory; the play's worker is that coordinator.
	sub, err := rt.submit(ctx, sessID, files, p.Info, show, providerEnvNames(steps),
		store.NewRecord{ID: playID, Kind: store.KindPlay, Label: label, Team: c.Team, Spec: mustJSON(pspec), Notify: c.Notify},
		store.NewRecord{ID: sessID, Kind: store.KindSession, Parent: playID, Label: pb.Name, Spec: mustJSON(sspec), Notify: c.Notify})
	if err != nil {
		return nil, err
	}
	sub.PlaybookFingerprint = fingerprint
	sub.Session = &sessID
	sub.Show = sub.Parent // a play's only parent is its show
	return sub, nil
}

// RunBytes is what a run's prompts take in its run directories once
// written: the files a submit writes (the prompt, each step's rendered
// prompt), then each step's own copy, written when the step starts, with
// the outputs of its dependencies appended (each at most MaxStepInput).
// It is known before anything is written, so a run too large for the
// home's bounds is refused whole.
func RunBytes(files map[string]string, steps []StepSpec) int64 {
	var n int64
	for _, text := range files {
		n += int64(len(text))
	}
	for _, st := range steps {
		n += int64(len(files[st.PromptFile])) + int64(len(st.DependsOn))*MaxStepInput
	}
	return n
}

// checkQuota refuses a run whose prompts take more than the home's
// run_bytes, or that would take the home's run data past home_bytes
// (limit_reached, nothing written).
func (rt *Runtime) checkQuota(files map[string]string, steps []StepSpec) error {
	l := rt.limits()
	n := RunBytes(files, steps)
	if err := l.CheckRun(n); err != nil {
		return err
	}
	return l.CheckHome(filepath.Join(rt.Home, RunsDir), n)
}

// launch starts the worker of a preparing record and returns the submit
// result. A worker that cannot be started fails the record (and a play's
// session with it) so nothing is left preparing forever.
func (rt *Runtime) launch(ctx context.Context, rec store.Record, secrets map[string]string) (*Submitted, error) {
	cmd, err := startWorker(rt.Exe, rt.Home, rec.ID, secrets)
	if err != nil {
		rt.failUnstarted(ctx, rec)
		return nil, machine.Errorf(machine.SpawnFailed, map[string]any{"id": rec.ID},
			"%s %s: could not start its worker (%s): %v; the record is failed (%s)", rec.Kind, rec.ID, rt.Exe, err, ReasonSpawnError)
	}
	pid := cmd.Process.Pid
	_ = cmd.Process.Release() // the worker outlives this command; init reaps it
	sub := &Submitted{ID: rec.ID, Kind: rec.Kind, Label: rec.Label, Status: rec.Status, Phase: rec.Phase,
		PID: pid, PGID: pid, Record: rec.JSON(), Notify: rec.Notify.JSON()}
	if rec.Parent != "" {
		p := rec.Parent
		sub.Parent = &p
	}
	return sub, nil
}

func (rt *Runtime) failUnstarted(ctx context.Context, rec store.Record) {
	ctx = context.WithoutCancel(ctx)
	_, _ = rt.Store.Transition(ctx, store.Change{ID: rec.ID, Version: rec.Version, To: store.StatusFailed, Reason: ReasonSpawnError, Actor: ActorCLI})
	kids, _ := rt.Store.Children(ctx, rec.ID)
	for _, k := range kids {
		if !k.Terminal() {
			_, _ = rt.Store.Transition(ctx, store.Change{ID: k.ID, Version: k.Version, To: store.StatusFailed, Reason: ReasonSpawnError, Actor: ActorCLI})
		}
	}
}
