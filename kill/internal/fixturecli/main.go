//go:build unix

// Command fixturecli behaves like a CLI's `kill --json` for the tests of
// package kill. It accepts exactly the reference kill argv,
//
//	kill --json [--grace=D] -- ID
//
// and answers with a machine result chosen by the id's prefix:
//
//	ok-*       {"ok": true, "data": {"target", "grace", "reaped", "not_reaped": []}}, exit 0
//	partial-*  {"ok": false, "error": {"code": "kill_partial", "details": {"target", "grace", "reaped", "not_reaped"}}}, exit 1
//	fail-*     {"ok": false, "error": {"code": "kill_failed", ...}}, exit 1
//	hang-*     prints nothing and sleeps (until killed, at most a minute)
//
// Any other argv is a usage error (code "usage", exit 2), so a test notices
// a wrong argv. Each call is appended to the file named by FIXTURECLI_LOG
// (if set) as one JSON line {"argv": [...], "stdout": <what was printed>},
// so a test can compare what the Killer returned with what the CLI said.
//
// The result shapes are the ones the reference CLI is expected to use for
// kill: every entity reaped listed with its terminal status and reason
// code; a partial reap reported as an error, never as ok.
package main

import (
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"time"
)

type entity struct {
	Kind       string `json:"kind"`
	ID         string `json:"id"`
	Status     string `json:"status,omitempty"`
	ReasonCode string `json:"reason_code,omitempty"`
	Reason     string `json:"reason,omitempty"` // why it was not reaped
}

type errorObject struct {
	Code    string `json:"code"`
	Message string `json:"message"`
	Details any    `json:"details,omitempty"`
}

type machineResult struct {
	ResultVersion int          `json:"result_version"`
	OK            bool         `json:"ok"`
	Data          any          `json:"data,omitempty"`
	Error         *errorObject `json:"error,omitempty"`
}

func main() {
	args := os.Args[1:]
	id, grace, err := parse(args)
	if err != nil {
		finish(args, machineResult{ResultVersion: 1, Error: &errorObject{Code: "usage", Message: err.Error()}}, 2)
	}
	// The entity tree the id stands for: a play, its session, two invocations.
	target := entity{Kind: "play", ID: id}
	session := entity{Kind: "session", ID: id + ".s1"}
	inv1 := entity{Kind: "invocation", ID: id + ".s1.i1"}
	inv2 := entity{Kind: "invocation", ID: id + ".s1.i2"}
	killed := func(e entity) entity {
		e.Status, e.ReasonCode = "cancelled", "run.cancelled.manual_kill"
		return e
	}
	switch {
	case strings.HasPrefix(id, "ok-"):
		finish(args, machineResult{ResultVersion: 1, OK: true, Data: map[string]any{
			"target":     map[string]string{"kind": target.Kind, "id": target.ID},
			"grace":      grace,
			"reaped":     []entity{killed(inv1), killed(inv2), killed(session), killed(target)},
			"not_reaped": []entity{},
		}}, 0)
	case strings.HasPrefix(id, "partial-"):
		inv2.Status, inv2.Reason = "running", "process_survived_sigkill"
		session.Status, session.Reason = "running", "child_not_reaped"
		target.Status, target.Reason = "running", "child_not_reaped"
		finish(args, machineResult{ResultVersion: 1, Error: &errorObject{
			Code:    "kill_partial",
			Message: fmt.Sprintf("play %s: reaped 1 of 4 entities; 3 still running", id),
			Details: map[string]any{
				"target":     map[string]string{"kind": "play", "id": id},
				"grace":      grace,
				"reaped":     []entity{killed(inv1)},
				"not_reaped": []entity{inv2, session, target},
			},
		}}, 1)
	case strings.HasPrefix(id, "fail-"):
		finish(args, machineResult{ResultVersion: 1, Error: &errorObject{
			Code:    "kill_failed",
			Message: fmt.Sprintf("play %s: state store is locked; nothing was killed", id),
			Details: map[string]any{"id": id, "cause": "state_locked"},
		}}, 1)
	case strings.HasPrefix(id, "hang-"):
		logCall(args, nil)
		time.Sleep(time.Minute) // bounded, so a test that forgets to kill leaks nothing for long
		os.Exit(0)
	}
	finish(args, machineResult{ResultVersion: 1, Error: &errorObject{Code: "usage", Message: fmt.Sprintf("unknown fixture id %q", id)}}, 2)
}

// parse accepts exactly: kill --json [--grace=D] -- ID.
func parse(args []string) (id, grace string, err error) {
	if len(args) < 4 || args[0] != "kill" || args[1] != "--json" {
		return "", "", fmt.Errorf("want argv kill --json [--grace=D] -- ID, got %q", args)
	}
	rest := args[2:]
	if g, ok := strings.CutPrefix(rest[0], "--grace="); ok {
		if _, err := time.ParseDuration(g); err != nil {
			return "", "", fmt.Errorf("--grace: %v", err)
		}
		grace, rest = g, rest[1:]
	}
	if len(rest) != 2 || rest[0] != "--" || rest[1] == "" {
		return "", "", fmt.Errorf("want argv kill --json [--grace=D] -- ID, got %q", args)
	}
	return rest[1], grace, nil
}

func finish(args []string, r machineResult, code int) {
	b, err := json.Marshal(r)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(3)
	}
	logCall(args, b)
	os.Stdout.Write(append(b, '\n'))
	fmt.Fprintf(os.Stderr, "fixturecli: exit %d\n", code) // human text goes to stderr
	os.Exit(code)
}

func logCall(args []string, stdout json.RawMessage) {
	path := os.Getenv("FIXTURECLI_LOG")
	if path == "" {
		return
	}
	line, _ := json.Marshal(map[string]any{"argv": args, "stdout": stdout})
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(3)
	}
	f.Write(append(line, '\n'))
	f.Close()
}
