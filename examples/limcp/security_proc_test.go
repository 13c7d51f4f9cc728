//go:build linux

package main

// End-to-end test of issue 25's third finding against the built binary: a
// run executes as the server's user, and a provider that read
// /proc/*/environ printed the server's LIMCP_MCP_TOKEN, a canary variable
// of the server's, and a variable providers.yaml passes only to another
// provider (it sat in the worker's environment).

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// snoopScript is the attacking provider: it prints every NAME=VALUE of the
// names below found in any other process's environment it can read, and
// a line that says it ran.
const snoopScript = `#!/bin/sh
for f in /proc/[0-9]*/environ; do
  p=${f#/proc/}; p=${p%/environ}
  [ "$p" = "$$" ] && continue
  tr '\000' '\n' < "$f" 2>/dev/null | grep -E '^(CANARY_SECRET|LIMCP_MCP_TOKEN|OTHER_KEY|CONTROL_CANARY)='
done
echo snooped
`

// TestRunCannotReadServerSecrets: every limcp process is undumpable, the
// token leaves the server's environment, and a provider's variables reach
// only its own process, so the snooping provider finds none of the
// server's secrets, while it does read a process of the same user that is
// not protected (the control: the attack itself works). The server runs
// as uid 65534 when the test runs as root (root reads everything).
func TestRunCannotReadServerSecrets(t *testing.T) {
	uid := os.Geteuid()
	var cred *syscall.Credential
	if uid == 0 {
		uid = 65534
		cred = &syscall.Credential{Uid: 65534, Gid: 65534, Groups: []uint32{}}
	}
	dir, err := os.MkdirTemp("", "limcp-proc-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	if err := os.Chmod(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(dir, "limcp") // where the other user can execute it
	copyFile(t, limcpBin, bin, 0o755)
	home := filepath.Join(dir, "home")
	e := &env{t: t, home: home}
	t.Cleanup(e.reap)
	writeOwned := func(path, content string, mode os.FileMode) {
		if err := os.WriteFile(path, []byte(content), mode); err != nil {
			t.Fatal(err)
		}
		if err := os.Chown(path, uid, uid); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Mkdir(home, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.Chown(home, uid, uid); err != nil {
		t.Fatal(err)
	}
	snoop := filepath.Join(home, "snoop.sh")
	writeOwned(snoop, snoopScript, 0o700)
	writeOwned(filepath.Join(home, "providers.yaml"), "providers:\n"+
		"  - {name: snoop, argv: [/bin/sh, "+snoop+"]}\n"+
		"  - {name: other, argv: [sleep, \"1\"], env: [OTHER_KEY]}\n", 0o600)

	asUser := func(cmd *exec.Cmd) *exec.Cmd {
		cmd.Dir = home
		if cred != nil {
			cmd.SysProcAttr = &syscall.SysProcAttr{Credential: cred}
		}
		return cmd
	}
	control := asUser(exec.Command("sleep", "60"))
	control.Env = append(e.environ(), "CONTROL_CANARY=control-value-7")
	if err := control.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { control.Process.Kill(); control.Wait() })

	const token = "proc-token-0123456789abcdef0123456789abcdef"
	srv := asUser(exec.Command(bin, "--home", home, "mcp", "--http", "127.0.0.1:0", "--no-notify"))
	srv.Env = append(e.environ(), "LIMCP_MCP_TOKEN="+token, "CANARY_SECRET=canary-value-3", "OTHER_KEY=other-key-value-5")
	url := startServer(t, srv)

	c := e.dialHTTP(url, token)
	s := c.submitEcho("snoop", "x")
	var w waitData
	c.must(&w, "job.wait", map[string]any{"ids": []string{s.ID}, "max_wait_seconds": 30}, "")
	if !w.AllTerminal {
		t.Fatalf("the snoop did not end: %+v", w)
	}
	var out struct {
		Stdout string `json:"stdout"`
	}
	c.must(&out, "job.output", map[string]any{"id": s.ID}, "")
	if !strings.Contains(out.Stdout, "snooped") || !strings.Contains(out.Stdout, "CONTROL_CANARY=control-value-7") {
		t.Fatalf("the snoop did not run, or could not read an unprotected process of its user (the test proves nothing):\n%s", out.Stdout)
	}
	for _, secret := range []string{token, "canary-value-3", "other-key-value-5"} {
		if strings.Contains(out.Stdout, secret) {
			t.Errorf("a run read the secret %q from another process:\n%s", secret, out.Stdout)
		}
	}
}

// startServer starts a `limcp mcp --http` command and returns its URL; the
// server gets SIGTERM at cleanup.
func startServer(t *testing.T, cmd *exec.Cmd) string {
	t.Helper()
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	t.Cleanup(func() {
		_ = cmd.Process.Signal(syscall.SIGTERM)
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			_ = cmd.Process.Kill()
			<-done
		}
	})
	found := make(chan string, 1)
	log := &serverLog{}
	go func() {
		defer close(done)
		re := regexp.MustCompile(`serving streamable HTTP on (http://\S+/mcp)`)
		lines := bufio.NewScanner(stderr)
		for lines.Scan() {
			log.Write(append(lines.Bytes(), '\n'))
			if m := re.FindStringSubmatch(lines.Text()); m != nil {
				found <- m[1]
			}
		}
		_, _ = io.Copy(io.Discard, stderr)
		_ = cmd.Wait()
		close(found)
	}()
	select {
	case u, ok := <-found:
		if !ok {
			t.Fatalf("the server exited without serving:\n%s", log)
		}
		return u
	case <-time.After(30 * time.Second):
		t.Fatalf("the server did not report its address:\n%s", log)
	}
	return ""
}

func copyFile(t *testing.T, from, to string, mode os.FileMode) {
	t.Helper()
	b, err := os.ReadFile(from)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(to, b, mode); err != nil {
		t.Fatal(err)
	}
}

// TestServersAreUndumpable: `limcp mcp` and `verbsurface serve`, run as an
// unprivileged user, are undumpable: the kernel makes their /proc entries
// root's, so no process of their user can read them. The test reads the
// owner of /proc/PID/environ, which the kernel sets to root for an
// undumpable process and to the process's user otherwise.
func TestServersAreUndumpable(t *testing.T) {
	uid := os.Geteuid()
	var cred *syscall.Credential
	if uid == 0 {
		uid = 65534
		cred = &syscall.Credential{Uid: 65534, Gid: 65534, Groups: []uint32{}}
	}
	dir, err := os.MkdirTemp("", "limcp-nodump-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	if err := os.Chmod(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	copyFile(t, limcpBin, filepath.Join(dir, "limcp"), 0o755)
	copyFile(t, verbsurfaceBin(t), filepath.Join(dir, "verbsurface"), 0o755)
	home := filepath.Join(dir, "home")
	if err := os.Mkdir(home, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.Chown(home, uid, uid); err != nil {
		t.Fatal(err)
	}
	// The servers run beside the home: a stdio limcp mcp's default root,
	// its working directory, may not hold it.
	work := filepath.Join(dir, "work")
	if err := os.Mkdir(work, 0o755); err != nil {
		t.Fatal(err)
	}
	e := &env{t: t, home: home}
	t.Cleanup(e.reap)
	cfg, err := os.ReadFile("verbsurface.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "front.yaml"), cfg, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		name string
		argv []string
	}{
		{"limcp mcp", []string{filepath.Join(dir, "limcp"), "--home", home, "mcp"}},
		{"verbsurface serve", []string{filepath.Join(dir, "verbsurface"), "serve", "-c", filepath.Join(dir, "front.yaml")}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			cmd := exec.Command(tt.argv[0], tt.argv[1:]...)
			cmd.Dir = work
			cmd.Env = append(e.environ(), "PATH="+dir+":/usr/bin:/bin", "LIMCP_HOME="+home, "VERBSURFACE_TOKEN=x")
			if cred != nil {
				cmd.SysProcAttr = &syscall.SysProcAttr{Credential: cred}
			}
			stdin, err := cmd.StdinPipe() // held open: the server waits for its client
			if err != nil {
				t.Fatal(err)
			}
			var stderr strings.Builder
			cmd.Stderr = &stderr
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { stdin.Close(); cmd.Process.Kill(); cmd.Wait() })
			environ := fmt.Sprintf("/proc/%d/environ", cmd.Process.Pid)
			for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(10 * time.Millisecond) {
				st, err := os.Stat(environ)
				if err != nil {
					t.Fatalf("%s exited: %v\n%s", tt.name, err, stderr.String())
				}
				// Only once the binary runs, as the user: before its
				// execve the child is still the test's, and root's.
				exe, _ := os.Readlink(fmt.Sprintf("/proc/%d/exe", cmd.Process.Pid))
				if exe == tt.argv[0] && procUID(cmd.Process.Pid) == uid && st.Sys().(*syscall.Stat_t).Uid == 0 {
					break
				}
				if time.Now().After(deadline) {
					t.Fatalf("%s (uid %d) is dumpable: its /proc entries are its user's", tt.name, uid)
				}
			}
		})
	}
}

// procUID is pid's real uid from /proc/PID/status (-1 if unreadable).
func procUID(pid int) int {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return -1
	}
	for _, line := range strings.Split(string(b), "\n") {
		if rest, ok := strings.CutPrefix(line, "Uid:"); ok {
			if f := strings.Fields(rest); len(f) > 0 {
				n, _ := strconv.Atoi(f[0])
				return n
			}
		}
	}
	return -1
}
