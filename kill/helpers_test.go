//go:build unix

package kill

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/verbsurface/verbsurface/internal/procid"
)

// The test binary doubles as the processes of the trees it kills: run with
// KILLTEST_NODE set, it becomes one node (see runNode).
func TestMain(m *testing.M) {
	if spec := os.Getenv("KILLTEST_NODE"); spec != "" {
		runNode(spec, os.Getenv("KILLTEST_DIR"))
		return
	}
	// Orphans of the trees are reparented to this process where the
	// platform allows it, so cleanup can reap them by pid.
	if err := becomeSubreaper(); err != nil {
		fmt.Fprintln(os.Stderr, "kill tests: becoming the subreaper:", err)
		os.Exit(2)
	}
	code := m.Run()
	if fixtureDir != "" {
		os.RemoveAll(fixtureDir)
	}
	os.Exit(code)
}

// nodeSpec describes one process of a test tree.
type nodeSpec struct {
	Name string `json:"name"`
	// OnTerm is what the node does on SIGTERM, after writing term-NAME:
	// "exit" (the default), "ignore" (keep running), or "respawn" (start a
	// TERM-ignoring heir NAME-heir in the same group, wait until it is
	// ready, then exit).
	OnTerm        string     `json:"on_term,omitempty"`
	ExitWhenReady bool       `json:"exit_when_ready,omitempty"` // exit once it and its children are ready
	Children      []nodeSpec `json:"children,omitempty"`
}

func (n nodeSpec) names() []string {
	names := []string{n.Name}
	for _, c := range n.Children {
		names = append(names, c.names()...)
	}
	return names
}

// runNode is the body of a tree process. It writes ready-NAME ("pid
// starttime") once its children are ready, and term-NAME when it receives
// SIGTERM. It lives at most two minutes, so a failed test leaks nothing for
// long.
func runNode(specJSON, dir string) {
	var n nodeSpec
	if err := json.Unmarshal([]byte(specJSON), &n); err != nil {
		fmt.Fprintln(os.Stderr, "node:", err)
		os.Exit(2)
	}
	terms := make(chan os.Signal, 4)
	signal.Notify(terms, syscall.SIGTERM)
	go func() {
		for range terms {
			os.WriteFile(filepath.Join(dir, "term-"+n.Name), nil, 0o600)
			switch n.OnTerm {
			case "ignore":
				continue
			case "respawn":
				heir := nodeSpec{Name: n.Name + "-heir", OnTerm: "ignore"}
				if startNode(heir, dir) == nil {
					waitReady(dir, heir.names())
				}
			}
			os.Exit(0)
		}
	}()
	for _, c := range n.Children {
		if err := startNode(c, dir); err != nil {
			fmt.Fprintln(os.Stderr, "node:", err)
			os.Exit(2)
		}
	}
	for _, c := range n.Children {
		waitReady(dir, c.names())
	}
	st, err := procid.ReadStat(os.Getpid())
	if err != nil {
		os.Exit(2)
	}
	tmp := filepath.Join(dir, ".tmp-"+n.Name)
	os.WriteFile(tmp, fmt.Appendf(nil, "%d %d", st.PID, st.StartTime), 0o600)
	os.Rename(tmp, filepath.Join(dir, "ready-"+n.Name))
	if n.ExitWhenReady {
		os.Exit(0)
	}
	time.Sleep(2 * time.Minute)
	os.Exit(0)
}

// startNode starts a node in the caller's process group, without waiting
// for it: it may outlive its parent.
func startNode(n nodeSpec, dir string) error {
	cmd := nodeCommand(n, dir)
	return cmd.Start()
}

func nodeCommand(n nodeSpec, dir string) *exec.Cmd {
	spec, _ := json.Marshal(n)
	cmd := exec.Command(os.Args[0])
	// Under -race, a process sleeps a second in exit unless told otherwise;
	// the nodes exit on SIGTERM, and the tests wait for that.
	env := []string{"KILLTEST_NODE=" + string(spec), "KILLTEST_DIR=" + dir, "GORACE=atexit_sleep_ms=0"}
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "KILLTEST_") && !strings.HasPrefix(kv, "GORACE=") {
			env = append(env, kv)
		}
	}
	cmd.Env = env
	return cmd
}

func waitReady(dir string, names []string) bool {
	deadline := time.Now().Add(30 * time.Second)
	for _, name := range names {
		for {
			if _, err := os.Stat(filepath.Join(dir, "ready-"+name)); err == nil {
				break
			}
			if time.Now().After(deadline) {
				return false
			}
			time.Sleep(5 * time.Millisecond)
		}
	}
	return true
}

// tree is a running test tree whose leader leads a new process group.
type tree struct {
	t      *testing.T
	dir    string
	leader *exec.Cmd
	group  Group
	reaped chan struct{} // closed once the leader has been waited for
	once   sync.Once
}

// startTree starts spec as a new process group and waits until every node
// is ready. With reap, the leader is waited for in the background as soon
// as it exits, as a server would; without, it stays a zombie after exiting
// until the test calls reapLeader.
func startTree(t *testing.T, spec nodeSpec, reap bool) *tree {
	t.Helper()
	tr := &tree{t: t, dir: t.TempDir(), reaped: make(chan struct{})}
	tr.leader = nodeCommand(spec, tr.dir)
	tr.leader.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := tr.leader.Start(); err != nil {
		t.Fatal(err)
	}
	g, err := LeaderGroup(tr.leader.Process.Pid)
	if err != nil {
		tr.leader.Process.Kill()
		tr.leader.Wait()
		t.Fatal(err)
	}
	tr.group = g
	t.Cleanup(tr.cleanup)
	if reap {
		go tr.reapLeader()
	}
	if !waitReady(tr.dir, spec.names()) {
		t.Fatalf("tree %s not ready after 30s", spec.Name)
	}
	return tr
}

func (tr *tree) reapLeader() {
	tr.once.Do(func() {
		tr.leader.Wait()
		close(tr.reaped)
	})
}

// id is the identity node name reported when it became ready.
func (tr *tree) id(name string) Identity {
	tr.t.Helper()
	b, err := os.ReadFile(filepath.Join(tr.dir, "ready-"+name))
	if err != nil {
		tr.t.Fatalf("node %s: %v", name, err)
	}
	f := strings.Fields(string(b))
	pid, _ := strconv.Atoi(f[0])
	start, _ := strconv.ParseUint(f[1], 10, 64)
	return Identity{PID: pid, StartTime: start}
}

func (tr *tree) alive(name string) bool { return procid.Check(tr.id(name)) == procid.Alive }

func (tr *tree) gotTerm(name string) bool {
	_, err := os.Stat(filepath.Join(tr.dir, "term-"+name))
	return err == nil
}

// requireUntouched fails unless every named node is alive and none received
// SIGTERM. (SIGKILL cannot be observed by its target, but a node it hit is
// not alive.)
func (tr *tree) requireUntouched(names ...string) {
	tr.t.Helper()
	for _, name := range names {
		if !tr.alive(name) {
			tr.t.Errorf("node %s (pid %d) is not alive: it was signalled", name, tr.id(name).PID)
		}
		if tr.gotTerm(name) {
			tr.t.Errorf("node %s received SIGTERM", name)
		}
	}
}

// requireGone fails unless no named node is alive and the group has no live
// member.
func (tr *tree) requireGone(names ...string) {
	tr.t.Helper()
	for _, name := range names {
		if tr.alive(name) {
			tr.t.Errorf("node %s (pid %d) is still alive", name, tr.id(name).PID)
		}
	}
	if m, err := procid.GroupMembers(tr.group.PGID); err != nil || len(m) != 0 {
		tr.t.Errorf("group %d members = %v, %v; want none", tr.group.PGID, m, err)
	}
}

// cleanup kills every node still alive (checking its identity first) and
// reaps those that are this process's children.
func (tr *tree) cleanup() {
	ents, _ := os.ReadDir(tr.dir)
	var ids []Identity
	for _, e := range ents {
		if name, ok := strings.CutPrefix(e.Name(), "ready-"); ok {
			ids = append(ids, tr.id(name))
		}
	}
	for _, id := range ids {
		if st, err := procid.ReadStat(id.PID); err == nil && st.StartTime == id.StartTime {
			unix.Kill(id.PID, unix.SIGKILL)
		}
	}
	tr.leader.Process.Kill()
	tr.reapLeader()
	for _, id := range ids {
		if id.PID != tr.leader.Process.Pid {
			reapChild(id.PID)
		}
	}
}

// reapChild reaps pid if it is a child of this process (an orphan
// reparented here), waiting up to two seconds for it to die.
func reapChild(pid int) {
	for deadline := time.Now().Add(2 * time.Second); time.Now().Before(deadline); time.Sleep(5 * time.Millisecond) {
		var ws unix.WaitStatus
		if got, err := unix.Wait4(pid, &ws, unix.WNOHANG, nil); got == pid || err != nil {
			return // reaped, or not our child (ECHILD)
		}
	}
}

// The fixture CLI, built once per test binary.
var (
	fixtureOnce sync.Once
	fixtureDir  string
	fixturePath string
	fixtureErr  error
)

func buildFixtureCLI(t *testing.T) string {
	t.Helper()
	fixtureOnce.Do(func() {
		fixtureDir, fixtureErr = os.MkdirTemp("", "kill-fixturecli-")
		if fixtureErr != nil {
			return
		}
		fixturePath = filepath.Join(fixtureDir, "fixturecli")
		out, err := exec.Command("go", "build", "-o", fixturePath, "./internal/fixturecli").CombinedOutput()
		if err != nil {
			fixtureErr = fmt.Errorf("building the fixture CLI: %v\n%s", err, out)
		}
	})
	if fixtureErr != nil {
		t.Fatal(fixtureErr)
	}
	return fixturePath
}

// execRunner is a minimal test-only implementation of the runner contract
// (C3) that really execs the fixture CLI: own process group, a timeout that
// kills the group, one JSON machine result on stdout. It stands in for
// package dispatch, which kill must not import.
type execRunner struct {
	path    string
	env     []string
	timeout time.Duration
}

type runError struct {
	code    string
	msg     string
	details map[string]any
}

func (e *runError) Error() string                { return e.msg }
func (e *runError) ErrorCode() string            { return e.code }
func (e *runError) ErrorDetails() map[string]any { return e.details }

func (r *execRunner) Run(ctx context.Context, argv []string) (json.RawMessage, error) {
	cmd := exec.Command(r.path, argv...)
	cmd.Env = r.env
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Start(); err != nil {
		return nil, &runError{code: "launch_failed", msg: err.Error()}
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	timer := time.NewTimer(r.timeout)
	defer timer.Stop()
	var waitErr error
	select {
	case waitErr = <-done:
	case <-timer.C:
		unix.Kill(-cmd.Process.Pid, unix.SIGKILL)
		<-done
		return nil, &runError{code: "timeout", msg: fmt.Sprintf("%s %s: no result after %s; process group killed", r.path, strings.Join(argv, " "), r.timeout),
			details: map[string]any{"timeout": r.timeout.String()}}
	case <-ctx.Done():
		unix.Kill(-cmd.Process.Pid, unix.SIGKILL)
		<-done
		return nil, &runError{code: "cancelled", msg: ctx.Err().Error()}
	}
	var res struct {
		ResultVersion int             `json:"result_version"`
		OK            bool            `json:"ok"`
		Data          json.RawMessage `json:"data"`
		Error         *struct {
			Code    string `json:"code"`
			Message string `json:"message"`
			Details any    `json:"details"`
		} `json:"error"`
	}
	dec := json.NewDecoder(bytes.NewReader(stdout.Bytes()))
	if err := dec.Decode(&res); err != nil {
		var exit *exec.ExitError
		if errors.As(waitErr, &exit) {
			return nil, &runError{code: "nonzero_exit", msg: waitErr.Error(), details: map[string]any{"exit_code": exit.ExitCode(), "stderr_tail": stderr.String()}}
		}
		return nil, &runError{code: "invalid_result", msg: err.Error()}
	}
	if dec.More() {
		return nil, &runError{code: "multiple_results", msg: "more than one JSON value on stdout"}
	}
	if res.ResultVersion != 1 {
		return nil, &runError{code: "unsupported_result_version", msg: fmt.Sprintf("result_version %d", res.ResultVersion)}
	}
	if !res.OK {
		if res.Error == nil {
			return nil, &runError{code: "invalid_result", msg: "ok:false without an error object"}
		}
		return nil, &runError{code: "cli_error", msg: fmt.Sprintf("%s: %s", res.Error.Code, res.Error.Message),
			details: map[string]any{"code": res.Error.Code, "message": res.Error.Message, "details": res.Error.Details}}
	}
	return res.Data, nil
}
