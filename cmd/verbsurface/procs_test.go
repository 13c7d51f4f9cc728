//go:build linux || freebsd

package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/verbsurface/verbsurface/internal/procid"
)

// alive reports whether pid is a live, non-zombie process.
func alive(pid int) bool {
	st, err := procid.ReadStat(pid)
	return err == nil && st.State != 'Z' && st.State != 'X'
}

// writerIn returns a function that writes a file of dir (0600) and
// returns its path.
func writerIn(t *testing.T, dir string) func(name, body string) string {
	return func(name, body string) string {
		t.Helper()
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
}

// waitPidfile waits up to 20 s for the first pid a program wrote to path.
func waitPidfile(t *testing.T, path string) int {
	t.Helper()
	for deadline := time.Now().Add(20 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		if b, err := os.ReadFile(path); err == nil && strings.Contains(string(b), "\n") {
			pid, err := strconv.Atoi(strings.Fields(string(b))[0])
			if err != nil {
				t.Fatalf("pid file %s: %v", path, err)
			}
			return pid
		}
		if time.Now().After(deadline) {
			t.Fatalf("pid file %s did not appear within 20 s", path)
		}
	}
}

// Issue 36, LOW #7: the processes the server starts for itself, to read
// its CLI's tree (a cobra binary's help and completion, a tree command),
// were plain children: kill -9 of the server left them running. Each now
// dies with the server. The program here answers the first question by
// hanging (a help that waits for a terminal, a slow tree command).
func TestTreeReadsDieWithTheServer(t *testing.T) {
	for _, source := range []string{"cobra", "tree_command", "clap"} {
		t.Run(source, func(t *testing.T) {
			dir := t.TempDir()
			pidfile := filepath.Join(dir, "pids")
			prog := filepath.Join(dir, "hangs")
			script := "#!/bin/sh\necho $$ >> " + pidfile + "\nexec sleep 600\n"
			if err := os.WriteFile(prog, []byte(script), 0o755); err != nil {
				t.Fatal(err)
			}
			config := filepath.Join(dir, "hangs.yaml")
			yaml := "name: hangs\ncommand: [" + prog + "]\nsource: {" + source + ": [" + prog + "]}\n" +
				"verbs:\n  - {name: x.list, path: [list], class: observe}\n"
			if err := os.WriteFile(config, []byte(yaml), 0o644); err != nil {
				t.Fatal(err)
			}
			srv := exec.Command(vsBin, "serve", "-c", config)
			srv.Env = append(os.Environ(), "XDG_STATE_HOME="+dir)
			if _, err := srv.StdinPipe(); err != nil { // held open: the server waits for a client
				t.Fatal(err)
			}
			if err := srv.Start(); err != nil {
				t.Fatal(err)
			}
			child := waitPidfile(t, pidfile)
			t.Cleanup(func() { _ = syscall.Kill(child, syscall.SIGKILL) })
			if err := srv.Process.Signal(syscall.SIGKILL); err != nil {
				t.Fatal(err)
			}
			_ = srv.Wait()
			for deadline := time.Now().Add(10 * time.Second); alive(child); time.Sleep(10 * time.Millisecond) {
				if time.Now().After(deadline) {
					t.Fatalf("the %s read %d outlived its server by 10 s", source, child)
				}
			}
		})
	}
}

// Issue 36, LOW #10, on the YAML front: `verbsurface serve 7<secret`
// handed descriptor 7 to every command it ran. The server now marks what
// it inherited close-on-exec at start; a command gets 0, 1, 2 and what
// the runner hands it.
func TestInheritedDescriptorsReachNoCommand(t *testing.T) {
	dir := t.TempDir()
	write := writerIn(t, dir)
	const secret = "inherited-secret-4712"
	f, err := os.Open(write("secret", secret+"\n"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	write("peek.sh", "cat /proc/self/fd/7 2>/dev/null\necho peeked\n")
	write("tree.json", `{"program": "peek", "dialect": "argparse", "commands": [{"path": [], "runnable": true, "params": []}]}`)
	config := write("peek.yaml", "name: peek\ncommand: [sh, peek.sh]\noutput: text\nsource: {tree_file: tree.json}\n"+
		"verbs:\n  - {name: peek, path: [], class: observe}\n")

	cmd := exec.Command(vsBin, "serve", "-c", config)
	cmd.Env = append(os.Environ(), "XDG_STATE_HOME="+dir)
	cmd.ExtraFiles = []*os.File{nil, nil, nil, nil, f} // descriptor 3+4 = 7, as `7<secret` leaves it
	c := serveCmd(t, cmd)
	r := c.op(`{"op": "peek"}`)
	b, _ := json.Marshal(r)
	text := string(b)
	if r["ok"] != true || !strings.Contains(text, "peeked") {
		t.Fatalf("the command did not run: %s", text)
	}
	if strings.Contains(text, secret) {
		t.Errorf("the command read the server's inherited descriptor 7: %s", text)
	}
}
