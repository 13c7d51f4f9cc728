package clienttest

import (
	"bufio"
	"bytes"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
)

// recordedPrograms are the real clients whose runs through the user's
// PATH are recorded: the ones the install commands start.
var recordedPrograms = []string{"claude", "codex", "gemini"}

// writeRecorders writes into dir, for each of recordedPrograms, a program
// that appends its argv to log and then runs the real program of that
// name from bin: what the install commands run is recorded exactly, and
// what answers is the real client.
func writeRecorders(dir, bin, log string) error {
	for _, p := range recordedPrograms {
		// An entry is the count of words, the program, the words, each
		// ended by a NUL: no argument can forge a boundary.
		script := "#!/bin/sh\nprintf '%s\\0' \"$#\" " + p + " \"$@\" >>" + shellQuote(log) + "\nexec " +
			shellQuote(filepath.Join(bin, p)) + " \"$@\"\n"
		if err := os.WriteFile(filepath.Join(dir, p), []byte(script), 0o755); err != nil {
			return err
		}
	}
	return nil
}

func shellQuote(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }

// AddVSCode puts VS Code's stand-in (package fakeclient) on the user's
// PATH after the real clients, logging what it ran for
// [RealUser.Invocations]: the one [Build] put in dir, or, when dir is "",
// one it builds.
func (u *RealUser) AddVSCode(dir string) {
	u.t.Helper()
	if dir == "" {
		dir = u.t.TempDir()
		if err := Build(dir); err != nil {
			u.t.Fatal(err)
		}
	}
	u.codeLog = u.t.TempDir()
	for i, kv := range u.Env {
		if strings.HasPrefix(kv, "PATH=") {
			u.Env[i] = kv + ":" + dir
		}
	}
	u.Env = append(u.Env, LogEnv+"="+u.codeLog)
}

// Invocations are the runs of claude, codex and gemini that went through
// the user's PATH (an install command's; not [RealUser.Run]'s), oldest
// first, then those of VS Code's stand-in, each as "PROGRAM ARG ARG...".
func (u *RealUser) Invocations() []string {
	u.t.Helper()
	b, err := os.ReadFile(u.record)
	if err != nil && !os.IsNotExist(err) {
		u.t.Fatal(err)
	}
	words := bytes.Split(b, []byte{0})
	var out []string
	for i := 0; i+1 < len(words); {
		n, err := strconv.Atoi(string(words[i]))
		if err != nil || i+2+n > len(words) {
			u.t.Fatalf("%s: a broken entry at word %d", u.record, i)
		}
		var line []string
		for _, w := range words[i+1 : i+2+n] {
			line = append(line, string(w))
		}
		out = append(out, strings.Join(line, " "))
		i += 2 + n
	}
	if u.codeLog == "" {
		return out
	}
	invs, err := Invocations(u.codeLog)
	if err != nil {
		u.t.Fatal(err)
	}
	for _, inv := range invs {
		out = append(out, inv.Program+" "+strings.Join(inv.Argv, " "))
	}
	return out
}

// A tripwire is the proxy every client is pointed at (HTTP_PROXY,
// HTTPS_PROXY and ALL_PROXY, both cases; NO_PROXY the loopback names,
// where the servers under test listen): a loopback listener that records
// the first line of each connection (CONNECT host:443) and closes it. A
// client that honours the variables reaches no network through it, and a
// test can show it did not try.
type tripwire struct {
	ln   net.Listener
	mu   sync.Mutex
	seen []string
}

func newTripwire(t testing.TB) *tripwire {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	w := &tripwire{ln: ln}
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			line, _ := bufio.NewReader(c).ReadString('\n')
			c.Close()
			w.mu.Lock()
			w.seen = append(w.seen, strings.TrimSpace(line))
			w.mu.Unlock()
		}
	}()
	t.Cleanup(func() { ln.Close(); wg.Wait() })
	return w
}

// environ is the proxy variables that lead to w.
func (w *tripwire) environ() []string {
	url := "http://" + w.ln.Addr().String()
	var out []string
	for _, k := range []string{"HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY"} {
		out = append(out, k+"="+url, strings.ToLower(k)+"="+url)
	}
	return append(out, "NO_PROXY=127.0.0.1,localhost,::1", "no_proxy=127.0.0.1,localhost,::1")
}

// proxyVars are the variables tripwire sets, dropped from a base
// environment.
var proxyVars = []string{"HTTP_PROXY=", "HTTPS_PROXY=", "ALL_PROXY=", "NO_PROXY=", "http_proxy=", "https_proxy=", "all_proxy=", "no_proxy="}

// NetworkAttempts are the connections the user's clients tried to make
// beyond loopback so far (each the first line it sent the proxy).
func (u *RealUser) NetworkAttempts() []string {
	u.wire.mu.Lock()
	defer u.wire.mu.Unlock()
	return append([]string(nil), u.wire.seen...)
}

// withoutNetwork returns argv run in a network namespace of its own with
// no interface up (unshare -rn), when this machine allows one, so that
// nothing it starts reaches any network whatever it honours; otherwise
// argv, and false.
func withoutNetwork(argv []string) ([]string, bool) {
	unshareOnce.Do(func() {
		unsharePath, _ = exec.LookPath("unshare")
		if unsharePath != "" && exec.Command(unsharePath, "-rn", "true").Run() != nil {
			unsharePath = ""
		}
	})
	if unsharePath == "" {
		return argv, false
	}
	return append([]string{unsharePath, "-rn"}, argv...), true
}

var (
	unshareOnce sync.Once
	unsharePath string
)
