package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// detachScript starts `sleep 600` detached the way a daemon detaches: a
// background subshell that exits at once (so sleep is orphaned) and
// setsid (so it leaves the command's process group and session); sleep's
// pid goes to pid.MODE beside the script, which the command waits for.
const detachScript = `dir=$(dirname "$0")
( setsid sh -c "echo \$\$ > $dir/pid.$1.tmp && mv $dir/pid.$1.tmp $dir/pid.$1; exec sleep 600 >/dev/null 2>&1 </dev/null" & )
while [ ! -f "$dir/pid.$1" ]; do sleep 0.01; done
echo detached
`

// Issue 36, LOW #12, against the built binary: what a fronted program
// detached into a session of its own outlived the op and the server (only
// the process group was killed). Now it ends with the op (the server
// adopts its orphaned descendants and kills the ones its command tagged);
// a spawn verb's detached work is left running, by design, and reaped by
// the server when it exits.
func TestDetachedWorkEndsWithTheOp(t *testing.T) {
	dir := t.TempDir()
	write := writerIn(t, dir)
	write("detach.sh", detachScript)
	write("tree.json", `{"program": "detach", "dialect": "argparse", "commands": [
		{"path": [], "runnable": false, "params": []},
		{"path": ["observe"], "runnable": true, "params": []},
		{"path": ["spawn"], "runnable": true, "params": []}]}`)
	config := write("detach.yaml", "name: detach\ncommand: [sh, detach.sh]\noutput: text\nsource: {tree_file: tree.json}\n"+
		"verbs:\n  - {name: d.observe, path: [observe], class: observe}\n  - {name: d.spawn, path: [spawn], class: spawn}\n")
	c := serve(t, config)
	pidOf := func(mode string) int {
		t.Helper()
		pid := waitPidfile(t, filepath.Join(dir, "pid."+mode))
		t.Cleanup(func() { _ = syscall.Kill(pid, syscall.SIGKILL) })
		return pid
	}
	gone := func(pid int) bool { // dead and reaped
		_, err := os.Stat("/proc/" + itoa(pid))
		return os.IsNotExist(err)
	}

	if r := c.op(`{"op": "d.observe"}`); r["ok"] != true {
		b, _ := json.Marshal(r)
		t.Fatalf("d.observe: %s", b)
	}
	observed := pidOf("observe")
	for deadline := time.Now().Add(10 * time.Second); !gone(observed); time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("the process d.observe detached (%d) outlived the op by 10 s", observed)
		}
	}

	_, fp := c.help("d.spawn")
	if r := c.op(`{"op": "d.spawn", "fingerprint": "` + fp + `"}`); r["ok"] != true {
		b, _ := json.Marshal(r)
		t.Fatalf("d.spawn: %s", b)
	}
	spawned := pidOf("spawn")
	time.Sleep(200 * time.Millisecond)
	if !alive(spawned) {
		t.Fatalf("the work d.spawn detached (%d) was ended; a spawn verb's detached work is left running", spawned)
	}
	// It is the server's child now (adopted): once it exits, the server
	// reaps it rather than keep a zombie.
	if err := syscall.Kill(spawned, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	for deadline := time.Now().Add(10 * time.Second); !gone(spawned); time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			st, _ := os.ReadFile("/proc/" + itoa(spawned) + "/stat")
			t.Fatalf("the spawn's detached process %d, killed, was not reaped within 10 s: %s", spawned, strings.TrimSpace(string(st)))
		}
	}
}

func itoa(n int) string { b, _ := json.Marshal(n); return string(b) }
