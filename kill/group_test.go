//go:build unix

package kill

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"slices"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"golang.org/x/sys/unix"

	"github.com/verbsurface/verbsurface/internal/procid"
)

// addressings runs f once per way of addressing a group: through the
// leader's pidfd (when the kernel supports it) and by number, the fallback
// for older kernels.
func addressings(t *testing.T, f func(t *testing.T, how addressing, method string)) {
	t.Run("pidfd", func(t *testing.T) {
		if !pidfdGroupSupported(t) {
			t.Skip("kernel lacks PIDFD_SIGNAL_PROCESS_GROUP (Linux 6.9)")
		}
		f(t, addressByPidfd, "pidfd")
	})
	t.Run("pgid", func(t *testing.T) { f(t, addressByPGID, "pgid") })
}

// withHookBeforeKill sets testHookBeforeKill for the rest of the test.
func withHookBeforeKill(t *testing.T, hook func()) {
	testHookBeforeKill = hook
	t.Cleanup(func() { testHookBeforeKill = nil })
}

func signals(o GroupOutcome) []string {
	var s []string
	for _, sent := range o.Sent {
		s = append(s, sent.Signal)
	}
	return s
}

func waitClosed(t *testing.T, c chan struct{}, what string) {
	t.Helper()
	select {
	case <-c:
	case <-time.After(10 * time.Second):
		t.Fatalf("timed out waiting for %s", what)
	}
}

// Rule: SIGTERM, then after the grace SIGKILL, until the group is empty,
// even when the leader exits (and is reaped) on SIGTERM and grandchildren
// ignore SIGTERM.
func TestSignalGroupKillsGrandchildrenThatIgnoreTerm(t *testing.T) {
	spec := nodeSpec{Name: "leader", Children: []nodeSpec{
		{Name: "c1", Children: []nodeSpec{{Name: "c1g1", OnTerm: "ignore"}, {Name: "c1g2", OnTerm: "ignore"}}},
		{Name: "c2", OnTerm: "ignore", Children: []nodeSpec{{Name: "c2g1", OnTerm: "ignore"}}},
	}}
	addressings(t, func(t *testing.T, how addressing, method string) {
		tr := startTree(t, spec, true)
		// The leader exits on SIGTERM; make sure it is reaped before
		// SIGKILL, so SIGKILL must reach the group without it.
		withHookBeforeKill(t, func() { waitClosed(t, tr.reaped, "the leader to be reaped") })

		out, err := signalGroup(context.Background(), tr.group, 300*time.Millisecond, how)
		if err != nil {
			t.Fatalf("signalGroup: %v (%+v)", err, out)
		}
		if out.Status != GroupStatusReaped || out.Method != method {
			t.Errorf("status %q method %q, want reaped by %s; reason: %s", out.Status, out.Method, method, out.Reason)
		}
		if out.GraceCut {
			t.Error("GraceCut = true; the context never ended, the whole grace ran")
		}
		if diff := cmp.Diff([]string{"SIGTERM", "SIGKILL"}, signals(out)); diff != "" {
			t.Errorf("signals sent (-want +got):\n%s", diff)
		}
		for _, name := range spec.names() {
			if !tr.gotTerm(name) {
				t.Errorf("node %s never received SIGTERM: SIGKILL came without a chance to exit", name)
			}
			if len(out.Sent) > 0 && !slices.Contains(out.Sent[0].Members, tr.id(name).PID) {
				t.Errorf("SIGTERM members %v lack node %s (pid %d)", out.Sent[0].Members, name, tr.id(name).PID)
			}
		}
		if len(out.Survivors) != 0 {
			t.Errorf("survivors %v, want none", out.Survivors)
		}
		tr.requireGone(spec.names()...)
	})
}

// Rule: a group that empties on SIGTERM gets no SIGKILL.
func TestSignalGroupStopsAtTermWhenItSuffices(t *testing.T) {
	spec := nodeSpec{Name: "leader", Children: []nodeSpec{{Name: "child"}}}
	addressings(t, func(t *testing.T, how addressing, method string) {
		tr := startTree(t, spec, true)
		out, err := signalGroup(context.Background(), tr.group, 5*time.Second, how)
		if err != nil || out.Status != GroupStatusReaped {
			t.Fatalf("signalGroup = %+v, %v; want reaped", out, err)
		}
		if diff := cmp.Diff([]string{"SIGTERM"}, signals(out)); diff != "" {
			t.Errorf("signals sent (-want +got):\n%s", diff)
		}
		tr.requireGone(spec.names()...)
	})
}

// Rule: a recorded pid now held by another process (simulated by recording
// a wrong start time) is never signalled.
func TestSignalGroupNeverSignalsReusedPid(t *testing.T) {
	spec := nodeSpec{Name: "leader", Children: []nodeSpec{{Name: "child"}}}
	addressings(t, func(t *testing.T, how addressing, method string) {
		tr := startTree(t, spec, true)
		g := tr.group
		g.Leader.StartTime-- // the recorded process started a tick earlier: not this one
		out, err := signalGroup(context.Background(), g, 100*time.Millisecond, how)
		if err != nil {
			t.Fatal(err)
		}
		if out.Status != GroupStatusIdentityMismatch || out.Signalled() || out.Method != "" {
			t.Errorf("outcome %+v, want identity_mismatch with nothing signalled", out)
		}
		time.Sleep(100 * time.Millisecond) // a stray signal would have landed by now
		tr.requireUntouched(spec.names()...)
	})
}

// Rule: a leader that has exited and been reaped proves nothing, so group
// members that remain are reported, not signalled.
func TestSignalGroupLeaderGoneMembersRemainUnsignalled(t *testing.T) {
	spec := nodeSpec{Name: "leader", ExitWhenReady: true, Children: []nodeSpec{{Name: "orphan"}}}
	addressings(t, func(t *testing.T, how addressing, method string) {
		tr := startTree(t, spec, true)
		waitClosed(t, tr.reaped, "the leader to exit and be reaped")
		out, err := signalGroup(context.Background(), tr.group, 100*time.Millisecond, how)
		if err != nil {
			t.Fatal(err)
		}
		if out.Status != GroupStatusLeaderGone || out.Signalled() {
			t.Errorf("outcome %+v, want leader_gone with nothing signalled", out)
		}
		if diff := cmp.Diff([]int{tr.id("orphan").PID}, out.Survivors); diff != "" {
			t.Errorf("survivors (-want +got):\n%s", diff)
		}
		time.Sleep(100 * time.Millisecond)
		tr.requireUntouched("orphan")
	})
}

// Rule: a leader that has exited but is not yet reaped (a zombie) still
// holds its pid, so it still proves the group, which is signalled.
func TestSignalGroupZombieLeaderStillProvesGroup(t *testing.T) {
	spec := nodeSpec{Name: "leader", ExitWhenReady: true, Children: []nodeSpec{{Name: "orphan"}}}
	addressings(t, func(t *testing.T, how addressing, method string) {
		tr := startTree(t, spec, false)
		for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(5 * time.Millisecond) {
			if st, err := procid.ReadStat(tr.group.PGID); err == nil && st.State == 'Z' {
				break
			}
			if time.Now().After(deadline) {
				t.Fatal("leader never became a zombie")
			}
		}
		out, err := signalGroup(context.Background(), tr.group, 2*time.Second, how)
		if err != nil || out.Status != GroupStatusReaped || out.Method != method {
			t.Fatalf("signalGroup = %+v, %v; want reaped by %s", out, err, method)
		}
		if !tr.gotTerm("orphan") {
			t.Error("orphan never received SIGTERM")
		}
		tr.requireGone("orphan")
		tr.reapLeader()
	})
}

// Rule: a group whose leader and members are all gone is reported already
// gone, with nothing signalled.
func TestSignalGroupAlreadyGone(t *testing.T) {
	addressings(t, func(t *testing.T, how addressing, method string) {
		tr := startTree(t, nodeSpec{Name: "leader", ExitWhenReady: true}, true)
		waitClosed(t, tr.reaped, "the leader to exit and be reaped")
		out, err := signalGroup(context.Background(), tr.group, 100*time.Millisecond, how)
		if err != nil || out.Status != GroupStatusAlreadyGone || out.Signalled() {
			t.Fatalf("signalGroup = %+v, %v; want already_gone, nothing signalled", out, err)
		}
	})
}

// Rule: once signalling has started, the leader's exit does not stop the
// kill through a pidfd (it names the group even after the leader is
// reaped). By number, a member born after the leader was proven (here an
// heir the leader spawns on SIGTERM) cannot be proven once every process
// seen in the group is gone, so it is reported, not SIGKILLed.
func TestSignalGroupAfterLeaderReapedMidKill(t *testing.T) {
	spec := nodeSpec{Name: "leader", OnTerm: "respawn"}
	addressings(t, func(t *testing.T, how addressing, method string) {
		tr := startTree(t, spec, true)
		withHookBeforeKill(t, func() { waitClosed(t, tr.reaped, "the leader to be reaped") })
		out, err := signalGroup(context.Background(), tr.group, 300*time.Millisecond, how)
		if err != nil {
			t.Fatal(err)
		}
		heir := tr.id("leader-heir")
		switch how {
		case addressByPidfd:
			if out.Status != GroupStatusReaped || !slices.Equal(signals(out), []string{"SIGTERM", "SIGKILL"}) {
				t.Errorf("outcome %+v, want reaped after SIGTERM and SIGKILL", out)
			}
			tr.requireGone("leader-heir")
		case addressByPGID:
			if out.Status != GroupStatusSurvivors || !slices.Equal(signals(out), []string{"SIGTERM"}) {
				t.Errorf("outcome %+v, want survivors after SIGTERM only", out)
			}
			if !slices.Equal(out.Survivors, []int{heir.PID}) {
				t.Errorf("survivors %v, want the heir %d", out.Survivors, heir.PID)
			}
			if !tr.alive("leader-heir") {
				t.Error("the unproven heir was killed")
			}
		}
	})
}

// Rule: a malformed group, or the caller's own group, is an error and
// nothing is signalled.
func TestSignalGroupRejectsUnsafeGroups(t *testing.T) {
	self, err := procid.Of(os.Getpid())
	if err != nil {
		t.Fatal(err)
	}
	ownPGID := unix.Getpgrp()
	ownLeader, _ := procid.Of(ownPGID)
	for _, tc := range []struct {
		name string
		g    Group
	}{
		{"zero pgid", Group{}},
		{"pgid 1", Group{PGID: 1, Leader: Identity{PID: 1, StartTime: 1}}},
		{"leader is not the group id", Group{PGID: self.PID + 1, Leader: self}},
		{"no start time", Group{PGID: self.PID, Leader: Identity{PID: self.PID}}},
		{"own group", Group{PGID: ownPGID, Leader: Identity{PID: ownPGID, StartTime: max(ownLeader.StartTime, 1)}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out, err := SignalGroup(context.Background(), tc.g, time.Millisecond)
			if err == nil || out.Status != GroupStatusError || out.Signalled() {
				t.Fatalf("SignalGroup = %+v, %v; want an error and nothing signalled", out, err)
			}
			t.Log(err)
		})
	}
}

// Rule: a context already done means nothing is signalled.
func TestSignalGroupCancelledBeforeAnySignal(t *testing.T) {
	spec := nodeSpec{Name: "leader", Children: []nodeSpec{{Name: "child"}}}
	tr := startTree(t, spec, true)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	out, err := SignalGroup(ctx, tr.group, time.Second)
	if !errors.Is(err, context.Canceled) || out.Signalled() {
		t.Fatalf("SignalGroup = %+v, %v; want context.Canceled, nothing signalled", out, err)
	}
	tr.requireUntouched(spec.names()...)
}

// Rule: a context that ends during the grace cuts it short: SIGKILL at
// once, never a half-killed group.
func TestSignalGroupCancelDuringGraceKillsAtOnce(t *testing.T) {
	spec := nodeSpec{Name: "leader", OnTerm: "ignore", Children: []nodeSpec{{Name: "child", OnTerm: "ignore"}}}
	tr := startTree(t, spec, true)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	time.AfterFunc(300*time.Millisecond, cancel)
	start := time.Now()
	out, err := SignalGroup(ctx, tr.group, time.Minute)
	if err != nil || out.Status != GroupStatusReaped || !out.GraceCut {
		t.Fatalf("SignalGroup = %+v, %v; want reaped with the grace cut", out, err)
	}
	if d := time.Since(start); d > 20*time.Second {
		t.Errorf("took %s: the one-minute grace was not cut", d)
	}
	tr.requireGone(spec.names()...)
}

func TestLeaderGroup(t *testing.T) {
	t.Run("records a new group's leader", func(t *testing.T) {
		tr := startTree(t, nodeSpec{Name: "leader"}, true)
		if want := (Group{PGID: tr.id("leader").PID, Leader: tr.id("leader")}); tr.group != want {
			t.Fatalf("LeaderGroup = %+v, want %+v", tr.group, want)
		}
	})
	t.Run("refuses a process that leads no group", func(t *testing.T) {
		cmd := exec.Command("sleep", "30") // stays in this process's group
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		defer func() { cmd.Process.Kill(); cmd.Wait() }()
		if _, err := LeaderGroup(cmd.Process.Pid); !errors.Is(err, errNotLeader) {
			t.Fatalf("LeaderGroup(non-leader) error = %v, want %v", err, errNotLeader)
		}
	})
	t.Run("reports a pid that does not exist", func(t *testing.T) {
		cmd := exec.Command("true")
		if err := cmd.Run(); err != nil {
			t.Fatal(err)
		}
		if _, err := LeaderGroup(cmd.Process.Pid); !errors.Is(err, procid.ErrGone) {
			t.Fatalf("LeaderGroup(exited pid) error = %v, want %v", err, procid.ErrGone)
		}
	})
}
