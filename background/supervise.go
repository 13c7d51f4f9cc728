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
	"os/signal"
	"path/filepath"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/verbsurface/verbsurface/internal/procid"
	"github.com/verbsurface/verbsurface/internal/runs"
	"github.com/verbsurface/verbsurface/kill"
)

// runSpec is what a background run runs, as its record keeps it. The
// environment is not in it: the supervisor is started with the run's
// allowlisted environment and passes its own on, so no value of it is
// ever written to disk.
type runSpec struct {
	Program string   `json:"program"`
	Args    []string `json:"args"` // after the program: leading arguments, then the rendered argv
	Dir     string   `json:"dir"`
	// The caps of the front's runner: past one, the run's group is
	// terminated and its end is output_overflow, as for a foreground op.
	StdoutCap int64 `json:"stdout_cap"`
	StderrCap int64 `json:"stderr_cap"`
	// OKExit are the exits that complete the run (the verb's ok_exit;
	// [0] under the envelope).
	OKExit []int         `json:"ok_exit"`
	Grace  time.Duration `json:"grace"`
}

// Reason codes of the ends a supervisor records.
const (
	reasonLaunchFailed = "run.failed.launch"
	reasonOverflow     = "run.failed.output_overflow"
	reasonCancelled    = "run.cancelled.kill"
)

// outputPath is where run id's stream ("stdout", "stderr") is kept.
func outputPath(dir, id, stream string) string {
	return filepath.Join(dir, "out", id+"."+stream)
}

// Supervise runs the background run id of the store in dir to its end;
// it is what the embedder's hidden subcommand ([Options.Supervisor]) calls
// with the two arguments it is given. The supervisor must outlive the
// server, its terminal and its client: it is in a session of its own,
// and interrupts, hangups and SIGTERM are not for it (a run is stopped
// with job.kill, which signals the run's group, and the supervisor then
// records the end). Supervise catches and drops them rather than ignoring
// them: an ignored signal stays ignored across exec, and the program must
// get its signals as it would anywhere. It does not return before the
// run has ended; ctx's cancellation does not stop it.
func Supervise(ctx context.Context, dir, id string) error {
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, syscall.SIGHUP, syscall.SIGINT, syscall.SIGTERM, syscall.SIGPIPE)
	go func() {
		for range sigs {
		}
	}()
	return supervise(context.WithoutCancel(ctx), dir, id)
}

// supervise runs the background run id of the store in dir to its end:
// it starts the program in a process group of its own, records the start
// (the program's identity and its own), copies the program's output into
// private files within the caps, and records the end with a
// compare-and-set. It is the supervisor, not the server, that records the
// end, so a server that dies loses nothing.
func supervise(ctx context.Context, dir, id string) error {
	st, err := runs.Open(ctx, dir)
	if err != nil {
		return err
	}
	defer st.Close()
	rec, err := st.Get(ctx, id)
	if err != nil {
		return err
	}
	if rec.Status != runs.StatusPreparing {
		return fmt.Errorf("run %s is %s, not preparing: it was started already", id, rec.Status)
	}
	var spec runSpec
	if err := json.Unmarshal(rec.Spec, &spec); err != nil {
		return endRun(ctx, st, dir, id, runs.StatusFailed, reasonLaunchFailed, nil, "")
	}
	self, _ := procid.Of(os.Getpid())
	outs, err := openOutputs(dir, id)
	if err != nil {
		return endRun(ctx, st, dir, id, runs.StatusFailed, reasonLaunchFailed, nil, "")
	}
	defer outs[0].Close()
	defer outs[1].Close()

	outR, outW, err := os.Pipe()
	if err != nil {
		return endRun(ctx, st, dir, id, runs.StatusFailed, reasonLaunchFailed, nil, "")
	}
	errR, errW, err := os.Pipe()
	if err != nil {
		return endRun(ctx, st, dir, id, runs.StatusFailed, reasonLaunchFailed, nil, "")
	}
	cmd := &exec.Cmd{
		Path:        spec.Program,
		Args:        append([]string{spec.Program}, spec.Args...),
		Env:         os.Environ(),
		Dir:         spec.Dir,
		Stdout:      outW,
		Stderr:      errW,
		SysProcAttr: &syscall.SysProcAttr{Setpgid: true},
	}
	err = cmd.Start()
	outW.Close()
	errW.Close()
	if err != nil {
		fmt.Fprintf(outs[1], "verbsurface: could not start %s: %v\n", spec.Program, err)
		return endRun(ctx, st, dir, id, runs.StatusFailed, reasonLaunchFailed, nil, "")
	}
	pid := cmd.Process.Pid
	group, gerr := kill.LeaderGroup(pid)

	var overflow atomic.Bool
	stop := sync.OnceFunc(func() {
		if gerr == nil {
			_, _ = kill.SignalGroup(context.Background(), group, spec.Grace)
		}
	})
	var copies sync.WaitGroup
	for i, r := range []*os.File{outR, errR} {
		limit := []int64{spec.StdoutCap, spec.StderrCap}[i]
		copies.Add(1)
		go func() {
			defer copies.Done()
			copyCapped(outs[i], r, limit, func() {
				overflow.Store(true)
				go stop()
			})
		}()
	}

	// Record the start. A kill request made while the run was preparing
	// bumps the version: read again and record it anyway, then honour it.
	started := false
	if gerr == nil {
		for range 100 {
			_, err = st.Transition(ctx, runs.Change{ID: id, Version: rec.Version, To: runs.StatusRunning, Actor: "supervisor",
				Reason: "run.started", Process: &runs.Identity{PID: pid, StartTime: group.Leader.StartTime}, Supervisor: &runs.Identity{PID: self.PID, StartTime: self.StartTime}})
			if !errors.Is(err, runs.ErrConflict) {
				break
			}
			if rec, err = st.Get(ctx, id); err != nil {
				break
			}
		}
		started = err == nil
	}
	if !started {
		// Without a recorded start nobody could kill the run safely:
		// stop it now, and record why if the record still takes it.
		stop()
	} else if rec.KillRequested {
		go stop()
	}

	_ = cmd.Wait()
	// What the leader left in its group is ended with it, as for a
	// foreground op (the group outlives its leader only while it has
	// members, so its id is not reused meanwhile).
	if members(pid) > 0 {
		_ = syscall.Kill(-pid, syscall.SIGKILL)
	}
	copies.Wait()
	outR.Close()
	errR.Close()
	outs[0].Sync()
	outs[1].Sync()

	state := cmd.ProcessState
	code := state.ExitCode()
	sig := ""
	if ws, ok := state.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		sig = ws.Signal().String()
	}
	cur, err := st.Get(ctx, id)
	if err != nil {
		return err
	}
	status, reason := runs.StatusFailed, ""
	switch {
	case cur.KillRequested:
		status, reason = runs.StatusCancelled, reasonCancelled
	case overflow.Load():
		reason = reasonOverflow
	case sig != "":
		reason = "run.failed.signal"
	case slices.Contains(spec.OKExit, code):
		status, reason = runs.StatusCompleted, "run.completed.exit_"+strconv.Itoa(code)
	default:
		reason = "run.failed.exit_" + strconv.Itoa(code)
	}
	var exit *int
	if sig == "" {
		exit = &code
	}
	return endRun(ctx, st, dir, id, status, reason, exit, sig)
}

// endRun records the end with a compare-and-set, reading again after a
// conflict (a kill request, for one), and announces it. An end refused by
// the terminal floor is somebody else's end recorded first; that is not an
// error of the supervisor's.
func endRun(ctx context.Context, st runs.Store, dir, id string, status runs.Status, reason string, exit *int, sig string) error {
	var err error
	for range 100 {
		var cur runs.Record
		if cur, err = st.Get(ctx, id); err != nil {
			return err
		}
		if cur.KillRequested && status != runs.StatusCompleted && reason != reasonLaunchFailed {
			status, reason = runs.StatusCancelled, reasonCancelled
		}
		_, err = st.Transition(ctx, runs.Change{ID: id, Version: cur.Version, To: status, Reason: reason, Actor: "supervisor", ExitCode: exit, Signal: sig})
		if !errors.Is(err, runs.ErrConflict) {
			break
		}
	}
	if errors.Is(err, runs.ErrTerminal) {
		err = nil
	}
	_ = runs.Notify(dir, id)
	return err
}

// openOutputs creates the run's two output files, private and new.
func openOutputs(dir, id string) ([2]*os.File, error) {
	var outs [2]*os.File
	if err := runs.PrivateDir(filepath.Join(dir, "out")); err != nil {
		return outs, err
	}
	for i, s := range []string{"stdout", "stderr"} {
		f, err := os.OpenFile(outputPath(dir, id, s), os.O_WRONLY|os.O_CREATE|os.O_EXCL, runs.FileMode)
		if err != nil {
			if i == 1 {
				outs[0].Close()
			}
			return outs, err
		}
		outs[i] = f
	}
	return outs, nil
}

// copyCapped copies r into w until EOF, writing at most limit bytes
// (0: no limit); past it the rest is read and dropped, so the writer
// never blocks, and overflowed is called, once, the moment it passes.
func copyCapped(w io.Writer, r io.Reader, limit int64, overflowed func()) {
	buf := make([]byte, 32<<10)
	var n int64
	passed := false
	for {
		k, err := r.Read(buf)
		if k > 0 {
			chunk := buf[:k]
			if limit > 0 && n+int64(k) > limit {
				chunk = chunk[:max(0, limit-n)]
				if !passed {
					passed = true
					overflowed()
				}
			}
			if len(chunk) > 0 {
				_, _ = w.Write(chunk)
				n += int64(len(chunk))
			}
		}
		if err != nil {
			return
		}
	}
}

// members counts the live members of process group pgid (0 when the
// process table cannot be read).
func members(pgid int) int {
	sizes, err := procid.GroupSizes()
	if err != nil {
		return 0
	}
	return sizes[pgid]
}
