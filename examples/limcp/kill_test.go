//go:build unix

package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/verbsurface/verbsurface/examples/limcp/internal/store"
	"github.com/verbsurface/verbsurface/internal/procid"
)

type killReport struct {
	Target struct{ Kind, ID string } `json:"target"`
	Grace  string                    `json:"grace"`
	Reaped []struct {
		Kind       string   `json:"kind"`
		ID         string   `json:"id"`
		Status     string   `json:"status"`
		ReasonCode string   `json:"reason_code"`
		Signals    []string `json:"signals"`
	} `json:"reaped"`
	NotReaped []struct {
		Kind      string `json:"kind"`
		ID        string `json:"id"`
		Status    string `json:"status"`
		Reason    string `json:"reason"`
		Survivors []int  `json:"survivors"`
	} `json:"not_reaped"`
	AlreadyEnded []struct{ Kind, ID, Status string } `json:"already_ended"`
}

const slowProviders = `providers:
  - name: slow
    argv: ["sh", "-c", "cat >/dev/null; sleep 60"]
  - name: stubborn
    argv: ["sh", "-c", "trap '' TERM; cat >/dev/null; sleep 60"]
`

// TestKillPlayWithFiveSlowInvocations is the test: a play whose
// flow fans out to 5 slow invocations (each a real process tree) is killed;
// every entity is recorded cancelled and no process of it survives.
func TestKillPlayWithFiveSlowInvocations(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.writeFile("providers.yaml", slowProviders)
	e.writeFile("playbooks/fan5.playbook.yaml", `flow:
  steps:
    - {id: s1, model: slow, prompt: "one {{.prompt}}"}
    - {id: s2, model: slow, prompt: "two {{.prompt}}"}
    - {id: s3, model: slow, prompt: "three {{.prompt}}"}
    - {id: s4, model: slow, prompt: "four {{.prompt}}"}
    - {id: s5, model: slow, prompt: "five {{.prompt}}"}
    - {id: after, model: echo, prompt: "never", depends_on: [s1, s2, s3, s4, s5]}
`)
	s := e.submit("play", "fan5", "go")
	sess := e.waitChildrenStarted(s.Session, 5)
	// A child is recorded started before its worker has its provider
	// running: wait for the trees, do not count them at one instant.
	for deadline := time.Now().Add(60 * time.Second); len(e.tagged()) < 11; { // play worker + 5 × (worker, sh, sleep) at least
		if time.Now().After(deadline) {
			t.Fatalf("only %d processes running 60s after the children started", len(e.tagged()))
		}
		time.Sleep(50 * time.Millisecond)
	}
	var rep killReport
	e.ok(&rep, "kill", s.ID, "--grace", "3s")
	if rep.Target.Kind != "play" || rep.Target.ID != s.ID || len(rep.NotReaped) != 0 {
		t.Fatalf("kill report = %+v", rep)
	}
	got := map[string]int{}
	for _, r := range rep.Reaped {
		if r.Status != "cancelled" || r.ReasonCode != "run.cancelled.manual_kill" {
			t.Fatalf("reaped %s %s as %s (%s)", r.Kind, r.ID, r.Status, r.ReasonCode)
		}
		got[r.Kind]++
	}
	if got["invocation"] != 5 || got["session"] != 1 || got["play"] != 1 {
		t.Fatalf("reaped %v; want 5 invocations, the session and the play", got)
	}
	if last := rep.Reaped[len(rep.Reaped)-1]; last.ID != s.ID {
		t.Fatalf("the play is not recorded last (children first): %+v", rep.Reaped)
	}
	e.assertNoProcesses(2 * time.Second)
	for _, id := range append(sess.Children, s.ID, s.Session) {
		if r := e.status(id); r.Status != "cancelled" {
			t.Fatalf("%s %s is %s after the kill", r.Kind, id, r.Status)
		}
	}
	if sess := e.status(s.Session); len(sess.Children) != 5 {
		t.Fatalf("the dependent step was started after the kill: %d children", len(sess.Children))
	}
}

func TestKillNeedingSIGKILLIsForceKill(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.writeFile("providers.yaml", slowProviders)
	s := e.submit("agent", "stubborn", "ignore TERM")
	e.waitStarted(s.ID)
	time.Sleep(200 * time.Millisecond) // let sh install its trap
	var rep killReport
	e.ok(&rep, "kill", s.ID, "--grace", "300ms")
	if len(rep.Reaped) != 1 || rep.Reaped[0].ReasonCode != "run.cancelled.force_kill" || strings.Join(rep.Reaped[0].Signals, ",") != "SIGTERM,SIGKILL" {
		t.Fatalf("kill report = %+v", rep)
	}
	e.assertNoProcesses(2 * time.Second)
}

// TestKillPartialIsReportedEntityByEntity: a worker that died leaving its
// provider running cannot be proven to own that group, so kill refuses to
// signal it and says so: ok false, kill_partial, the entity listed.
func TestKillPartialIsReportedEntityByEntity(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	// The provider says when it runs: killing the worker before it has
	// started its provider would leave a group with no members, a kill
	// with nothing partial about it (a loaded machine did that once in
	// three runs while the test counted processes instead).
	ready := filepath.Join(t.TempDir(), "provider-started")
	e.writeFile("providers.yaml", fmt.Sprintf(`providers:
  - name: marked
    argv: ["sh", "-c", ": > '%s'; cat >/dev/null; sleep 60"]
`, ready))
	s := e.submit("agent", "marked", "orphan me")
	r := e.waitStarted(s.ID)
	for deadline := time.Now().Add(60 * time.Second); ; {
		if _, err := os.Stat(ready); err == nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the provider of %s did not start within 60s", s.ID)
		}
		time.Sleep(20 * time.Millisecond)
	}
	if err := syscall.Kill(*r.PID, syscall.SIGKILL); err != nil { // the worker only
		t.Fatal(err)
	}
	// Until its parent (init) reaps it, the dead worker is a zombie that
	// still proves its group (and kill would rightly stop the group); the
	// refusal is about a leader that is gone for good.
	for deadline := time.Now().Add(15 * time.Second); ; {
		if _, err := procid.ReadStat(*r.PID); errors.Is(err, procid.ErrGone) {
			break
		}
		if time.Now().After(deadline) {
			t.Skip("init did not reap the killed worker within 15s; the zombie leader still proves the group")
		}
		time.Sleep(50 * time.Millisecond)
	}
	res := e.fail("kill_partial", "kill", s.ID, "--grace", "200ms")
	var rep killReport
	if err := json.Unmarshal(res.Error.Details, &rep); err != nil {
		t.Fatal(err)
	}
	if len(rep.NotReaped) != 1 || rep.NotReaped[0].ID != s.ID || rep.NotReaped[0].Reason != "leader_gone_members_remain" || len(rep.NotReaped[0].Survivors) == 0 {
		t.Fatalf("partial report = %+v", rep)
	}
	if st := e.status(s.ID); st.Status != "running" {
		t.Fatalf("a run that could not be stopped was recorded %s", st.Status)
	}
	// Observers agree: not conclusively gone, possibly orphaned, not reaped.
	var obs struct {
		Observations []struct {
			Status           string `json:"status"`
			Process          string `json:"process"`
			PossiblyOrphaned bool   `json:"possibly_orphaned"`
		} `json:"observations"`
	}
	e.ok(&obs, "job", "observe", s.ID)
	if o := obs.Observations[0]; o.Status != "running" || o.Process != "unknown" || !o.PossiblyOrphaned {
		t.Fatalf("observation = %+v", o)
	}
}

func TestKillPreparingRecordCancelsBeforeStart(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	recs, err := e.store().Create(context.Background(), store.CreateOptions{}, store.NewRecord{Kind: store.KindInvocation})
	if err != nil {
		t.Fatal(err)
	}
	id := recs[0].ID
	var rep killReport
	e.ok(&rep, "kill", id)
	if len(rep.Reaped) != 1 || rep.Reaped[0].Status != "cancelled" || len(rep.Reaped[0].Signals) != 0 {
		t.Fatalf("kill of a preparing record = %+v", rep)
	}
	// A worker that starts afterwards finds the record terminal and runs nothing.
	_, _, code := e.run("__worker", id)
	if code != 0 {
		t.Fatalf("worker exited %d", code)
	}
	if r := e.status(id); r.Status != "cancelled" || r.PID != nil {
		t.Fatalf("record after a late worker = %+v", r)
	}
	var again killReport
	e.ok(&again, "kill", id)
	if len(again.Reaped) != 0 || len(again.AlreadyEnded) != 1 {
		t.Fatalf("second kill = %+v; want the record reported as already ended", again)
	}
}

func TestKillOneFanoutInvocationFailsTheSession(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.writeFile("providers.yaml", slowProviders)
	s := e.submit("fanout", "slow", "go", "-n", "2")
	sess := e.waitStatus(s.ID, 30*time.Second, "2 started invocations", func(r record) bool {
		return len(r.Children) == 2 && e.status(r.Children[0]).Phase == "started" && e.status(r.Children[1]).Phase == "started"
	})
	kids := append([]string(nil), sess.Children...)
	sort.Strings(kids)
	e.ok(nil, "kill", kids[0])
	if r := e.status(kids[0]); r.Status != "cancelled" || r.ReasonCode != "run.cancelled.manual_kill" {
		t.Fatalf("killed invocation = %+v", r)
	}
	if r := e.status(kids[1]); r.Terminal {
		t.Fatalf("the sibling was stopped too: %+v", r)
	}
	e.ok(nil, "kill", s.ID)
	r := e.waitTerminal(s.ID)
	if r.Status != "cancelled" {
		t.Fatalf("session = %+v", r)
	}
	e.assertNoProcesses(2 * time.Second)
}
