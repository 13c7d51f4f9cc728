//go:build linux

package main

// End-to-end tests of issue 25's twelfth finding against the built
// binary: `kill -9` of a stdio server while a CLI child worked left the
// child running, reparented, past its 30 s limit, and its /tmp prompt
// snapshot on disk.

import (
	"bufio"
	"context"
	"database/sql"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// lockStore holds the home's store locked for writing until cleanup, so a
// command that writes waits on it (for the store's busy timeout, 10 s):
// the way a test keeps a real command working for as long as it needs.
func (e *env) lockStore() {
	e.t.Helper()
	ctx := context.Background()
	conn, err := e.store().DB().Conn(ctx)
	if err != nil {
		e.t.Fatal(err)
	}
	if _, err := conn.ExecContext(ctx, "BEGIN IMMEDIATE"); err != nil {
		e.t.Fatal(err)
	}
	e.t.Cleanup(func() {
		_, _ = conn.ExecContext(ctx, "ROLLBACK")
		conn.Close()
	})
	var _ *sql.Conn = conn
}

// TestServerKilledMidCommandLeavesNothing is the attack: the
// server is SIGKILLed while the CLI child of an agent.submit with a large
// prompt works (it waits on the store, held locked). The child dies with
// the server, long before the store's 10 s busy timeout would end it, and
// the prompt's snapshot never had a name in TMPDIR to leave behind.
func TestServerKilledMidCommandLeavesNothing(t *testing.T) {
	e := newEnv(t)
	snapdir := t.TempDir()
	e.lockStore()
	c, srv := e.dialStdioCmd([]string{"TMPDIR=" + snapdir})
	fp := c.help("agent.submit").SchemaFingerprint
	go func() {
		_, _ = c.cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "request", Arguments: map[string]any{
			"ops": []any{map[string]any{"op": "agent.submit", "fingerprint": fp,
				"args": map[string]any{"model": "echo", "prompt": strings.Repeat("big ", 30000)}}}}})
	}()
	var child int
	for deadline := time.Now().Add(20 * time.Second); child == 0; time.Sleep(10 * time.Millisecond) {
		for _, p := range childrenOf(srv.Process.Pid) {
			if strings.Contains(cmdlineOf(p), " agent ") {
				child = p
			}
		}
		if time.Now().After(deadline) {
			t.Fatal("the server started no agent command")
		}
	}
	if ents, _ := os.ReadDir(snapdir); len(ents) != 0 {
		t.Errorf("the prompt snapshot has a name in TMPDIR while its command runs: %v", ents)
	}
	if err := srv.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	for deadline := time.Now().Add(5 * time.Second); alive(child); time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("the CLI child %d (%s) outlived its killed server by 5 s", child, cmdlineOf(child))
		}
	}
	if ents, _ := os.ReadDir(snapdir); len(ents) != 0 {
		t.Fatalf("the killed server left snapshots in TMPDIR: %v", ents)
	}
}

// TestServedCommandStopsItself holds the rule where no parent-death signal
// reaches a command (macOS): a command with the server's timeout in its
// environment stops once its parent is gone, and once the timeout and its
// grace have passed, whatever its parent does. Here the parent is a shell
// with no parent-death signal of its own, killed outright.
func TestServedCommandStopsItself(t *testing.T) {
	e := newEnv(t)
	e.lockStore()
	start := func(timeout string) (sh *exec.Cmd, limcp int, stderr *os.File) {
		errf, err := os.CreateTemp(t.TempDir(), "stderr")
		if err != nil {
			t.Fatal(err)
		}
		sh = exec.Command("/bin/sh", "-c", `LIMCP_PARENT_PID=$$ "$0" --home "$1" --json team create ops 2>"$2" >/dev/null & echo $!; wait`, limcpBin, e.home, errf.Name())
		sh.Env = append(e.environ(), "LIMCP_COMMAND_TIMEOUT="+timeout)
		out, err := sh.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		if err := sh.Start(); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { sh.Process.Kill(); sh.Wait() })
		line, err := bufio.NewReader(out).ReadString('\n')
		if err != nil {
			t.Fatal(err)
		}
		pid, _ := strconv.Atoi(strings.TrimSpace(line))
		return sh, pid, errf
	}
	waitGone := func(pid int, within time.Duration, what string) {
		t.Helper()
		for deadline := time.Now().Add(within); alive(pid); time.Sleep(10 * time.Millisecond) {
			if time.Now().After(deadline) {
				st, _ := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
				t.Fatalf("%s: the command %d still runs after %s: %s", what, pid, within, st)
			}
		}
	}

	sh, pid, _ := start("30s")
	for deadline := time.Now().Add(10 * time.Second); !strings.Contains(cmdlineOf(pid), "team create"); time.Sleep(5 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the command did not start")
		}
	}
	if err := sh.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	waitGone(pid, 5*time.Second, "its parent killed")

	_, pid, errf := start("1s")
	waitGone(pid, 8*time.Second, "past its timeout") // 1 s and the 2 s grace, well before the 10 s busy timeout
	b, _ := os.ReadFile(errf.Name())
	if !strings.Contains(string(b), "past its 1s timeout") {
		t.Fatalf("stderr %q; want the command to say it stopped itself", b)
	}
}
