//go:build unix

package kill

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"golang.org/x/sys/unix"

	"github.com/verbsurface/verbsurface/internal/golden"
	"github.com/verbsurface/verbsurface/internal/procid"
)

// fixture is a Killer wired to the fixture CLI through the test runner.
type fixture struct {
	exec *Killer
	log  string
}

func newFixture(t *testing.T, timeout time.Duration, opts *Options) fixture {
	t.Helper()
	log := filepath.Join(t.TempDir(), "calls.jsonl")
	r := &execRunner{
		path:    buildFixtureCLI(t),
		env:     append(os.Environ(), "FIXTURECLI_LOG="+log),
		timeout: timeout,
	}
	return fixture{exec: NewKiller(r, opts), log: log}
}

// call is one invocation of the fixture CLI, as it logged it.
type call struct {
	Argv   []string        `json:"argv"`
	Stdout json.RawMessage `json:"stdout"`
}

func (f fixture) calls(t *testing.T) []call {
	t.Helper()
	b, err := os.ReadFile(f.log)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		t.Fatal(err)
	}
	var calls []call
	for sc := bufio.NewScanner(bytes.NewReader(b)); sc.Scan(); {
		var c call
		if err := json.Unmarshal(sc.Bytes(), &c); err != nil {
			t.Fatalf("call log: %v", err)
		}
		calls = append(calls, c)
	}
	return calls
}

// onlyCall returns the single call the fixture CLI logged.
func (f fixture) onlyCall(t *testing.T) call {
	t.Helper()
	calls := f.calls(t)
	if len(calls) != 1 {
		t.Fatalf("the CLI was called %d times, want once: %+v", len(calls), calls)
	}
	return calls[0]
}

// Rule: an entity is killed by the CLI's kill, whose data comes back byte
// for byte; the grace is passed on.
func TestKillDelegatesAndReturnsTheCLIOutcomeUnchanged(t *testing.T) {
	f := newFixture(t, 10*time.Second, &Options{Grace: 2 * time.Second})
	res, err := f.exec.Kill(context.Background(), Record{Kind: KindPlay, ID: "ok-1"})
	if err != nil {
		t.Fatalf("Kill: %v", err)
	}
	c := f.onlyCall(t)
	if want := []string{"kill", "--json", "--grace=2s", "--", "ok-1"}; !slices.Equal(c.Argv, want) {
		t.Errorf("CLI argv %q, want %q", c.Argv, want)
	}
	var printed struct {
		Data json.RawMessage `json:"data"`
	}
	if err := json.Unmarshal(c.Stdout, &printed); err != nil {
		t.Fatal(err)
	}
	if res.Delegated == nil || !res.Delegated.OK || !bytes.Equal(res.Delegated.Data, printed.Data) {
		t.Fatalf("delegated outcome %+v, want ok with the CLI's data %s", res.Delegated, printed.Data)
	}
	if res.Signalled != nil {
		t.Errorf("a delegated kill also signalled: %+v", res.Signalled)
	}
	golden.JSON(t, "result_delegated_ok", res)
}

// Rule: a delegated kill that fails, times out or reaps partially returns
// that outcome, and nothing is signalled: the record's process group (a
// real one, whose members write a file on SIGTERM) is untouched.
func TestKillNeverFallsBackToSignalsAfterAFailedDelegation(t *testing.T) {
	spec := nodeSpec{Name: "leader", Children: []nodeSpec{{Name: "child", Children: []nodeSpec{{Name: "grandchild"}}}}}
	for _, tc := range []struct {
		name    string
		id      string
		timeout time.Duration
		code    string // the runner's code, passed through
		cliCode string // the CLI's own code, for cli_error
		golden  string
	}{
		{name: "failed", id: "fail-1", timeout: 10 * time.Second, code: "cli_error", cliCode: "kill_failed", golden: "result_delegated_failed"},
		{name: "timed out", id: "hang-1", timeout: 500 * time.Millisecond, code: "timeout"},
		{name: "partial reap", id: "partial-1", timeout: 10 * time.Second, code: "cli_error", cliCode: "kill_partial", golden: "result_delegated_partial"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tr := startTree(t, spec, true)
			f := newFixture(t, tc.timeout, nil)
			rec := Record{Kind: KindPlay, ID: tc.id, Group: &tr.group, ServerCreatedGroup: true}
			res, err := f.exec.Kill(context.Background(), rec)

			var kerr *Error
			if !errors.As(err, &kerr) || kerr.ErrorCode() != tc.code {
				t.Fatalf("Kill error = %v, want an *Error with code %q", err, tc.code)
			}
			if res.Decision.Action != ActionDelegate || res.Delegated == nil || res.Delegated.OK {
				t.Fatalf("result %+v, want a failed delegation", res)
			}
			if res.Signalled != nil {
				t.Errorf("signalled after the delegation failed: %+v", res.Signalled)
			}
			if d := res.Delegated.Error; d == nil || d.Code != tc.code || !cmp.Equal(d.Details, kerr.ErrorDetails()) {
				t.Errorf("delegated error %+v disagrees with the returned error %v", d, kerr.ErrorDetails())
			}
			c := f.onlyCall(t)
			if tc.cliCode != "" {
				// The CLI's error object comes back unchanged.
				var printed struct {
					Error map[string]any `json:"error"`
				}
				if err := json.Unmarshal(c.Stdout, &printed); err != nil {
					t.Fatal(err)
				}
				if printed.Error["code"] != tc.cliCode {
					t.Fatalf("fixture printed %s, want code %s", c.Stdout, tc.cliCode)
				}
				if diff := cmp.Diff(printed.Error, kerr.ErrorDetails()); diff != "" {
					t.Errorf("CLI error object not passed through unchanged (-printed +returned):\n%s", diff)
				}
			}
			time.Sleep(200 * time.Millisecond) // a stray signal would have landed by now
			tr.requireUntouched(spec.names()...)
			if tc.golden != "" {
				golden.JSON(t, tc.golden, res)
			}
		})
	}
}

// Rule: a record with no entity and a group the server created is killed by
// signalling that group: grandchildren that ignore SIGTERM are gone after.
// The CLI is not called.
func TestKillSignalsTheServerGroupOfARecordWithoutEntity(t *testing.T) {
	spec := nodeSpec{Name: "leader", Children: []nodeSpec{{Name: "child", Children: []nodeSpec{{Name: "grandchild", OnTerm: "ignore"}}}}}
	tr := startTree(t, spec, true)
	f := newFixture(t, 10*time.Second, &Options{Grace: 300 * time.Millisecond})
	start := time.Now()
	res, err := f.exec.Kill(context.Background(), Record{Group: &tr.group, ServerCreatedGroup: true})
	took := time.Since(start)
	if err != nil {
		t.Fatalf("Kill: %v (%+v)", err, res.Signalled)
	}
	// The grandchild ignores SIGTERM, so the kill lasts the grace: the
	// configured 300ms, not DefaultGrace.
	if took < 300*time.Millisecond || took >= DefaultGrace {
		t.Errorf("Kill took %v; want the 300ms grace of Options (at least it, well under the %v default)", took, DefaultGrace)
	}
	if res.Decision.Action != ActionSignalGroup || res.Signalled == nil || res.Signalled.Status != GroupStatusReaped {
		t.Fatalf("result %+v, want the group signalled and reaped", res)
	}
	if !slices.Equal(signals(*res.Signalled), []string{"SIGTERM", "SIGKILL"}) {
		t.Errorf("signals %v, want SIGTERM then SIGKILL", signals(*res.Signalled))
	}
	if calls := f.calls(t); len(calls) != 0 {
		t.Errorf("the CLI was called: %+v", calls)
	}
	tr.requireGone(spec.names()...)
}

// Rule: a refusal calls nothing and signals nothing, even when the record
// carries a live group the server created.
func TestKillRefusalsTouchNothing(t *testing.T) {
	spec := nodeSpec{Name: "leader", Children: []nodeSpec{{Name: "child"}}}
	for _, tc := range []struct {
		name string
		rec  func(g *Group) Record
		code string
	}{
		{"show_level", func(g *Group) Record {
			return Record{Kind: KindShow, ID: "ok-show", Group: g, ServerCreatedGroup: true}
		}, CodeShowKillUnsupported},
		{"undelegable_entity", func(g *Group) Record {
			return Record{Kind: "schedule", ID: "ok-sched", Group: g, ServerCreatedGroup: true}
		}, CodeNoKillTarget},
		{"foreign_group", func(g *Group) Record { return Record{Group: g} }, CodeNoKillTarget},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tr := startTree(t, spec, true)
			f := newFixture(t, 10*time.Second, nil)
			res, err := f.exec.Kill(context.Background(), tc.rec(&tr.group))
			var kerr *Error
			if !errors.As(err, &kerr) || kerr.Code != tc.code {
				t.Fatalf("Kill error = %v, want code %s", err, tc.code)
			}
			if res.Decision.Action != ActionRefuse || res.Decision.Refusal.Code != tc.code || res.Delegated != nil || res.Signalled != nil {
				t.Errorf("result %+v, want a bare refusal", res)
			}
			if calls := f.calls(t); len(calls) != 0 {
				t.Errorf("the CLI was called: %+v", calls)
			}
			tr.requireUntouched(spec.names()...)
		})
	}
}

// Rule: a server group whose leader pid was reused is reported as such,
// with its own error code, and not signalled.
func TestKillReportsAReusedLeaderPid(t *testing.T) {
	spec := nodeSpec{Name: "leader", Children: []nodeSpec{{Name: "child"}}}
	tr := startTree(t, spec, true)
	g := tr.group
	g.Leader.StartTime++
	res, err := NewKiller(nil, nil).Kill(context.Background(), Record{Group: &g, ServerCreatedGroup: true})
	var kerr *Error
	if !errors.As(err, &kerr) || kerr.Code != CodeLeaderMismatch {
		t.Fatalf("Kill error = %v, want code %s", err, CodeLeaderMismatch)
	}
	if res.Signalled == nil || res.Signalled.Status != GroupStatusIdentityMismatch || res.Signalled.Signalled() {
		t.Errorf("result %+v, want identity_mismatch with nothing signalled", res.Signalled)
	}
	tr.requireUntouched(spec.names()...)
}

// Rule: the argv builder is configurable; a builder that yields nothing, a
// missing runner and a runner error without a code are delegation_failed.
func TestKillDelegationConfiguration(t *testing.T) {
	t.Run("custom argv builder", func(t *testing.T) {
		argv := func(e Entity, grace time.Duration) []string {
			return []string{"kill", "--json", "--", "ok-" + string(e.Kind) + "-" + e.ID}
		}
		f := newFixture(t, 10*time.Second, &Options{Argv: argv})
		if _, err := f.exec.Kill(context.Background(), Record{Kind: KindSession, ID: "s9"}); err != nil {
			t.Fatal(err)
		}
		if got, want := f.onlyCall(t).Argv, []string{"kill", "--json", "--", "ok-session-s9"}; !slices.Equal(got, want) {
			t.Errorf("CLI argv %q, want %q", got, want)
		}
	})
	rec := Record{Kind: KindPlay, ID: "ok-1"}
	for _, tc := range []struct {
		name string
		exec *Killer
	}{
		{"empty argv", NewKiller(RunnerFunc(func(context.Context, []string) (json.RawMessage, error) {
			t.Error("runner called with an empty argv")
			return nil, nil
		}), &Options{Argv: func(Entity, time.Duration) []string { return nil }})},
		{"no runner", NewKiller(nil, nil)},
		{"uncoded runner error", NewKiller(RunnerFunc(func(context.Context, []string) (json.RawMessage, error) {
			return nil, errors.New("exec: broken pipe")
		}), nil)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res, err := tc.exec.Kill(context.Background(), rec)
			var kerr *Error
			if !errors.As(err, &kerr) || kerr.Code != CodeDelegationFailed {
				t.Fatalf("Kill error = %v, want code %s", err, CodeDelegationFailed)
			}
			if res.Delegated == nil || res.Delegated.OK || res.Delegated.Error.Code != CodeDelegationFailed || res.Signalled != nil {
				t.Errorf("result %+v, want a failed delegation and nothing signalled", res)
			}
			t.Log(err)
		})
	}
}

func TestReferenceArgv(t *testing.T) {
	for _, tc := range []struct {
		name  string
		e     Entity
		grace time.Duration
		want  []string
	}{
		{"no grace leaves the CLI's default", Entity{KindPlay, "p-1"}, 0, []string{"kill", "--json", "--", "p-1"}},
		{"grace as a Go duration", Entity{KindSession, "s-1"}, 1500 * time.Millisecond, []string{"kill", "--json", "--grace=1.5s", "--", "s-1"}},
		{"a dash-leading id stays an id", Entity{KindInvocation, "-x"}, 0, []string{"kill", "--json", "--", "-x"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := ReferenceArgv(tc.e, tc.grace); !slices.Equal(got, tc.want) {
				t.Errorf("ReferenceArgv = %q, want %q", got, tc.want)
			}
		})
	}
}

// The refusal result's JSON shape is pinned too.
func TestResultShapeOfARefusal(t *testing.T) {
	res, _ := NewKiller(nil, nil).Kill(context.Background(), Record{Kind: KindShow, ID: "sh-1"})
	golden.JSON(t, "result_refused", res)
}

// A Killer is safe for concurrent use: kills of both kinds at once, one
// Killer, each with its own outcome (-race checks the sharing).
func TestKillerIsSafeForConcurrentUse(t *testing.T) {
	spec := nodeSpec{Name: "leader", Children: []nodeSpec{{Name: "child", OnTerm: "ignore"}}}
	var trees []*tree
	for range 3 {
		trees = append(trees, startTree(t, spec, true))
	}
	f := newFixture(t, 10*time.Second, &Options{Grace: 300 * time.Millisecond})
	type outcome struct {
		res Result
		err error
	}
	delegated := make([]outcome, 3)
	signalled := make([]outcome, len(trees))
	var wg sync.WaitGroup
	for i := range delegated {
		wg.Go(func() {
			res, err := f.exec.Kill(context.Background(), Record{Kind: KindInvocation, ID: fmt.Sprintf("ok-c%d", i)})
			delegated[i] = outcome{res, err}
		})
	}
	for i, tr := range trees {
		wg.Go(func() {
			res, err := f.exec.Kill(context.Background(), Record{Group: &tr.group, ServerCreatedGroup: true})
			signalled[i] = outcome{res, err}
		})
	}
	wg.Wait()
	for i, o := range delegated {
		if o.err != nil || o.res.Delegated == nil || !bytes.Contains(o.res.Delegated.Data, fmt.Appendf(nil, `"ok-c%d"`, i)) {
			t.Errorf("delegation %d: %+v, %v", i, o.res.Delegated, o.err)
		}
	}
	for i, o := range signalled {
		if o.err != nil || o.res.Signalled == nil || o.res.Signalled.Status != GroupStatusReaped || o.res.Signalled.PGID != trees[i].group.PGID {
			t.Errorf("group %d: %+v, %v", i, o.res.Signalled, o.err)
		}
		trees[i].requireGone(spec.names()...)
	}
	if n := len(f.calls(t)); n != len(delegated) {
		t.Errorf("the CLI was called %d times, want %d", n, len(delegated))
	}
}

// Rule: signalling failures surface as signal_failed with nothing
// signalled: the caller's own group is never a target, and a context done
// before the first signal stops everything.
func TestKillSignalFailures(t *testing.T) {
	own := unix.Getpgrp()
	ownLeader, err := procid.Of(own)
	if err != nil {
		ownLeader = Identity{PID: own, StartTime: 1} // the leader may be gone; the check comes first anyway
	}
	t.Run("own group", func(t *testing.T) {
		g := Group{PGID: own, Leader: ownLeader}
		res, err := NewKiller(nil, nil).Kill(context.Background(), Record{Group: &g, ServerCreatedGroup: true})
		var kerr *Error
		if !errors.As(err, &kerr) || kerr.Code != CodeSignalFailed || res.Signalled == nil || res.Signalled.Signalled() {
			t.Fatalf("Kill = %+v, %v; want signal_failed with nothing signalled", res.Signalled, err)
		}
		t.Log(err)
	})
	t.Run("cancelled", func(t *testing.T) {
		spec := nodeSpec{Name: "leader"}
		tr := startTree(t, spec, true)
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		res, err := NewKiller(nil, nil).Kill(ctx, Record{Group: &tr.group, ServerCreatedGroup: true})
		var kerr *Error
		if !errors.As(err, &kerr) || kerr.Code != CodeSignalFailed || !errors.Is(err, context.Canceled) || res.Signalled.Signalled() {
			t.Fatalf("Kill = %+v, %v; want signal_failed wrapping context.Canceled", res.Signalled, err)
		}
		tr.requireUntouched(spec.names()...)
	})
}
