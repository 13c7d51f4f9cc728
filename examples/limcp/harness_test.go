//go:build unix

package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/verbsurface/verbsurface/examples/limcp/internal/e2e"
	"github.com/verbsurface/verbsurface/examples/limcp/internal/store"
)

// The end-to-end tests run the built binary: TestMain builds it once into
// a temporary directory. Each test gets its own state home, and every
// process a test starts carries LIMCP_E2E_TAG=<home> in its environment
// (workers and providers inherit it), so cleanup finds and kills all of
// them and "no process survived" is a question the process table can answer.

var limcpBin string

func TestMain(m *testing.M) {
	bin, cleanup, err := e2e.Build()
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	limcpBin = bin
	code := m.Run()
	cleanup()
	cleanupFakeAgents()
	if vsBin != "" {
		os.RemoveAll(filepath.Dir(vsBin)) // parity_test.go's verbsurface
	}
	os.Exit(code)
}

const tagVar = e2e.TagVar

type env struct {
	t    testing.TB
	home string
}

func newEnv(t testing.TB) *env {
	t.Helper()
	e := &env{t: t, home: t.TempDir()}
	t.Cleanup(e.reap)
	return e
}

// environ is the environment of everything a test runs: tagged, and
// without any LIMCP_ variable of the developer's (a $LIMCP_MCP_TOKEN
// exported as the README shows would let `mcp --http 0.0.0.0:0` bind and
// serve instead of refusing; a $LIMCP_NOTIFY_URL would notify elsewhere).
func (e *env) environ() []string {
	env := []string{tagVar + "=" + e.home}
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "LIMCP_") {
			env = append(env, kv)
		}
	}
	return env
}

// execLimcp prepares limcp args... without --home, with extra environment
// (and without the caller's LIMCP_HOME and XDG_STATE_HOME).
func execLimcp(e *env, extra []string, args ...string) *exec.Cmd {
	cmd := exec.Command(limcpBin, args...)
	for _, kv := range e.environ() {
		if !strings.HasPrefix(kv, "XDG_STATE_HOME=") {
			cmd.Env = append(cmd.Env, kv)
		}
	}
	cmd.Env = append(cmd.Env, extra...)
	return cmd
}

// run executes limcp --home HOME args... and returns its output and exit status.
func (e *env) run(args ...string) (stdout, stderr string, code int) {
	e.t.Helper()
	cmd := exec.Command(limcpBin, append([]string{"--home", e.home}, args...)...)
	cmd.Env = e.environ()
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	code = 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		e.t.Fatalf("running limcp %v: %v", args, err)
	}
	return out.String(), errb.String(), code
}

// result is one machine result as printed.
type result struct {
	ResultVersion int             `json:"result_version"`
	OK            bool            `json:"ok"`
	Data          json.RawMessage `json:"data"`
	Error         *struct {
		Code    string          `json:"code"`
		Message string          `json:"message"`
		Details json.RawMessage `json:"details"`
	} `json:"error"`

	exit   int
	stderr string
}

// machine runs args with --json and checks the contract: stdout is exactly
// one JSON object of the machine-result shape, and the exit status agrees with ok.
func (e *env) machine(args ...string) result {
	e.t.Helper()
	stdout, stderr, code := e.run(append([]string{"--json"}, args...)...)
	dec := json.NewDecoder(strings.NewReader(stdout))
	var r result
	if err := dec.Decode(&r); err != nil {
		e.t.Fatalf("limcp --json %v: stdout is not one JSON object (%v):\n%s\nstderr:\n%s", args, err, stdout, stderr)
	}
	var extra json.RawMessage
	if err := dec.Decode(&extra); err == nil {
		e.t.Fatalf("limcp --json %v: more than one JSON value on stdout:\n%s", args, stdout)
	}
	r.exit, r.stderr = code, stderr
	switch {
	case r.ResultVersion != 1:
		e.t.Fatalf("limcp --json %v: result_version %d:\n%s", args, r.ResultVersion, stdout)
	case r.OK && (r.Error != nil || len(r.Data) == 0 || code != 0):
		e.t.Fatalf("limcp --json %v: ok result with error/no data/exit %d:\n%s", args, code, stdout)
	case !r.OK && (r.Error == nil || r.Error.Code == "" || r.Error.Message == "" || code == 0 || r.Data != nil):
		e.t.Fatalf("limcp --json %v: failed result without a valid error object or with exit 0:\n%s", args, stdout)
	}
	return r
}

// ok runs a command that must succeed and decodes its data into v (if not nil).
func (e *env) ok(v any, args ...string) json.RawMessage {
	e.t.Helper()
	r := e.machine(args...)
	if !r.OK {
		e.t.Fatalf("limcp %v failed: %s: %s\nstderr: %s", args, r.Error.Code, r.Error.Message, r.stderr)
	}
	if v != nil {
		if err := json.Unmarshal(r.Data, v); err != nil {
			e.t.Fatalf("limcp %v: decoding data: %v\n%s", args, err, r.Data)
		}
	}
	return r.Data
}

// fail runs a command that must fail with code and returns the result.
func (e *env) fail(code string, args ...string) result {
	e.t.Helper()
	r := e.machine(args...)
	if r.OK {
		e.t.Fatalf("limcp %v succeeded; want error %s\n%s", args, code, r.Data)
	}
	if r.Error.Code != code {
		e.t.Fatalf("limcp %v failed with %s (%s); want %s", args, r.Error.Code, r.Error.Message, code)
	}
	return r
}

type submitted struct {
	ID      string `json:"id"`
	Kind    string `json:"kind"`
	Phase   string `json:"phase"`
	PID     int    `json:"worker_pid"`
	PGID    int    `json:"worker_pgid"`
	Session string `json:"session"`
	Show    string `json:"show"`
	Prompt  struct {
		SHA256 string `json:"prompt_sha256"`
		Bytes  int    `json:"prompt_bytes"`
	} `json:"prompt"`
	PlaybookFingerprint string `json:"playbook_fingerprint"`
}

func (e *env) submit(args ...string) submitted {
	e.t.Helper()
	var s submitted
	e.ok(&s, args...)
	if s.ID == "" || s.PID <= 0 {
		e.t.Fatalf("limcp %v: submit result without id or pid: %+v", args, s)
	}
	return s
}

type record struct {
	ID         string          `json:"id"`
	Kind       string          `json:"kind"`
	Parent     *string         `json:"parent"`
	Label      string          `json:"label"`
	Team       *string         `json:"team"`
	Status     string          `json:"status"`
	Terminal   bool            `json:"terminal"`
	Phase      string          `json:"phase"`
	ReasonCode string          `json:"reason_code"`
	Outcome    string          `json:"outcome"`
	ExitCode   *int            `json:"exit_code"`
	PID        *int            `json:"pid"`
	PGID       *int            `json:"pgid"`
	StartTime  *uint64         `json:"start_time"`
	Version    int64           `json:"version"`
	Children   []string        `json:"children"`
	Spec       json.RawMessage `json:"spec"`
}

func (e *env) status(id string) record {
	e.t.Helper()
	var d struct {
		Records []record `json:"records"`
	}
	e.ok(&d, "job", "status", id)
	if len(d.Records) != 1 {
		e.t.Fatalf("job status %s: %d records", id, len(d.Records))
	}
	return d.Records[0]
}

// waitStatus polls job status until cond holds.
func (e *env) waitStatus(id string, timeout time.Duration, what string, cond func(record) bool) record {
	e.t.Helper()
	deadline := time.Now().Add(timeout)
	for {
		r := e.status(id)
		if cond(r) {
			return r
		}
		if time.Now().After(deadline) {
			e.t.Fatalf("record %s: %s not reached within %s; last: %+v", id, what, timeout, r)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func (e *env) waitTerminal(id string) record {
	e.t.Helper()
	return e.waitStatus(id, 30*time.Second, "a terminal status", func(r record) bool { return r.Terminal })
}

func (e *env) waitStarted(id string) record {
	e.t.Helper()
	return e.waitStatus(id, 30*time.Second, "phase started", func(r record) bool { return r.Phase == "started" })
}

// waitChildrenStarted waits until the session has at least n children, all
// in phase started, and returns the session's record.
func (e *env) waitChildrenStarted(session string, n int) record {
	e.t.Helper()
	return e.waitStatus(session, 30*time.Second, fmt.Sprintf("%d started children", n), func(r record) bool {
		if len(r.Children) < n {
			return false
		}
		for _, c := range r.Children {
			if e.status(c).Phase != "started" {
				return false
			}
		}
		return true
	})
}

// vanish waits for the run to start, then SIGKILLs its worker (and only
// the worker), leaving a started record with no end: what a crash leaves.
// It returns the record as it was when started.
func (e *env) vanish(id string) record {
	e.t.Helper()
	r := e.waitStarted(id)
	if err := syscall.Kill(*r.PID, syscall.SIGKILL); err != nil {
		e.t.Fatalf("killing the worker of %s: %v", id, err)
	}
	return r
}

// store opens the test's store in-process (for seeding and audit checks).
func (e *env) store() *store.Store {
	e.t.Helper()
	st, err := store.Open(context.Background(), filepath.Join(e.home, "state.db"), store.Options{})
	if err != nil {
		e.t.Fatal(err)
	}
	e.t.Cleanup(func() { st.Close() })
	return st
}

func (e *env) writeFile(rel, content string) string {
	e.t.Helper()
	p := filepath.Join(e.home, rel)
	if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
		e.t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
		e.t.Fatal(err)
	}
	return p
}

// tagged lists the live (non-zombie) processes carrying this test's tag.
func (e *env) tagged() []int { return e2e.Tagged(e.home) }

// reap kills every process of this test (cleanup).
func (e *env) reap() {
	if left := e2e.Reap(e.home); len(left) > 0 {
		e.t.Errorf("processes of this test survive cleanup: %v", left)
	}
}

func (e *env) assertNoProcesses(within time.Duration) {
	e.t.Helper()
	deadline := time.Now().Add(within)
	for {
		pids := e.tagged()
		if len(pids) == 0 {
			return
		}
		if time.Now().After(deadline) {
			var desc []string
			for _, pid := range pids {
				b, _ := exec.Command("ps", "-o", "command=", "-p", strconv.Itoa(pid)).Output()
				desc = append(desc, fmt.Sprintf("%d: %s", pid, strings.TrimSpace(string(b))))
			}
			e.t.Fatalf("processes survive:\n%s", strings.Join(desc, "\n"))
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func mustJSON(t testing.TB, v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
