//go:build unix

package background

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"sync"
	"syscall"
	"time"
	"unicode/utf8"

	"github.com/verbsurface/verbsurface/dispatch"
	"github.com/verbsurface/verbsurface/internal/ctxenv"
	"github.com/verbsurface/verbsurface/internal/procid"
	"github.com/verbsurface/verbsurface/internal/runs"
	"github.com/verbsurface/verbsurface/kill"
	"github.com/verbsurface/verbsurface/verbsurface"
	"github.com/verbsurface/verbsurface/wait"
)

// Runs is a program's background runs: the store in its directory, the
// watch on the ends the supervisors announce, and the verbs that start
// runs and the job verbs that follow them.
type Runs struct {
	dir        string // the store's directory
	store      runs.Store
	watcher    *runs.Watcher
	supervisor []string // the embedder's binary and its hidden subcommand
	env        []string
	// liveMax is the policy's live_runs and subjectMax its
	// live_runs_per_subject (0: none); startMu makes the count and the
	// new record one step within this server.
	liveMax, subjectMax int
	startMu             sync.Mutex
	verbs               map[string]*verb
}

// Options configures [Open].
type Options struct {
	// Dir is the store's directory. Its parent is made private to the
	// user (created 0700 if missing).
	Dir string
	// Supervisor is the command that supervises one run: the embedder's
	// binary and its hidden subcommand, which is given the run's
	// directory and id as two more arguments and calls [Supervise].
	Supervisor []string
	// Env is the environment each run's supervisor, and so its program,
	// gets (a verb's allowlisted environment).
	Env []string
}

// Open opens the background runs' store in opts.Dir.
func Open(opts *Options) (*Runs, error) {
	if opts == nil || opts.Dir == "" {
		return nil, errors.New("background runs: Options.Dir is empty")
	}
	if len(opts.Supervisor) == 0 || opts.Supervisor[0] == "" {
		return nil, errors.New("background runs: Options.Supervisor names no program to supervise runs")
	}
	if err := runs.PrivateDir(filepath.Dir(opts.Dir)); err != nil {
		return nil, err
	}
	st, err := runs.Open(context.Background(), opts.Dir)
	if err != nil {
		return nil, err
	}
	return &Runs{dir: opts.Dir, store: st, watcher: runs.NewWatcher(opts.Dir), supervisor: slices.Clone(opts.Supervisor),
		env: slices.Clone(opts.Env), verbs: map[string]*verb{}}, nil
}

// Dir is the store's directory.
func (b *Runs) Dir() string { return b.dir }

// CountLive is the number of runs not yet ended.
func (b *Runs) CountLive(ctx context.Context) (int, error) { return b.store.CountLive(ctx, "") }

// verb is the Runner of a verb marked background: instead of
// running the rendered command it starts it under a supervisor and
// answers at once.
type verb struct {
	bg     *Runs
	name   string
	runner *dispatch.Runner // the foreground runner: its program, plan, and the reading of an ended run's output
	spec   runSpec          // without Args
	output string
}

// backgroundStart is a background op's result.
type backgroundStart struct {
	RunID      string `json:"run_id"`
	Status     string `json:"status"`
	Background bool   `json:"background"`
	// Output is the verb's output mode: how job.output reads the run's
	// output once it has ended.
	Output string `json:"output"`
	Next   string `json:"next"`
}

// Run starts argv in the background and returns the run's id. It never
// waits for the run.
func (v *verb) Run(ctx context.Context, argv []string) (json.RawMessage, error) {
	spec := v.spec
	spec.Args = append(slices.Clone(spec.Args), argv...)
	rec, err := v.bg.start(ctx, v.name, spec)
	if err != nil {
		return nil, err
	}
	return json.Marshal(backgroundStart{RunID: rec.ID, Status: string(rec.Status), Background: true, Output: v.output,
		Next: fmt.Sprintf(`{"op": "job.wait", "args": {"ids": [%q]}}, then {"op": "job.output", "args": {"id": %q}}`, rec.ID, rec.ID)})
}

// Plan is the foreground runner's: the directory, environment names and
// output mode a run gets.
func (v *verb) Plan() (string, []string, string) { return v.runner.Plan() }

// Background marks the runner for a dry run: the op would start a run in
// the background.
func (v *verb) Background() bool { return true }

// startError is a start that did not happen, as dispatch reports one.
func startError(problem string, err error) error {
	return &dispatch.Error{Kind: dispatch.KindLaunchFailed, ExitCode: -1, Problem: problem, Err: err}
}

// start records a run and starts its supervisor, detached: a session of
// its own, so neither the server's end nor its terminal reaches it.
func (b *Runs) start(ctx context.Context, verb string, spec runSpec) (runs.Record, error) {
	specJSON, err := json.Marshal(spec)
	if err != nil {
		return runs.Record{}, err
	}
	subject := callerSubject(ctx)
	if b.liveMax > 0 || b.subjectMax > 0 {
		b.startMu.Lock()
		defer b.startMu.Unlock()
		if full, err := b.liveLimitReached(ctx, subject); err != nil {
			return runs.Record{}, startError("not started: the live runs could not be counted", err)
		} else if full != "" {
			return runs.Record{}, startError("not started: "+full+"; wait for one to end (job.wait) and resend", nil)
		}
	}
	rec, err := b.store.Create(ctx, runs.New{Verb: verb, Spec: specJSON, Subject: subject})
	if err != nil {
		return runs.Record{}, startError("not started: the run could not be recorded", err)
	}
	cmd := exec.Command(b.supervisor[0], append(slices.Clone(b.supervisor[1:]), b.dir, rec.ID)...)
	// The caller's identity entries (verbsurface.RunIdentity: its env,
	// an exchanged token) reach the program through the supervisor's
	// environment, as a foreground command's do; they are never stored.
	cmd.Env = append(slices.Clip(b.env), ctxenv.From(ctx)...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	if err := cmd.Start(); err != nil {
		_, _ = b.store.Transition(context.WithoutCancel(ctx), runs.Change{ID: rec.ID, Version: rec.Version, To: runs.StatusFailed,
			Reason: reasonLaunchFailed, Actor: "server"})
		return runs.Record{}, startError("not started: its supervisor could not start", err)
	}
	// Its identity is read before anything reaps it (until then the
	// pid stays its, even if it has exited already).
	b.recordSupervisor(context.WithoutCancel(ctx), rec, cmd.Process.Pid)
	// Reaped while this server lives; once it is gone, by whoever
	// adopts the supervisor.
	go cmd.Wait()
	return rec, nil
}

// recordSupervisor records the identity of the supervisor just started
// for rec while the run is preparing, so that a supervisor that dies
// before it records the start is seen to be gone (see evidence). A kill
// request may have bumped the version meanwhile: it reads again and
// records anyway. It gives up without a word once the run is no longer
// preparing (its supervisor recorded itself with the start, or the run
// ended) and when the store cannot be written: the run is then one with
// no supervisor recorded, left alone for the start window.
//
// An identity whose start time cannot be read is recorded with none, so
// the supervisor's pid is known but never judged gone: without the start
// time a reused pid could not be told apart.
func (b *Runs) recordSupervisor(ctx context.Context, rec runs.Record, pid int) {
	sup := runs.Identity{PID: pid}
	if id, err := procid.Of(pid); err == nil {
		sup.StartTime = id.StartTime
	}
	for range 100 {
		_, err := b.store.RecordSupervisor(ctx, rec.ID, rec.Version, sup)
		var te *runs.TransitionError
		if !errors.Is(err, runs.ErrConflict) || !errors.As(err, &te) {
			return
		}
		rec = te.Current
	}
}

// Close releases the store and the watch.
func (b *Runs) Close() error {
	b.watcher.Close()
	return b.store.Close()
}

// The ends a fenced reap records (see abortReason).
const (
	reasonProcessGone    = "run.aborted.process_gone"
	reasonSupervisorGone = "run.aborted.supervisor_gone"
	reasonNoSupervisor   = "run.aborted.no_supervisor"
)

// startWindow is how long a run may stay preparing with no supervisor
// recorded before it is reaped. The server records the supervisor
// within milliseconds of writing the run, and a supervisor records
// itself with the start; past the window, the server died between the two
// writes and nobody will ever start the run. It is the age wait already
// calls an unresolved spawn: a run is reaped no sooner than a waiter is
// told its start is in doubt. A supervisor that is alive but slower than
// the window (a machine stalled for half a minute) finds its run ended
// when it records the start, and stops the program it started.
const startWindow = wait.DefaultPreparingThreshold

// abortReason is the reason a fenced reap of rec records: the program
// and its supervisor vanished (a started run); the supervisor ended
// before it recorded the start; or no supervisor was recorded within the
// start window.
func abortReason(rec runs.Record) string {
	switch {
	case rec.Status != runs.StatusPreparing:
		return reasonProcessGone
	case rec.Supervisor.PID > 0:
		return reasonSupervisorGone
	}
	return reasonNoSupervisor
}

// Observe is the wait.Observer of the runs: one observation per id, with
// the fenced reap: a run the process table shows gone (see evidence) with
// no end recorded is recorded aborted by a compare-and-set, with the
// reason abortReason gives. A started run is observed as it was found
// (stopped_without_end), so the next observation finds it ended; a
// preparing one, which has no started phase to be found stopped in, is
// observed with the end just written. A write refused because the record
// changed (a kill request, the supervisor recording itself) is judged
// again on the record as it now is, a few times; a record that has ended
// meanwhile reports that end; otherwise the finding is reported
// unpublished (stopped_without_end).
func (b *Runs) Observe(ctx context.Context, ids []string) ([]wait.Observation, error) {
	out := make([]wait.Observation, len(ids))
	for i, id := range ids {
		rec, err := b.store.Get(ctx, id)
		if err == nil && !visible(ctx, rec) {
			err = runs.ErrNotFound
		}
		if errors.Is(err, runs.ErrNotFound) {
			out[i] = wait.Observation{ID: id, Error: &wait.IDError{Code: wait.CodeUnknownID, Message: fmt.Sprintf("no background run %q", id)}}
			continue
		}
		if err != nil {
			return nil, err
		}
		out[i] = b.observe(ctx, rec)
	}
	return out, nil
}

// reapTries bounds the compare-and-sets of one observation's reap.
const reapTries = 3

func (b *Runs) observe(ctx context.Context, rec runs.Record) wait.Observation {
	for try := 1; ; try++ {
		ev, orphan := evidence(rec, time.Now())
		o := observation(rec, ev, orphan)
		if rec.Terminal() || ev != wait.EvidenceGone {
			return o
		}
		ended, err := b.store.Transition(ctx, runs.Change{ID: rec.ID, Version: rec.Version, To: runs.StatusAborted, Reason: abortReason(rec), Actor: "observer"})
		var te *runs.TransitionError
		switch {
		case err == nil:
			_ = runs.Notify(b.dir, rec.ID)
			if rec.Status == runs.StatusPreparing {
				return observation(ended, wait.EvidenceGone, false)
			}
			return o
		case errors.As(err, &te) && te.Current.Terminal():
			return observation(te.Current, wait.EvidenceGone, false)
		case errors.As(err, &te) && errors.Is(err, runs.ErrConflict) && try < reapTries:
			rec = te.Current
			continue
		}
		o.PublishFailed = true
		return o
	}
}

func observation(rec runs.Record, ev wait.Evidence, orphan bool) wait.Observation {
	return wait.Observation{ID: rec.ID, Kind: "run", Label: rec.Verb, Status: string(rec.Status), Terminal: rec.Terminal(),
		ReasonCode: rec.ReasonCode, Phase: wait.Phase(rec.Phase), PhaseEnteredAt: rec.PhaseEnteredAt, Process: ev,
		EndRecorded: rec.Terminal(), PossiblyOrphaned: orphan}
}

// evidence is what the process table says about a run at now, in this
// order:
//
//  1. ended: gone (nothing to check);
//  2. no recorded process (preparing): what preparingEvidence says;
//  3. the run's process (pid and start time) is alive: alive;
//  4. its supervisor is alive: alive, because the supervisor records the
//     end (the run's process may be its unreaped child this instant);
//  5. either cannot be checked: unknown;
//  6. the run's group still has live members: unknown, possibly orphaned
//     (whoever would record the end is gone, but processes of the run
//     remain; reaping now would lie);
//  7. otherwise gone.
func evidence(rec runs.Record, now time.Time) (wait.Evidence, bool) {
	if rec.Terminal() {
		return wait.EvidenceGone, false
	}
	if rec.Process.PID <= 0 {
		return preparingEvidence(rec, now)
	}
	run := procid.Check(procid.Identity{PID: rec.Process.PID, StartTime: rec.Process.StartTime})
	if run == procid.Alive {
		return wait.EvidenceAlive, false
	}
	sup := procid.Unknown
	if rec.Supervisor.PID > 0 {
		sup = procid.Check(procid.Identity{PID: rec.Supervisor.PID, StartTime: rec.Supervisor.StartTime})
	}
	switch {
	case sup == procid.Alive:
		return wait.EvidenceAlive, false
	case run == procid.Unknown || sup == procid.Unknown:
		return wait.EvidenceUnknown, false
	case members(rec.Process.PID) > 0:
		return wait.EvidenceUnknown, true
	}
	return wait.EvidenceGone, false
}

// preparingEvidence is what the process table says about a run with no
// recorded process, in this order:
//
//  1. no supervisor recorded: unknown while the run is younger than
//     startWindow; gone past it (its server died before it recorded the
//     supervisor, so nobody is left to start the run);
//  2. the supervisor (pid and start time) is alive: alive;
//  3. it cannot be checked: unknown;
//  4. its session still has live members: unknown, possibly orphaned
//     (the supervisor leads a session of its own and the program stays
//     in it, so it may have started the program and died before it
//     recorded it: reaping now would lie);
//  5. otherwise gone.
func preparingEvidence(rec runs.Record, now time.Time) (wait.Evidence, bool) {
	if rec.Supervisor.PID <= 0 {
		if now.Sub(rec.CreatedAt) < startWindow {
			return wait.EvidenceUnknown, false
		}
		return wait.EvidenceGone, false
	}
	switch procid.Check(procid.Identity{PID: rec.Supervisor.PID, StartTime: rec.Supervisor.StartTime}) {
	case procid.Alive:
		return wait.EvidenceAlive, false
	case procid.Unknown:
		return wait.EvidenceUnknown, false
	}
	if n, err := sessionMembers(rec.Supervisor.PID); err != nil {
		return wait.EvidenceUnknown, false
	} else if n > 0 {
		return wait.EvidenceUnknown, true
	}
	return wait.EvidenceGone, false
}

// sessionMembers counts the live members of session sid. A session id
// is its leader's pid, which the kernel does not give another process
// while the session has members, so they are the leader's descendants.
func sessionMembers(sid int) (int, error) {
	live, err := procid.Live()
	if err != nil {
		return 0, err
	}
	n := 0
	for _, st := range live {
		if st.SID == 0 && runtime.GOOS == "darwin" {
			// Not in macOS's listing: asked of the process itself. Only a
			// process that has gone meanwhile may go uncounted.
			one, err := procid.ReadStat(st.PID)
			if errors.Is(err, procid.ErrGone) {
				continue
			}
			if err != nil {
				return 0, err
			}
			st.SID = one.SID
		}
		if st.SID == sid {
			n++
		}
	}
	return n, nil
}

// runJSON is a run as the job verbs show it. Every key is always present.
type runJSON struct {
	ID             string     `json:"id"`
	Verb           string     `json:"verb"`
	Status         string     `json:"status"`
	Terminal       bool       `json:"terminal"`
	Outcome        string     `json:"outcome"`
	ReasonCode     string     `json:"reason_code"`
	Phase          string     `json:"phase"`
	PhaseEnteredAt time.Time  `json:"phase_entered_at"`
	ExitCode       *int       `json:"exit_code"`
	Signal         *string    `json:"signal"`
	PID            *int       `json:"pid"`
	KillRequested  bool       `json:"kill_requested"`
	CreatedAt      time.Time  `json:"created_at"`
	StartedAt      *time.Time `json:"started_at"`
	EndedAt        *time.Time `json:"ended_at"`
	StdoutBytes    int64      `json:"stdout_bytes"`
	StderrBytes    int64      `json:"stderr_bytes"`
	Version        int64      `json:"version"`
	// Subject is the verified subject that started the run (null when
	// its caller had none).
	Subject *string `json:"subject"`
}

func (b *Runs) runJSON(rec runs.Record) runJSON {
	j := runJSON{ID: rec.ID, Verb: rec.Verb, Status: string(rec.Status), Terminal: rec.Terminal(), Outcome: rec.Outcome,
		ReasonCode: rec.ReasonCode, Phase: rec.Phase, PhaseEnteredAt: rec.PhaseEnteredAt, ExitCode: rec.ExitCode,
		KillRequested: rec.KillRequested, CreatedAt: rec.CreatedAt, Version: rec.Version}
	if rec.Signal != "" {
		j.Signal = &rec.Signal
	}
	if rec.Subject != "" {
		j.Subject = &rec.Subject
	}
	if rec.Process.PID > 0 {
		j.PID = &rec.Process.PID
	}
	if !rec.StartedAt.IsZero() {
		j.StartedAt = &rec.StartedAt
	}
	if !rec.EndedAt.IsZero() {
		j.EndedAt = &rec.EndedAt
	}
	j.StdoutBytes, j.StderrBytes = fileSize(outputPath(b.dir, rec.ID, "stdout")), fileSize(outputPath(b.dir, rec.ID, "stderr"))
	return j
}

func fileSize(p string) int64 {
	fi, err := os.Stat(p)
	if err != nil {
		return 0
	}
	return fi.Size()
}

// jobError is a job verb's refusal, with a code the surface keeps in the
// error's details.
type jobError struct {
	code, msg string
}

func (e *jobError) Error() string        { return e.msg }
func (e *jobError) ErrorCode() string    { return e.code }
func (e *jobError) ErrorMessage() string { return e.msg }

// jobArgError refuses an argument the schema admitted (invalid_args).
type jobArgError struct{ param, msg string }

func (e *jobArgError) Error() string { return e.msg }
func (e *jobArgError) Param() string { return e.param }

// callerSubject is the verified subject of the op's caller, "" when it
// has none (a test sets one without an HTTP request).
var callerSubject = func(ctx context.Context) string { return verbsurface.RequestClient(ctx).Subject }

// visible reports whether the caller in ctx may see and act on rec. A
// caller with a verified subject reaches the runs it started and no
// other: another subject's run, or one started by a caller with none,
// is to it as a run that does not exist (so its existence is not told
// either). A caller without a subject (stdio, a static token: the
// operator's own) reaches every run.
func visible(ctx context.Context, rec runs.Record) bool {
	subject := callerSubject(ctx)
	return subject == "" || rec.Subject == subject
}

// get reads run id for a job verb: an unknown id, or one the caller may
// not see, is the caller's mistake, said on the parameter.
func (b *Runs) get(ctx context.Context, id string) (runs.Record, error) {
	rec, err := b.store.Get(ctx, id)
	if err == nil && !visible(ctx, rec) {
		err = runs.ErrNotFound
	}
	if errors.Is(err, runs.ErrNotFound) {
		return rec, &jobArgError{param: "id", msg: fmt.Sprintf("no background run %q; job.list lists them", id)}
	}
	return rec, err
}

func intArg(args map[string]any, name string, def int64) int64 {
	switch n := args[name].(type) {
	case float64:
		return int64(n)
	case int:
		return int64(n)
	case int64:
		return n
	case json.Number:
		if i, err := n.Int64(); err == nil {
			return i
		}
	}
	return def
}

// status is job.status: the run as it is now, observed (so a run whose
// process vanished is reaped, once) and classified as a wait would.
func (b *Runs) status(ctx context.Context, call *verbsurface.Call) (any, error) {
	id, _ := call.Args["id"].(string)
	rec, err := b.get(ctx, id)
	if err != nil {
		return nil, err
	}
	obs := b.observe(ctx, rec)
	if cur, err := b.store.Get(ctx, id); err == nil {
		rec = cur
	}
	return map[string]any{"run": b.runJSON(rec), "class": wait.Classify(obs, time.Now(), wait.DefaultPreparingThreshold),
		"process": obs.Process}, nil
}

// Bounds of job.list.
const (
	defaultListLimit = 50
	maxListLimit     = 500
)

// list is job.list: the runs the caller may see, newest first.
func (b *Runs) list(ctx context.Context, call *verbsurface.Call) (any, error) {
	live, _ := call.Args["live"].(bool)
	limit := intArg(call.Args, "limit", defaultListLimit)
	recs, err := b.store.List(ctx, runs.ListOptions{Live: live, Limit: int(limit), Subject: callerSubject(ctx)})
	if err != nil {
		return nil, err
	}
	out := make([]runJSON, len(recs))
	for i, r := range recs {
		out[i] = b.runJSON(r)
	}
	return map[string]any{"runs": out, "count": len(out), "limit": limit}, nil
}

// Bounds of one job.output chunk.
const (
	defaultOutputLength = 64 << 10
	maxOutputLength     = 1 << 20
)

// output is job.output: a chunk of a run's stdout or stderr from an
// offset, so a caller can follow a run while it runs, and once it has
// ended the result the foreground op would have given, read from the
// same output by the verb's output mode.
func (b *Runs) output(ctx context.Context, call *verbsurface.Call) (any, error) {
	id, _ := call.Args["id"].(string)
	rec, err := b.get(ctx, id)
	if err != nil {
		return nil, err
	}
	stream, _ := call.Args["stream"].(string)
	if stream == "" {
		stream = "stdout"
	}
	offset := intArg(call.Args, "offset", 0)
	length := intArg(call.Args, "length", defaultOutputLength)
	path := outputPath(b.dir, rec.ID, stream)
	size := fileSize(path)
	chunk, err := readChunk(path, offset, length, !rec.Terminal())
	if err != nil {
		return nil, err
	}
	res := map[string]any{"id": rec.ID, "stream": stream, "status": rec.Status, "ended": rec.Terminal(),
		"offset": offset, "next_offset": offset + int64(len(chunk)), "size": size, "data": string(chunk),
		"eof": rec.Terminal() && offset+int64(len(chunk)) >= size}
	if rec.Terminal() {
		res["result"] = b.result(rec)
	}
	return res, nil
}

// readChunk reads up to length bytes of path from offset. While the run
// writes (growing), a chunk that ends inside a UTF-8 sequence is cut
// before it, so the next offset starts on a character.
func readChunk(path string, offset, length int64, growing bool) ([]byte, error) {
	f, err := os.Open(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil // not started yet
	}
	if err != nil {
		return nil, err
	}
	defer f.Close()
	buf := make([]byte, length)
	n, err := f.ReadAt(buf, offset)
	if err != nil && !errors.Is(err, io.EOF) {
		return nil, err
	}
	buf = buf[:n]
	if n == int(length) || growing {
		for cut := 0; cut < utf8.UTFMax && len(buf) > 0; cut++ {
			r, size := utf8.DecodeLastRune(buf)
			if r != utf8.RuneError || size != 1 {
				break
			}
			if utf8.RuneStart(buf[len(buf)-1]) {
				buf = buf[:len(buf)-1]
				break
			}
			buf = buf[:len(buf)-1]
		}
	}
	return buf, nil
}

// opResult is an ended run's result in an op's words: ok with data, or
// the error the op would have failed with.
type opResult struct {
	OK    bool            `json:"ok"`
	Data  json.RawMessage `json:"result,omitempty"`
	Error *kill.Failure   `json:"error,omitempty"` // a coded failure: code, message, details
}

// result reads an ended run's output as the foreground op would have:
// the verb's runner interprets what was kept and how the run ended.
func (b *Runs) result(rec runs.Record) opResult {
	v := b.verbs[rec.Verb]
	if v == nil {
		return opResult{Error: &kill.Failure{Code: "unknown_verb", Message: fmt.Sprintf("the run's verb %q is no longer configured, so its output cannot be read as that verb's", rec.Verb)}}
	}
	var spec runSpec
	_ = json.Unmarshal(rec.Spec, &spec)
	switch rec.Status {
	case runs.StatusCancelled:
		return opResult{Error: &kill.Failure{Code: verbsurface.CodeCancelled, Message: "the run was killed (job.kill) before it ended on its own"}}
	case runs.StatusAborted:
		msg := "the run's process and its supervisor vanished with no end recorded; its output may be incomplete"
		switch rec.ReasonCode {
		case reasonSupervisorGone:
			msg = "the run's supervisor ended before it recorded the program's start; the program did not run, or did not run to an end anyone recorded"
		case reasonNoSupervisor:
			msg = fmt.Sprintf("no supervisor was recorded for the run within %v of its record (the server ended before it could); nobody was left to run the program", startWindow)
		}
		return opResult{Error: &kill.Failure{Code: "process_gone", Message: msg}}
	}
	if rec.ReasonCode == reasonLaunchFailed {
		stderr, _ := os.ReadFile(outputPath(b.dir, rec.ID, "stderr"))
		return opResult{Error: &kill.Failure{Code: verbsurface.CodeLaunchFailed, Message: "the run could not start: " + string(stderr)}}
	}
	if rec.ReasonCode == reasonOverflow {
		return opResult{Error: &kill.Failure{Code: verbsurface.CodeOutputOverflow, Message: fmt.Sprintf(
			"the run's output passed its cap (stdout %d bytes, stderr %d bytes); its process group was terminated", spec.StdoutCap, spec.StderrCap)}}
	}
	stdout, _ := os.ReadFile(outputPath(b.dir, rec.ID, "stdout"))
	stderr, _ := os.ReadFile(outputPath(b.dir, rec.ID, "stderr"))
	code := -1
	if rec.ExitCode != nil {
		code = *rec.ExitCode
	}
	data, err := v.runner.Interpret(spec.Args, stdout, stderr, code, rec.Signal)
	if err != nil {
		oe := &kill.Failure{Code: verbsurface.CodeInternalError, Message: err.Error()}
		var c interface{ ErrorCode() string }
		if errors.As(err, &c) {
			oe.Code = c.ErrorCode()
		}
		var w interface{ ErrorMessage() string }
		if errors.As(err, &w) {
			oe.Message = w.ErrorMessage()
		}
		var d interface{ ErrorDetails() map[string]any }
		if errors.As(err, &d) {
			oe.Details = d.ErrorDetails()
		}
		return opResult{Error: oe}
	}
	return opResult{OK: true, Data: data}
}

// progressEvery bounds the rate of progress notifications of one wait.
const progressEvery = time.Second

// wait is job.wait: verbsurface.WaitHandler (package wait, its id cap
// and its bound on a request's total wait) over the store itself, woken
// by the ends the supervisors announce. When the client sent a progress
// token it is told, at most once a second, how long the wait has run, how
// many runs have ended and how many bytes of output they have written so
// far.
func (b *Runs) wait(ctx context.Context, call *verbsurface.Call) (any, error) {
	var last time.Time
	// The ids, once: the handler refuses arguments that do not parse
	// before any progress is asked for.
	ids, _ := wait.ParseArgs(call.Args)
	return verbsurface.WaitHandler(&verbsurface.WaitHandlerOptions{
		Observer: b,
		Wake:     b.watcher.Subscribe,
		Progress: func(p wait.Progress) (float64, float64, string, bool) {
			now := time.Now()
			if !last.IsZero() && now.Sub(last) < progressEvery {
				return 0, 0, "", false
			}
			last = now
			var bytes int64
			seen := map[string]bool{}
			for _, id := range ids.IDs {
				if !seen[id] {
					seen[id] = true
					if rec, err := b.store.Get(ctx, id); err != nil || !visible(ctx, rec) {
						continue // another's output is not told, not even its size
					}
					bytes += fileSize(outputPath(b.dir, id, "stdout")) + fileSize(outputPath(b.dir, id, "stderr"))
				}
			}
			// Progress must increase: the time waited does.
			return p.Elapsed.Seconds(), 0, fmt.Sprintf("%d of %d runs ended; %d bytes of output so far; %.0f s waited",
				p.Terminal, p.Total, bytes, p.Elapsed.Seconds()), true
		},
	})(ctx, call)
}

// kill is job.kill: the run's process group, signalled by package kill
// after it checks the group's leader is still the recorded process (a
// reused pid is never signalled). An ended run is not signalled. The kill
// is marked on the record first, so the supervisor records the end as
// cancelled; a run still preparing is stopped by its supervisor as soon
// as it starts, or, when the observation finds the run has nobody left to
// start it, reaped.
func (b *Runs) kill(ctx context.Context, call *verbsurface.Call) (any, error) {
	id, _ := call.Args["id"].(string)
	grace, err := kill.ParseGrace(call.Args)
	if err != nil {
		return nil, err
	}
	rec, err := b.get(ctx, id)
	if err != nil {
		return nil, err
	}
	if rec.Terminal() {
		return map[string]any{"run": b.runJSON(rec), "signalled": false,
			"reason": fmt.Sprintf("the run had already ended (%s); nothing was signalled", rec.Status)}, nil
	}
	// A kill runs to its end whatever the client does: half a kill is
	// worse than none.
	ctx = context.WithoutCancel(ctx)
	if rec, err = b.store.RequestKill(ctx, id); err != nil {
		return nil, err
	}
	if rec.Terminal() {
		return map[string]any{"run": b.runJSON(rec), "signalled": false,
			"reason": fmt.Sprintf("the run ended (%s) as the kill was asked; nothing was signalled", rec.Status)}, nil
	}
	if rec.Process.PID <= 0 {
		// A supervisor that is gone stops nothing: the reap ends the run.
		if o := b.observe(ctx, rec); o.Terminal {
			if cur, err := b.store.Get(ctx, id); err == nil {
				rec = cur
			}
			reason := fmt.Sprintf("the run ended (%s) as the kill was asked; nothing was signalled", rec.Status)
			if rec.ReasonCode == reasonSupervisorGone || rec.ReasonCode == reasonNoSupervisor {
				reason = fmt.Sprintf("nobody was left to start the run, so it was recorded %s (%s); nothing was signalled", rec.Status, rec.ReasonCode)
			}
			return map[string]any{"run": b.runJSON(rec), "signalled": false, "reason": reason}, nil
		}
		return map[string]any{"run": b.runJSON(rec), "signalled": false,
			"reason": "the run is still preparing; its supervisor stops it as soon as it starts, and records it cancelled"}, nil
	}
	res, err := kill.NewKiller(nil, &kill.Options{Grace: grace}).Kill(ctx, kill.Record{
		Group:              &kill.Group{PGID: rec.Process.PID, Leader: kill.Identity{PID: rec.Process.PID, StartTime: rec.Process.StartTime}},
		ServerCreatedGroup: true, // started in a group of its own by this front's supervisor, identity recorded then
	})
	if err != nil {
		return nil, err
	}
	// The supervisor records the end it caused; wait briefly for it, so
	// the answer usually shows the run ended.
	wctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	if r, werr := wait.Wait(wctx, b, []string{id}, &wait.Options{MaxWait: wait.Seconds(5), Wake: b.watcher.Subscribe(wctx)}); werr == nil && len(r.Entries) == 1 {
		if cur, gerr := b.store.Get(ctx, id); gerr == nil {
			rec = cur
		}
	}
	return map[string]any{"run": b.runJSON(rec), "signalled": true, "kill": res}, nil
}

// Verb makes the Runner of a verb that starts in the background, from
// its foreground runner r, the verb's command (program first) and the
// exits that complete a run (okExit; [0] when empty). The Runner answers
// at once with the run's id; the job verbs ([Runs.RegisterJobVerbs])
// follow the run.
func (b *Runs) Verb(name string, r *dispatch.Runner, command []string, okExit []int) verbsurface.Runner {
	dir, _, mode := r.Plan()
	if len(okExit) == 0 {
		okExit = []int{0}
	}
	v := &verb{bg: b, name: name, runner: r, output: mode, spec: runSpec{
		Program: r.Path(), Args: slices.Clone(command[1:]), Dir: dir, OKExit: okExit,
		StdoutCap: dispatch.DefaultStdoutCap, StderrCap: dispatch.DefaultStderrCap, Grace: kill.DefaultGrace,
	}}
	b.verbs[name] = v
	return v
}

// LimitLive applies a policy's live_runs (max) and live_runs_per_subject
// (perSubject) to the background runs: an op of a background verb is
// refused by the surface's policy gate while max runs are live, or while
// perSubject runs of the caller's verified subject are (a caller without
// one is held by max only; a dry run shows it), and the start itself
// counts again with the new record in one step, so concurrent ops cannot
// pass one free slot together.
func (b *Runs) LimitLive(max, perSubject int, sopts *verbsurface.Options) {
	b.liveMax, b.subjectMax = max, perSubject
	prev := sopts.Policy
	sopts.Policy = func(ctx context.Context, op verbsurface.PolicyOp) error {
		if prev != nil {
			if err := prev(ctx, op); err != nil {
				return err
			}
		}
		if b.verbs[op.Verb] == nil {
			return nil
		}
		full, err := b.liveLimitReached(ctx, callerSubject(ctx))
		if err != nil {
			return fmt.Errorf("the policy limits live runs and they could not be counted (%v); nothing was started", err)
		}
		if full != "" {
			return fmt.Errorf("%s; nothing was started: wait for one to end (job.wait) and resend", full)
		}
		return nil
	}
}

// liveLimitReached says which live-run limit a new run of subject would
// pass, in limcp's words (the caller's own limit named first), or "" when
// none would. The total is counted for every caller; the subject's runs
// only for a caller with a subject.
func (b *Runs) liveLimitReached(ctx context.Context, subject string) (string, error) {
	if b.subjectMax > 0 && subject != "" {
		n, err := b.store.CountLive(ctx, subject)
		if err != nil {
			return "", err
		}
		if n >= b.subjectMax {
			return fmt.Sprintf("the policy allows each caller %d live runs at once and %d of %s's are live", b.subjectMax, n, subject), nil
		}
	}
	if b.liveMax > 0 {
		n, err := b.store.CountLive(ctx, "")
		if err != nil {
			return "", err
		}
		if n >= b.liveMax {
			return fmt.Sprintf("the policy allows %d live runs at once and %d are live", b.liveMax, n), nil
		}
	}
	return "", nil
}
