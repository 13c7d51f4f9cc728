package main

import (
	"bufio"
	"bytes"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// openPTY opens a real pseudo-terminal pair (Linux's /dev/ptmx): what a
// person's shell gives a command it starts.
func openPTY(t *testing.T) (master, slave *os.File) {
	t.Helper()
	m, err := os.OpenFile("/dev/ptmx", os.O_RDWR|unix.O_NOCTTY, 0)
	if err != nil {
		t.Skipf("no pseudo-terminals here: %v", err)
	}
	t.Cleanup(func() { m.Close() })
	if err := unix.IoctlSetPointerInt(int(m.Fd()), unix.TIOCSPTLCK, 0); err != nil {
		t.Fatal(err)
	}
	n, err := unix.IoctlGetInt(int(m.Fd()), unix.TIOCGPTN)
	if err != nil {
		t.Fatal(err)
	}
	s, err := os.OpenFile("/dev/pts/"+strconv.Itoa(n), os.O_RDWR|unix.O_NOCTTY, 0)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return m, s
}

// TestMCPOnATerminal: `limcp mcp` started from a terminal says on stderr
// what it is and what to run instead, and still serves: a JSON-RPC line
// typed at it is answered, and Ctrl-D ends it cleanly. Started by a client
// (stdin a pipe, or /dev/null, a char device but no terminal) it says
// nothing.
func TestMCPOnATerminal(t *testing.T) {
	e := newEnv(t)
	master, slave := openPTY(t)
	cmd := execLimcp(e, nil, "--home", e.home, "mcp")
	cmd.Stdin = slave
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	slave.Close() // the child holds it now
	// A bound, not a synchronisation: without the notice the scan below
	// would wait for the server's exit, which a terminal never brings.
	for _, p := range []any{stdout, stderr} {
		if err := p.(*os.File).SetReadDeadline(time.Now().Add(time.Minute)); err != nil {
			t.Fatal(err)
		}
	}
	var notice strings.Builder
	errLines := bufio.NewScanner(stderr)
	for errLines.Scan() {
		notice.WriteString(errLines.Text() + "\n")
		if strings.HasPrefix(errLines.Text(), "Waiting for JSON-RPC") {
			break
		}
	}
	for _, want := range []string{"this is an MCP server", "limcp mcp install claude", `limcp call '{"help": true}'`, "Ctrl-D"} {
		if !strings.Contains(notice.String(), want) {
			t.Errorf("the notice lacks %q:\n%s", want, notice.String())
		}
	}
	init := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"typed","version":"0"}}}`
	if _, err := master.Write([]byte(init + "\n")); err != nil {
		t.Fatal(err)
	}
	out := bufio.NewReader(stdout)
	line, err := out.ReadString('\n')
	if err != nil || !strings.Contains(line, `"serverInfo"`) {
		t.Fatalf("the initialize typed at the terminal got %q, %v; want the server's answer", line, err)
	}
	if _, err := master.Write([]byte{4}); err != nil { // Ctrl-D: end of input
		t.Fatal(err)
	}
	if err := cmd.Wait(); err != nil {
		t.Fatalf("limcp mcp after Ctrl-D: %v", err)
	}

	for name, stdin := range map[string]func() *os.File{
		"a pipe": func() *os.File { r, w, _ := os.Pipe(); w.Close(); return r },
		"/dev/null": func() *os.File {
			f, err := os.Open(os.DevNull)
			if err != nil {
				t.Fatal(err)
			}
			return f
		},
	} {
		cmd := execLimcp(e, nil, "--home", e.home, "mcp")
		cmd.Stdin = stdin()
		var errb bytes.Buffer
		cmd.Stderr = &errb
		if err := cmd.Run(); err != nil || strings.Contains(errb.String(), "MCP server") {
			t.Errorf("stdin %s: %v, stderr %q; want a silent start and exit", name, err, errb.String())
		}
	}
}
